import {readInputFile} from '../fs/input.js'
import type {ArchiveLimits} from '../archive/types.js'
import {artifactDigestOf} from '../artifact/artifact-digest.js'
import {maxCertificateBytes, parseCertificate} from '../pki/certificate.js'
import {SigningError} from '../pki/errors.js'
import {readPublicKeyFile} from '../pki/keys.js'
import {RevocationError} from './errors.js'
import {publicKeyFingerprint, type RevocationKind} from './list.js'
import {formatMiB} from '../quantities.js'

/** What to revoke, exactly one of these (`invalid-revocation` otherwise). */
export interface RevocationTargetOptions {
  /** A certificate.json (or issuer.json): its certificateId is revoked. */
  certificateFile?: string
  /** A certificate id, `cert_` + 32 lowercase hex. */
  certificateId?: string
  /** A public key file (one line of base64 of 32 bytes): its fingerprint is revoked. */
  publicKeyFile?: string
  /** A signed `.svcPlugin`: its canonical artifact digest is revoked. */
  artifactFile?: string
  /** A canonical artifact digest, `sha256:` + 64 lowercase hex. */
  artifactDigest?: string
}

/** A revocation target: the `kind` and `value` of a list entry. */
export interface RevocationTarget {
  kind: RevocationKind
  value: string
}

/**
 * Resolves the one target given into a list entry's `kind` and `value`: a certificate file to its id, a
 * public key file to its fingerprint, a signed artifact to its canonical digest. Formats are checked when
 * the entry is made (`invalid-revocation`); unreadable files throw the reading layer's error.
 */
export async function resolveRevocationTarget(options: RevocationTargetOptions, settings: {limits?: Partial<ArchiveLimits>} = {}): Promise<RevocationTarget> {
  const given = (['certificateFile', 'certificateId', 'publicKeyFile', 'artifactFile', 'artifactDigest'] as const).filter((key) => options[key] !== undefined)
  if (given.length !== 1) {
    throw new RevocationError(
      'invalid-revocation',
      given.length === 0 ? 'Name what to revoke: a certificate, a certificate id, a public key, an artifact or an artifact digest.' : `Name one thing to revoke at a time; got ${given.join(' and ')}.`,
      {details: {given}},
    )
  }
  if (options.certificateId !== undefined) return {kind: 'certificate', value: options.certificateId}
  if (options.artifactDigest !== undefined) return {kind: 'artifact', value: options.artifactDigest}
  if (options.publicKeyFile !== undefined) return {kind: 'key', value: publicKeyFingerprint(await readPublicKeyFile(options.publicKeyFile))}
  if (options.certificateFile !== undefined) return {kind: 'certificate', value: (await readCertificateFile(options.certificateFile)).certificateId}
  return {kind: 'artifact', value: await artifactRevocationDigest(options.artifactFile as string, settings)}
}

/**
 * The canonical artifact digest of a signed `.svcPlugin` (`sha256:` + hex SHA-256 of P), the
 * value an `artifact` entry names. Archive errors are thrown as they are; an unsigned artifact or a
 * signature block that is not the exact trailer is `invalid-revocation` (P is only defined for signed ones).
 */
export async function artifactRevocationDigest(file: string, settings: {limits?: Partial<ArchiveLimits>} = {}): Promise<string> {
  let digest
  try {
    digest = await artifactDigestOf(file, settings)
  } catch (error) {
    if (error instanceof SigningError) throw notSigned(file, error.message)
    throw error
  }
  if (!digest.signed) throw notSigned(file, 'it is not signed')
  return `sha256:${digest.sha256}`
}

async function readCertificateFile(file: string) {
  let bytes: Buffer
  try {
    bytes = (await readInputFile(file, {limit: maxCertificateBytes + 1})).bytes
  } catch (error) {
    throw new SigningError('certificate-unreadable', `Cannot read the certificate file ${file}: ${(error as Error).message}`, {cause: error, details: {path: file}})
  }
  if (bytes.length > maxCertificateBytes) throw new SigningError('certificate-malformed', `${file} is ${formatMiB(bytes.length)}; a certificate is at most ${formatMiB(maxCertificateBytes)}.`)
  return parseCertificate(bytes)
}

function notSigned(file: string, why: string): RevocationError {
  return new RevocationError('invalid-revocation', `${file} has no canonical artifact digest to revoke: ${why.replace(/\.$/, '')}.`, {details: {path: file}})
}
