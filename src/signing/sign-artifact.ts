import {open, unlink} from 'node:fs/promises'
import path from 'node:path'
import zlib from 'node:zlib'
import {throwIfCancelled} from '../cancellation.js'
import {temporarySibling} from '../fs/durable.js'
import {OutputError, checkOutputFree, placeFile, withOutputs, writeFailed, type OutputScope} from '../fs/output.js'
import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {compareEntryNames} from '../archive/names.js'
import type {ArchiveEntry, ArchiveLimits, EntryDigest, EntryLocation, StrictArchive} from '../archive/types.js'
import {writeArchive, type WriterEntry} from '../archive/writer.js'
import {containerClaim, type ContainerClaim} from '../artifact/container.js'
import type {ManifestRead} from '../artifact/contents.js'
import {withArtifact} from '../artifact/open.js'
import {readCertificateFiles} from '../pki/certificate-files.js'
import type {CertificateFiles} from '../pki/certificate.js'
import {SigningError} from '../pki/errors.js'
import {readKeySource, type SigningKeyOptions, type SigningKeySource} from '../pki/signing-key.js'
import {artifactStatement, errorFrom, placeholderManifest, planSignature, type SignaturePlan, type SignedContents, signManifest, type SigningCredentials} from './sign.js'
import {runChecklist} from './verify.js'
import {readArtifactContents, signerContext} from './verify-artifact.js'

/**
 * What `signArtifact` needs: the artifact, the output, and the signing key and certificates, each given as
 * its bytes or as its files (`invalid-signer` when one is given in neither form, or in both).
 */
export type SignArtifactOptions = SignArtifactTarget & SigningKeySource & SigningCertificateSource & IssuerCertificateSource

/** The artifact to sign, where to write it, when, and within which limits. */
export interface SignArtifactTarget {
  /** The packed, unsigned `.svcPlugin`. */
  artifact: string
  /** Where to write the signed artifact; never overwritten. */
  output: string
  /** The signing time (default: now), written as `signedAt` to the second. */
  now?: Date
  /** Archive limits (defaults for anything not given). */
  limits?: Partial<ArchiveLimits>
  /**
   * Cancels the signing: it rejects with an error named `AbortError` (code `cancelled`, the signal's reason as
   * its `cause`) and leaves no output, also when the signed file was written and was being read back.
   */
  signal?: AbortSignal
}

/** The signing certificate, as its bytes (`certificate`) or as its two files. */
export type SigningCertificateSource =
  | {
      /** certificate.json and the base64 of its signature. */
      certificate: CertificateFiles
      certificateFile?: never
      certificateSignatureFile?: never
    }
  | {
      /** certificate.json. */
      certificateFile: string
      /** certificate.sig. */
      certificateSignatureFile: string
      certificate?: never
    }

/**
 * The issuer certificate, when the signing certificate is issued by one: as its bytes (`issuer`) or as its
 * two files, both or neither.
 */
export interface IssuerCertificateSource {
  /** issuer.json and the base64 of its signature. */
  issuer?: CertificateFiles
  /** issuer.json (with `issuerSignatureFile`; not with `issuer`). */
  issuerCertificateFile?: string
  /** issuer.sig (with `issuerCertificateFile`; not with `issuer`). */
  issuerSignatureFile?: string
}

/** What `signArtifact` wrote. */
export interface SignArtifactResult {
  /** Absolute path of the signed artifact. */
  output: string
  certificateId: string
  signedAt: string
  /** Hex SHA-256 of the canonical digest text P that was signed. */
  artifactDigest: string
  /** `sha256:` + hex of the container digest the signed manifest carries as `containerDigest`. */
  containerDigest: string
}

/**
 * Signs a packed artifact and its container (docs/signing.md, "Signing"): every payload entry copied as
 * the input holds it (compressed bytes, CRC-32, sizes, storage method and executable bit: nothing is
 * inflated or compressed again, so the container is the same on every machine), `certificate.json` +
 * `certificate.sig` (and `issuer.*`) added, the signed `manifest.json` stored first, written
 * deterministically through the archive writer beside the output. The container digest of that file is
 * then computed, the statement signed with the key (a private key, a signer, or a prepared statement and
 * its signature: docs/signing.md, "Signing with a key in a vault"), the signature checked against the
 * certificate's key (`signature-invalid`), and the manifest that carries both written into the file; the
 * file is read back, run through the verification checklist (all but the root link, the container
 * included) and only then moved onto the output. Refuses an existing output (`output-exists`), a prepared
 * statement of another artifact or certificate (`statement-mismatch`) and everything `planSignature`
 * refuses; a failure leaves nothing behind. Archive errors of the input are thrown as they are (`ArchiveError`).
 */
