import {encodeBase64, base64Line, decodeBase64} from '../pki/base64.js'
import {type Certificate, type CertificateFiles, certificatePublicKey, validityAt} from '../pki/certificate.js'
import {chainEntryNames, checkChain} from '../pki/chain.js'
import {computeArtifactDigest, sha256Hex, signatureMessage} from '../artifact/digest.js'
import {publicKeyOf, sign, signatureLength} from '../pki/ed25519.js'
import {SigningError, type SigningErrorCode} from '../pki/errors.js'
import {checkDeclaredFiles, checkFilesMember, declaredFiles, isUnlistedEntry} from './files-check.js'
import type {VerifyProblem} from './result.js'
import {formatTimestamp, parseTimestamp} from '../pki/timestamp.js'
import {appendSignatureTrailer, readSignedManifestJson, unsignedManifestOf} from '../artifact/trailer.js'
import {runChecklist} from './verify.js'
import {maxManifestBytes} from '../json/strict-json.js'
import type {EntryDigest} from '../archive/types.js'

/** What signing needs besides the artifact: the key, its certificate (and issuer) and the clock. */
export interface SigningCredentials {
  /** The 32-byte private seed of the certificate's key. */
  privateKey: Uint8Array
  certificate: CertificateFiles
  /** The issuer certificate, when the certificate is issued by one (schemaVersion 2). */
  issuer?: CertificateFiles
  /** The signing time (default: now), written as `signedAt` to the second. */
  now?: Date
}

/** An unsigned artifact's contents, as `signContents` needs them. */
export interface UnsignedContents {
  /** The packed manifest.json bytes. */
  manifest: Uint8Array
  /** Size and SHA-256 of every entry except manifest.json. */
  payload: ReadonlyMap<string, Pick<EntryDigest, 'size' | 'sha256'>>
}

/** What signing adds to an artifact. */
export interface SignedContents {
  /** The signed manifest.json: the packed bytes, trailing whitespace and final `}` replaced by the trailer. */
  manifest: Uint8Array
  /** certificate.json, certificate.sig (and issuer.json, issuer.sig), by entry name. */
  chainEntries: Map<string, Uint8Array>
  certificateId: string
  signedAt: string
  /** Hex SHA-256 of the canonical digest text P. */
  artifactDigest: string
}

/**
 * Signs an artifact's contents in memory (DESIGN §7.2, the `sign` rules of §7.4): refuses a signed
 * artifact (`already-signed`), an incomplete `files[]` (`files-incomplete`), a certificate chain that
 * does not hold together, a certificate not valid at the signing time, and a key that is not the
 * certificate's (`key-mismatch`); then checks its own result with the verifier's checklist (all but
 * the root link, which needs a trust store) before anything is written.
 */
