import {open} from 'node:fs/promises'
import path from 'node:path'
import zlib from 'node:zlib'
import {throwIfCancelled} from '../cancellation.js'
import {temporarySibling} from '../fs/durable.js'
import {checkOutputFree, placeFile, withOutputs, writeFailed} from '../fs/output.js'
import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {compareEntryNames} from '../archive/names.js'
import type {ArchiveEntry, ArchiveLimits, EntryDigest, StrictArchive} from '../archive/types.js'
import {writeArchive, type WriterEntry} from '../archive/writer.js'
import {containerClaim, type ContainerClaim} from '../artifact/container.js'
import type {ManifestRead} from '../artifact/contents.js'
import {withArtifact} from '../artifact/open.js'
import {readCertificateFiles} from '../pki/certificate-files.js'
import type {CertificateFiles} from '../pki/certificate.js'
import {SigningError} from '../pki/errors.js'
import {readPrivateKeyFile} from '../pki/keys.js'
import {errorFrom, placeholderManifest, planSignature, type SignaturePlan, type SignedContents, signManifest, type SigningCredentials} from './sign.js'
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

/** The certificate's private key, as its 32-byte seed (`privateKey`) or as its file (`privateKeyFile`). */
export type SigningKeySource =
  | {
      /** The 32-byte private seed of the certificate's key. */
      privateKey: Uint8Array
      privateKeyFile?: never
    }
  | {
      /** The private key's file, as `keys create` writes it. */
      privateKeyFile: string
      privateKey?: never
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
 * then computed, signed within the manifest and written into it; the file is read back, run through the
 * verification checklist (all but the root link, the container included) and only then moved onto the
 * output. Refuses an existing output (`output-exists`) and everything `planSignature` refuses; a failure
 * leaves nothing behind. Archive errors of the input are thrown as they are (`ArchiveError`).
 */
export async function signArtifact(options: SignArtifactOptions): Promise<SignArtifactResult> {
  const {signal} = options
  throwIfCancelled(signal)
  const credentials = await readCredentials(options)
  const limits = resolveLimits(options.limits)
  const now = options.now ?? new Date()
  await checkOutputFree(options.output, {advice: 'sign never overwrites; choose another --output or remove it first'})
  return withOutputs(async (outputs) => {
    await outputs.prepare(options.output)
    const target = path.resolve(options.output)
    const temporary = temporarySibling(target)
    const plan = await withArtifact(options.artifact, {limits, signal}, async (artifact) => {
      const planned = planSignature(await artifact.contents(), {...credentials, now})
      await writeSigned(temporary, artifact.archive, planned, {limits, signal})
      return planned
    })
    // Removed unless the signed file is moved onto the output.
    outputs.adopt(temporary)
    const signed = await sealContainer(temporary, plan, {limits, signal})
    // sign verifies what it wrote, from the file, as a verifier will read it.
    const check = await readArtifactContents(temporary, {limits, signal}, async (contents) => runChecklist(contents, signerContext(now)))
    // The last abort point: once placed, the signed artifact is the result.
    throwIfCancelled(signal)
    if ('code' in check) throw errorFrom(check)
    await placeFile(temporary, target, false)
    return {output: target, certificateId: signed.certificateId, signedAt: signed.signedAt, artifactDigest: signed.artifactDigest, containerDigest: `sha256:${signed.containerDigest}`}
  })
}

/**
 * The signing key and certificates of `options`, each read from its files when given as files;
 * `invalid-signer` when one is given in neither form or in both, or an issuer file without the other.
 */
async function readCredentials(options: SignArtifactOptions): Promise<Omit<SigningCredentials, 'now'>> {
  const {privateKey, privateKeyFile, certificate, certificateFile, certificateSignatureFile, issuer, issuerCertificateFile, issuerSignatureFile} = options
  const key = oneForm('the private key', privateKey, [privateKeyFile])
  const signing = oneForm('the certificate', certificate, [certificateFile, certificateSignatureFile])
  const issuing = oneForm('the issuer certificate', issuer, [issuerCertificateFile, issuerSignatureFile])
  if (key === null) throw new SigningError('invalid-signer', 'Give the private key (privateKey) or its file (privateKeyFile).')
  if (signing === null) throw new SigningError('invalid-signer', 'Give the certificate (certificate) or its two files (certificateFile, certificateSignatureFile).')
  return {
    privateKey: 'value' in key ? key.value : await readPrivateKeyFile(key.files[0] as string),
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
 * Computes the container digest of the archive written with the placeholder manifest (the ranges it counts
 * as zero bytes found as a verifier finds them), signs the manifest that carries it, and writes the real
 * hex digits, signature value and manifest CRC-32 over the placeholders; the file is flushed to disk.
 */
async function sealContainer(file: string, plan: SignaturePlan, {limits, signal}: {limits: ArchiveLimits; signal: AbortSignal | undefined}): Promise<SignedContents & {containerDigest: string}> {
  const placeholder = placeholderManifest(plan)
  const claim = containerClaim(placeholder) as ContainerClaim
  // Opened as a verifier opens it: the container evidence is computed with the ranges a verifier finds.
  const {location, containerDigest} = await withArtifact(file, {limits, signal}, async (artifact) => {
    const evidence = await (artifact.manifest as ManifestRead).container
    if (evidence === undefined || evidence.sha256 === null) throw new Error('The archive written for signing has no container digest to sign.')
    return {location: artifact.archive.locate(artifact.archive.get(manifestEntryName) as ArchiveEntry), containerDigest: evidence.sha256}
  })
  throwIfCancelled(signal)
  const signed = signManifest(plan, containerDigest)
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
  return {...signed, containerDigest}
}