export async function signArtifact(options: SignArtifactOptions): Promise<SignArtifactResult> {
  const {signal} = options
  throwIfCancelled(signal)
  const credentials = await readCredentials(options)
  const advice = 'sign never overwrites; choose another --output or remove it first'
  return withPlaceholderArchive(options.output, advice, options, credentials, async ({target, temporary, plan, containerDigest, location, limits}) => {
    const signed = await signManifest(plan, containerDigest)
    await sealContainer(temporary, plan, signed, location)
    // sign verifies what it wrote, from the file, as a verifier will read it.
    const check = await readArtifactContents(temporary, {limits, signal}, async (contents) => runChecklist(contents, signerContext(plan.now)))
    // The last abort point: once placed, the signed artifact is the result.
    throwIfCancelled(signal)
    if ('code' in check) throw errorFrom(check)
    await placeFile(temporary, target, false)
    return {output: target, certificateId: signed.certificateId, signedAt: signed.signedAt, artifactDigest: signed.artifactDigest, containerDigest: `sha256:${containerDigest}`}
  })
}

/** What {@link withPlaceholderArchive} hands on: the archive with the placeholder manifest beside the output, and its container digest. */
interface PlaceholderArchive {
  outputs: OutputScope
  target: string
  temporary: string
  plan: SignaturePlan
  containerDigest: string
  location: EntryLocation
  limits: ArchiveLimits
}

/**
 * Within one output scope: refuses an existing `output` (`output-exists`, with `advice`), plans the signature
 * and writes the archive with the placeholder manifest to a temporary file beside the output (removed unless
 * `use` moves it into place), computes its container digest, and hands all of it to `use`.
 */
async function withPlaceholderArchive<T>(
  output: string,
  advice: string,
  options: {artifact: string; now?: Date | undefined; limits?: Partial<ArchiveLimits> | undefined; signal?: AbortSignal | undefined},
  credentials: Omit<SigningCredentials, 'now'>,
  use: (placeholder: PlaceholderArchive) => Promise<T>,
): Promise<T> {
  const {signal} = options
  const limits = resolveLimits(options.limits)
  await checkOutputFree(output, {advice})
  return withOutputs(async (outputs) => {
    await outputs.prepare(output)
    const target = path.resolve(output)
    const temporary = temporarySibling(target)
    outputs.adopt(temporary)
    try {
      const plan = await writePlaceholderArchive({...credentials, artifact: options.artifact, now: options.now}, temporary, {limits, signal})
      const {sha256: containerDigest, location} = await containerDigestOf(temporary, {limits, signal})
      throwIfCancelled(signal)
      return await use({outputs, target, temporary, plan, containerDigest, location, limits})
    } catch (error) {
      throw namingOutput(error, temporary, output)
    }
  })
}

/**
 * A failure to write the temporary beside the output (a full disk, a file size limit) as the user can act
 * on it: `write-failed` naming the output they gave, never the temporary they did not.
 */
function namingOutput(error: unknown, temporary: string, output: string): unknown {
  if (!(error instanceof OutputError) || error.code !== 'write-failed') return error
  const failed = (error.details as {path?: unknown} | undefined)?.path
  return failed === temporary ? writeFailed(output, error.cause) : error
}

/**
 * The signing key, the certificate and its issuer of `options`, each read from its files when given as files
 * (a signing command is started with `cwd` and `signal`); `invalid-signer` when the key or the certificate is
 * given in no form or in two, or an issuer file without the other.
 */
async function readCredentials(options: SignArtifactOptions): Promise<SigningKeyOptions & {certificate: CertificateFiles; issuer?: CertificateFiles}> {
  const key = await readKeySource(options, 'the signing key', options.signal)
  if (key === null) throw new SigningError('invalid-signer', 'Signing needs a key: a private key or its file, a signer or a signing command, or a prepared statement with its signature.')
  return {...key, ...(await readCertificateSources(options))}
}