export async function signContents(contents: UnsignedContents, credentials: SigningCredentials): Promise<SignedContents> {
  const manifest = readSignedManifestJson(contents.manifest)
  if ('code' in manifest) throw new SigningError('manifest-malformed', manifest.message)
  if (manifest.signatureCount > 0) throw new SigningError('already-signed', 'The artifact is already signed; sign the packed artifact, not a signed one.')
  const carried = [...contents.payload.keys()].find((name) => isUnlistedEntry(name))
  if (carried !== undefined) throw new SigningError('already-signed', `The artifact already carries ${carried}; sign the packed artifact, not a signed one.`)
  const filesShape = checkFilesMember(manifest.value)
  if (filesShape !== null) throw new SigningError('manifest-malformed', `manifest.json cannot be checked against the artifact: ${filesShape}.`)
  const incomplete = checkDeclaredFiles(declaredFiles(manifest.value), contents.payload)
  if (incomplete !== null) {
    throw new SigningError('files-incomplete', `A signed artifact needs a complete files[] (pack it again): ${incomplete.message}`, {details: {problem: incomplete.code}})
  }

  const chainEntries = chainEntriesOf(credentials)
  const chain = checkChain(
    {
      certificateJson: chainEntries.get(chainEntryNames.certificateJson) ?? null,
      certificateSig: chainEntries.get(chainEntryNames.certificateSig) ?? null,
      issuerJson: chainEntries.get(chainEntryNames.issuerJson) ?? null,
      issuerSig: chainEntries.get(chainEntryNames.issuerSig) ?? null,
    },
    null,
  )
  if ('code' in chain) throw errorFrom(chain)
  const {certificate} = chain
  const now = credentials.now ?? new Date()
  const signedAt = formatTimestamp(now)
  assertValidNow(certificate, signedAt)
  if (!Buffer.from(publicKeyOf(credentials.privateKey)).equals(Buffer.from(certificatePublicKey(certificate)))) {
    throw new SigningError('key-mismatch', `The private key is not the key of certificate ${certificate.certificateId}.`)
  }

  const files = new Map(contents.payload)
  for (const [name, bytes] of chainEntries) files.set(name, {size: bytes.length, sha256: `sha256:${sha256Hex(bytes)}`})
  const digest = computeArtifactDigest({unsignedManifest: unsignedManifestOf(contents.manifest), files})
  const message = signatureMessage({keyId: certificate.certificateId, signedAt, artifactDigestHex: digest.sha256})
  const value = encodeBase64(sign(Buffer.from(message, 'utf8'), credentials.privateKey))
  const signed = appendSignatureTrailer(contents.manifest, {algorithm: 'ed25519', keyId: certificate.certificateId, value, signedAt})

  const check = await runChecklist(
    {manifestBytes: signed, files, readFile: async (name) => chainEntries.get(name) ?? null},
    {trust: null, now, maxManifestBytes},
  )
  if ('code' in check) throw errorFrom(check)
  return {manifest: signed, chainEntries, certificateId: certificate.certificateId, signedAt, artifactDigest: digest.sha256}
}

/** The certificate files as they go into the artifact: the JSON bytes verbatim, each `.sig` as one base64 line. */
function chainEntriesOf(credentials: SigningCredentials): Map<string, Uint8Array> {
  const entries = new Map<string, Uint8Array>()
  const add = (files: CertificateFiles, json: string, sig: string, label: string): void => {
    const signature = decodeBase64(files.sig.replace(/\n$/, ''), signatureLength)
    if (signature === null) throw new SigningError('certificate-unreadable', `The ${label} signature is not base64 of ${signatureLength} bytes.`)
    entries.set(json, files.json)
    entries.set(sig, new Uint8Array(Buffer.from(base64Line(signature), 'utf8')))
  }
  add(credentials.certificate, chainEntryNames.certificateJson, chainEntryNames.certificateSig, 'certificate')
  if (credentials.issuer !== undefined) add(credentials.issuer, chainEntryNames.issuerJson, chainEntryNames.issuerSig, 'issuer certificate')
  return entries
}

/** DESIGN §7.4: `sign` checks the certificate at the current time (bounds inclusive). */
function assertValidNow(certificate: Certificate, signedAt: string): void {
  const validity = validityAt(certificate, parseTimestamp(signedAt) as number)
  if (validity === 'not-yet-valid') {
    throw new SigningError('certificate-not-yet-valid', `The certificate ${certificate.certificateId} is valid from ${certificate.notBefore}; it is now ${signedAt}.`)
  }
  if (validity === 'expired') {
    throw new SigningError('certificate-expired', `The certificate ${certificate.certificateId} expired at ${certificate.notAfter}; it is now ${signedAt}.`)
  }
}

/** Verification codes a signer reports as they are; anything else means the signer built something wrong. */
const passThroughCodes: ReadonlySet<string> = new Set<SigningErrorCode>([
  'certificate-unreadable',
  'certificate-untrusted',
  'certificate-malformed',
  'certificate-wrong-purpose',
  'certificate-issuer-missing',
  'certificate-issuer-mismatch',
  'certificate-outlives-issuer',
  'publisher-mismatch',
])

/** The signing error for a checklist problem. */
export function errorFrom(failure: VerifyProblem): SigningError {
  if (passThroughCodes.has(failure.code)) return new SigningError(failure.code as SigningErrorCode, failure.message)
  return new SigningError('self-verification-failed', `The signed artifact does not verify (${failure.code}): ${failure.message}`, {details: {problem: failure.code}})
}
