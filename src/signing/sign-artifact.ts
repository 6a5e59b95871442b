import {throwIfCancelled} from '../cancellation.js'
import {checkOutputFree, withOutputs} from '../fs/output.js'
import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {compareEntryNames} from '../archive/names.js'
import type {ArchiveLimits, StrictArchive} from '../archive/types.js'
import {writeArchive, type WriterEntry} from '../archive/writer.js'
import {readCertificateFiles} from '../pki/certificate-files.js'
import {SigningError} from '../pki/errors.js'
import {readPrivateKeyFile} from '../pki/keys.js'
import {errorFrom, type SignedContents, signContents, type SigningCredentials} from './sign.js'
import {runChecklist} from './verify.js'
import {readArtifactContents, signerContext} from './verify-artifact.js'
import {withArtifact} from '../artifact/open.js'

/** What `signArtifact` needs. */
export interface SignArtifactOptions extends SigningCredentials {
  /** The packed, unsigned `.svcPlugin`. */
  artifact: string
  /** Where to write the signed artifact; never overwritten. */
  output: string
  /** Archive limits (defaults for anything not given). */
  limits?: Partial<ArchiveLimits>
  /**
   * Cancels the signing: it rejects with an error named `AbortError` (code `cancelled`, the signal's reason as
   * its `cause`) and leaves no output, also when the signed file was written and was being read back.
   */
  signal?: AbortSignal
}

/** What `signArtifact` wrote. */
export interface SignArtifactResult {
  /** Absolute path of the signed artifact. */
  output: string
  certificateId: string
  signedAt: string
  /** Hex SHA-256 of the canonical digest text P that was signed. */
  artifactDigest: string
}

/**
 * Signs a packed artifact: the same payload entries (bytes, modes and
 * storage method), `certificate.json` + `certificate.sig` (and `issuer.*`) added, the signed
 * `manifest.json` first, written deterministically through the archive writer. Refuses an existing
 * output (`output-exists`) and everything `signContents` refuses, then reads the written file back
 * and runs the verification checklist over it (all but the root link); a failure removes the output.
 * Archive errors of the input are thrown as they are (`ArchiveError`).
 */
export async function signArtifact(options: SignArtifactOptions): Promise<SignArtifactResult> {
  const {signal} = options
  throwIfCancelled(signal)
  const limits = resolveLimits(options.limits)
  const now = options.now ?? new Date()
  await checkOutputFree(options.output, {advice: 'sign never overwrites; choose another --output or remove it first'})
  return withOutputs(async (outputs) => {
    await outputs.prepare(options.output)
    const {signed, written} = await withArtifact(options.artifact, {limits, signal}, async (artifact) => {
      const contents = await artifact.contents()
      const signed = signContents(contents, {...options, now})
      return {signed, written: (await writeSigned(options.output, artifact.archive, contents.files, signed, {limits, signal})).path}
    })
    // sign verifies what it wrote, from the file, as a verifier will read it; a failure removes it.
    outputs.adopt(written)
    const check = await readArtifactContents(written, {limits, signal}, async (contents) => runChecklist(contents, signerContext(now)))
    if ('code' in check) throw errorFrom(check)
    return {output: written, certificateId: signed.certificateId, signedAt: signed.signedAt, artifactDigest: signed.artifactDigest}
  })
}

/** What `signArtifactFiles` needs: the key and certificate files instead of their bytes. */
export interface SignArtifactFilesOptions {
  artifact: string
  output: string
  privateKeyFile: string
  certificateFile: string
  certificateSignatureFile: string
  /** issuer.json and issuer.sig, both or neither (`invalid-signer`). */
  issuerCertificateFile?: string
  issuerSignatureFile?: string
  now?: Date
  limits?: Partial<ArchiveLimits>
  /** Cancels the signing (see {@link SignArtifactOptions.signal}). */
  signal?: AbortSignal
}

/** Reads the key and certificate files, then `signArtifact`. */
export async function signArtifactFiles(options: SignArtifactFilesOptions): Promise<SignArtifactResult> {
  const {issuerCertificateFile, issuerSignatureFile} = options
  if ((issuerCertificateFile === undefined) !== (issuerSignatureFile === undefined)) {
    throw new SigningError('invalid-signer', 'Give both the issuer certificate and its signature, or neither.')
  }
  return signArtifact({
    artifact: options.artifact,
    output: options.output,
    privateKey: await readPrivateKeyFile(options.privateKeyFile),
    certificate: await readCertificateFiles(options.certificateFile, options.certificateSignatureFile),
    issuer: issuerCertificateFile === undefined ? undefined : await readCertificateFiles(issuerCertificateFile, issuerSignatureFile as string),
    now: options.now,
    limits: options.limits,
    signal: options.signal,
  })
}

/** Writes the signed archive: manifest first, then payload and certificate entries in UTF-8 byte order. */
async function writeSigned(output: string, source: StrictArchive, payload: ReadonlyMap<string, {size: number; sha256: string}>, signed: SignedContents, options: {limits: ArchiveLimits; signal: AbortSignal | undefined}) {
  const entries: WriterEntry[] = []
  for (const entry of source.entries) {
    if (entry.name === manifestEntryName) continue
    const digest = payload.get(entry.name) as {size: number; sha256: string}
    entries.push({
      name: entry.name,
      // The packer's decisions stay: executables keep 0755, stored entries stay stored.
      mode: (entry.mode & 0o111) === 0 ? 0o644 : 0o755,
      store: entry.method === 0,
      source: {kind: 'stream', open: () => source.openEntry(entry), size: digest.size, sha256: digest.sha256},
    })
  }
  // The writer deflates these only where that makes them smaller.
  for (const [name, data] of signed.chainEntries) {
    entries.push({name, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(data)}})
  }
  entries.sort((a, b) => compareEntryNames(a.name, b.name))
  const manifest: WriterEntry = {name: manifestEntryName, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(signed.manifest)}}
  return writeArchive(output, [manifest, ...entries], options)
}