/**
 * The signing certificate and its issuer (when there is one), each read from its files when given as files;
 * `invalid-signer` when the certificate is given in neither form or in both, or an issuer file without the other.
 */
export async function readCertificateSources(options: SigningCertificateSource & IssuerCertificateSource): Promise<{certificate: CertificateFiles; issuer?: CertificateFiles}> {
  const {certificate, certificateFile, certificateSignatureFile, issuer, issuerCertificateFile, issuerSignatureFile} = options
  const signing = oneForm('the certificate', certificate, [certificateFile, certificateSignatureFile])
  const issuing = oneForm('the issuer certificate', issuer, [issuerCertificateFile, issuerSignatureFile])
  if (signing === null) throw new SigningError('invalid-signer', 'Give the certificate (certificate) or its two files (certificateFile, certificateSignatureFile).')
  return {
    certificate: 'value' in signing ? signing.value : await readCertificateFiles(signing.files[0] as string, signing.files[1] as string),
    ...(issuing === null ? {} : {issuer: 'value' in issuing ? issuing.value : await readCertificateFiles(issuing.files[0] as string, issuing.files[1] as string)}),
  }
}

/**
 * Which form `what` is given in: its value, all of its files, or neither (null); `invalid-signer` when it
 * is given in both forms or by some of its files only.
 */
function oneForm<T>(what: string, value: T | undefined, files: readonly (string | undefined)[]): {value: T} | {files: string[]} | null {
  const given = files.filter((file): file is string => file !== undefined)
  if (value !== undefined && given.length > 0) throw new SigningError('invalid-signer', `Give ${what} or its files, not both.`)
  if (value !== undefined) return {value}
  if (given.length === 0) return null
  if (given.length < files.length) throw new SigningError('invalid-signer', `Give both files of ${what} (its .json and its .sig), or neither.`)
  return {files: given}
}

/**
 * What `prepareArtifactSignature` needs: the artifact, the certificate and its issuer (as bytes or as their
 * files) and where to write the statement.
 */
export type PrepareArtifactSignatureOptions = PrepareArtifactSignatureTarget & SigningCertificateSource & IssuerCertificateSource

/** The artifact whose statement to prepare, where to write it, when, within which limits. */
export interface PrepareArtifactSignatureTarget {
  /** The packed, unsigned `.svcPlugin`. */
  artifact: string
  /** The signing time (default: now). */
  now?: Date
  /** Where to write the statement; never overwritten. */
  output: string
  limits?: Partial<ArchiveLimits>
  /** Cancels the preparation (as {@link SignArtifactOptions.signal} cancels signing). */
  signal?: AbortSignal
}

/** What `prepareArtifactSignature` wrote. */
export interface PreparedArtifactSignature {
  /** Absolute path of the statement file. */
  output: string
  certificateId: string
  signedAt: string
  /** Hex SHA-256 of the canonical digest text P the statement names. */
  artifactDigest: string
  /** `sha256:` + hex of the container digest the signed manifest will carry. */
  containerDigest: string
}

/**
 * Writes the statement the certificate's key must sign for this artifact, and nothing else: the artifact is
 * planned and written to a temporary file exactly as {@link signArtifact} writes it, its container digest
 * computed, and the statement of docs/signing.md §7 (signing time, key id, artifact digest over the manifest
 * that carries the container digest) written to `output`. The temporary file is removed. Completing with
 * `prepared` (the statement and its signature) on any machine gives the same container, since sign copies
 * the payload's compressed bytes as they are. Refuses what `planSignature` refuses and an existing output.
 */
export async function prepareArtifactSignature(options: PrepareArtifactSignatureOptions): Promise<PreparedArtifactSignature> {
  const certificates = await readCertificateSources(options)
  const advice = 'sign never overwrites; choose another --prepare file or remove it first'
  return withPlaceholderArchive(options.output, advice, options, certificates, async ({outputs, target, temporary, plan, containerDigest}) => {
    await unlink(temporary)
    const statement = artifactStatement(plan, containerDigest)
    await outputs.newFile(target, statement.message)
    return {output: target, certificateId: plan.certificateId, signedAt: plan.signedAt, artifactDigest: statement.artifactDigest, containerDigest: `sha256:${containerDigest}`}
  })
}

/** Plans the signature of `options.artifact` and writes the archive with the placeholder manifest to `file`. */
async function writePlaceholderArchive(options: SigningCredentials & {artifact: string}, file: string, {limits, signal}: {limits: ArchiveLimits; signal: AbortSignal | undefined}): Promise<SignaturePlan> {
  const now = options.now ?? new Date()
  return withArtifact(options.artifact, {limits, signal}, async (artifact) => {
    const planned = planSignature(await artifact.contents(), {...options, now})
    await writeSigned(file, artifact.archive, planned, {limits, signal})
    return planned
  })
}

/**
 * Writes the signed archive with the placeholder manifest (stored, first), then the payload entries
 * copied compressed as they are and the certificate entries, in UTF-8 byte order.
 */
async function writeSigned(output: string, source: StrictArchive, plan: SignaturePlan, options: {limits: ArchiveLimits; signal: AbortSignal | undefined}): Promise<void> {
  const entries: WriterEntry[] = []
  for (const entry of source.entries) {
    if (entry.name === manifestEntryName) continue
    const {sha256} = plan.files.get(entry.name) as EntryDigest
    const {method, compressedSize, crc32, uncompressedSize: size} = entry
    entries.push({
      name: entry.name,
      // The packer's decisions stay: executables keep 0755, the compressed bytes stay as they are.
      mode: (entry.mode & 0o111) === 0 ? 0o644 : 0o755,
      store: method === 0,
      source: {kind: 'compressed', open: () => source.openCompressed(entry), method, compressedSize, crc32, size, sha256},
    })
  }
  // The writer deflates these only where that makes them smaller.
  for (const [name, data] of plan.chainEntries) {
    entries.push({name, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(data)}})
  }
  entries.sort((a, b) => compareEntryNames(a.name, b.name))
  const manifest: WriterEntry = {name: manifestEntryName, mode: 0o644, store: true, source: {kind: 'buffer', data: Buffer.from(placeholderManifest(plan))}}
  await writeArchive(output, [manifest, ...entries], options)
}

/**
 * The container digest of the archive written with the placeholder manifest, computed as a verifier
 * computes it (the ranges it counts as zero found as a verifier finds them), and where its manifest lies.
 */
async function containerDigestOf(file: string, {limits, signal}: {limits: ArchiveLimits; signal: AbortSignal | undefined}): Promise<{sha256: string; location: EntryLocation}> {
  return withArtifact(file, {limits, signal}, async (artifact) => {
    const evidence = await (artifact.manifest as ManifestRead).container
    if (evidence === undefined || evidence.sha256 === null) throw new Error('The archive written for signing has no container digest to sign.')
    return {sha256: evidence.sha256, location: artifact.archive.locate(artifact.archive.get(manifestEntryName) as ArchiveEntry)}
  })
}

/**
 * Writes the signed manifest's hex digits, signature value and CRC-32 over the placeholders of the archive
 * written with the placeholder manifest; the file is flushed to disk.
 */
async function sealContainer(file: string, plan: SignaturePlan, signed: SignedContents, location: EntryLocation): Promise<void> {
  const placeholder = placeholderManifest(plan)
  const claim = containerClaim(placeholder) as ContainerClaim
  const manifest = Buffer.from(signed.manifest)
  if (manifest.length !== placeholder.length) throw new Error('The signed manifest does not have the length of its placeholder.')
  const crc = Buffer.alloc(4)
  crc.writeUInt32LE(zlib.crc32(manifest) >>> 0)
  const handle = await open(file, 'r+')
  try {
    const patch = async (bytes: Buffer, position: number) => {
      const {bytesWritten} = await handle.write(bytes, 0, bytes.length, position)
      if (bytesWritten !== bytes.length) throw new Error(`${file}: a write at ${position} was cut short.`)
    }
    await patch(manifest.subarray(claim.hexOffset, claim.hexOffset + 64), location.data + claim.hexOffset)
    await patch(manifest.subarray(claim.valueOffset, claim.valueOffset + claim.valueLength), location.data + claim.valueOffset)
    await patch(crc, location.localHeader + 14)
    await patch(crc, location.centralRecord + 16)
    await handle.sync()
  } catch (error) {
    throw writeFailed(file, error)
  } finally {
    await handle.close()
  }
}
