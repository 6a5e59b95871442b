import type {EntryDigest} from '../archive/types.js'
import type {ArtifactContents} from '../artifact/contents.js'
import {manifestRead} from '../artifact/contents.js'
import {containerDigestMember} from '../artifact/container.js'
import {computeArtifactDigest, parseSignatureMessage, sha256Hex, signatureMessage} from '../artifact/digest.js'
import {appendSignatureTrailer, readSignedManifestJson, unsignedManifestOf} from '../artifact/trailer.js'
import {checkFilesShape, compareDeclaredFiles, decidingFileProblem, declaredFilesOf} from '../manifest/declared-files.js'
import {signingEntryNames, signingFileNames} from '../model/signing-files.js'
import {base64Line, decodeBase64, encodeBase64} from '../pki/base64.js'
import {type Certificate, type CertificateFiles, certificatePublicKey, validityAt} from '../pki/certificate.js'
import {type ChainProblem, checkChain} from '../pki/chain.js'
import {publicKeyOf, sign, signatureLength} from '../pki/ed25519.js'
import {SigningError, type SigningErrorCode} from '../pki/errors.js'
import {preparedStatementOf, type SigningKey, type SigningKeyOptions, signWithKey, signingKeyOf} from '../pki/signing-key.js'
import {formatTimestamp, parseTimestamp} from '../pki/timestamp.js'
import type {VerifyProblem} from './result.js'
import {runChecklist} from './verify.js'

/**
 * What signing needs besides the artifact: the key (exactly one of `privateKey`, `signer`, `prepared`; none
 * only to prepare the statement), its certificate (and issuer) and the clock.
 */
export interface SigningCredentials extends SigningKeyOptions {
  certificate: CertificateFiles
  /** The issuer certificate, when the certificate is issued by one (schemaVersion 2). */
  issuer?: CertificateFiles
  /** The signing time (default: now), written as `signedAt` to the second; a prepared statement's own time when completing one. */
  now?: Date
}

/** What signing adds to an artifact. */
export interface SignedContents {
  /** The signed manifest.json: U (the packed bytes without trailing whitespace, `containerDigest` last when given), then the trailer. */
  manifest: Uint8Array
  /** certificate.json, certificate.sig (and issuer.json, issuer.sig), by entry name. */
  chainEntries: Map<string, Uint8Array>
  certificateId: string
  signedAt: string
  /** Hex SHA-256 of the canonical digest text P. */
  artifactDigest: string
}

/** A signature planned: every check of the signer passed, the entries it adds, the signing time. */
export interface SignaturePlan {
  /** U of the packed manifest: its bytes without trailing whitespace, ending in `}`. */
  packedUnsigned: Uint8Array
  /** certificate.json, certificate.sig (and issuer.json, issuer.sig), by entry name. */
  chainEntries: Map<string, Uint8Array>
  /** Every entry of the signed artifact but manifest.json (the payload and the chain entries), by name. */
  files: ReadonlyMap<string, EntryDigest>
  certificateId: string
  signedAt: string
  /** How the signature is made; null when only the statement is prepared. */
  key: SigningKey | null
  /** The certificate's public key: every signature is checked against it before it is used. */
  publicKey: Uint8Array
  now: Date
}

/** The statement an artifact signature signs (docs/signing.md §7), and the unsigned manifest and digest it was built from. */
export interface ArtifactStatement {
  /** U: the packed U, with `containerDigest` as its last member when there is one. */
  unsigned: Uint8Array
  /** Hex SHA-256 of the canonical digest text P. */
  artifactDigest: string
  /** The exact bytes the key signs. */
  message: Uint8Array
}

/**
 * Signs an artifact's contents in memory (docs/signing.md), without a container digest: {@link planSignature},
 * then {@link signManifest}. `signArtifact` signs a file and its container.
 */
export function signContents(contents: ArtifactContents, credentials: SigningCredentials & {privateKey: Uint8Array}): SignedContents {
  const plan = planSignature(contents, credentials)
  const statement = artifactStatement(plan, null)
  return sealManifest(plan, statement, sign(statement.message, credentials.privateKey))
}

/**
 * Makes every check of the signer (docs/signing.md): refuses a manifest that is missing
 * (`manifest-missing`) or not strict JSON (`manifest-malformed`), a signed artifact (`already-signed`), a
 * manifest that already has `containerDigest` (`manifest-malformed`: only the signer writes it), a
 * `files[]` that does not list exactly the payload (`file-missing`, `file-size-mismatch`,
 * `file-digest-mismatch`, `undeclared-file`: the verifier's codes, since a verifier would refuse the same), a
 * certificate chain that does not hold together, a certificate not valid at the signing time, and a key that
 * is not the certificate's (`key-mismatch`).
 */
export function planSignature(contents: ArtifactContents, credentials: SigningCredentials): SignaturePlan {
  if (contents.manifest === null) throw new SigningError('manifest-missing', 'The artifact has no manifest.json; sign a packed artifact.')
  const manifestBytes = contents.manifest.bytes
  const manifest = readSignedManifestJson(manifestBytes, contents.manifest.document)
  if ('code' in manifest) throw new SigningError('manifest-malformed', manifest.message)
  if (manifest.signatureCount > 0) throw new SigningError('already-signed', 'The artifact is already signed; sign the packed artifact, not a signed one.')
  const carried = signingEntryNames.find((name) => contents.files.has(name))
  if (carried !== undefined) throw new SigningError('already-signed', `The artifact already carries ${carried}; sign the packed artifact, not a signed one.`)
  if (Object.hasOwn(manifest.value, containerDigestMember)) {
    throw new SigningError('manifest-malformed', `manifest.json already has a ${containerDigestMember} member; only the signer writes it (pack the plugin again without it).`)
  }
  const filesShape = checkFilesShape(manifest.value)
  if (filesShape !== null) throw new SigningError('manifest-malformed', `manifest.json cannot be checked against the artifact: ${filesShape}.`)
  const incomplete = decidingFileProblem(compareDeclaredFiles(declaredFilesOf(manifest.value), contents.files, {exhaustive: true, signed: false}))
  if (incomplete !== null) {
    throw new SigningError(incomplete.code, `A signed artifact needs a files[] that lists exactly its files (pack it again): ${incomplete.message}`, {details: {path: incomplete.path}})
  }

  const chainEntries = chainEntriesOf(credentials)
  const chain = checkChain(
    {
      certificateJson: chainEntries.get(signingFileNames.certificateJson) ?? null,
      certificateSig: chainEntries.get(signingFileNames.certificateSig) ?? null,
      issuerJson: chainEntries.get(signingFileNames.issuerJson) ?? null,
      issuerSig: chainEntries.get(signingFileNames.issuerSig) ?? null,
    },
    null,
  )
  if ('code' in chain) throw errorFrom(chain)
  const {certificate} = chain
  const key = signingKeyOf(credentials, 'the signing key')
  const now = signingTime(key, certificate.certificateId) ?? credentials.now ?? new Date()
  const signedAt = formatTimestamp(now)
  assertValidNow(certificate, signedAt)
  const publicKey = certificatePublicKey(certificate)
  if (key !== null && 'privateKey' in key) assertKeyOf(certificate, key.privateKey)
  const files = new Map(contents.files)
  for (const [name, bytes] of chainEntries) files.set(name, {size: bytes.length, sha256: `sha256:${sha256Hex(bytes)}`})
  return {packedUnsigned: unsignedManifestOf(manifestBytes), chainEntries, files, certificateId: certificate.certificateId, signedAt, key, publicKey, now}
}

/**
 * The signing time of a prepared statement being completed (`statement-malformed` when it is not an artifact
 * signature statement, `statement-mismatch` when it names another key than the certificate's), or null
 * for any other key: the clock decides.
 */
function signingTime(key: SigningKey | null, certificateId: string): Date | null {
  const statement = key === null ? null : preparedStatementOf(key)
  if (statement === null) return null
  const fields = parseSignatureMessage(statement)
  if (fields === null) throw new SigningError('statement-malformed', 'The prepared statement is not an artifact signature statement (the bytes `sign --prepare` writes).')
  if (fields.keyId !== certificateId) {
    throw new SigningError('statement-mismatch', `The prepared statement is for the key of certificate ${fields.keyId}; this certificate is ${certificateId}.`)
  }
  return new Date(parseTimestamp(fields.signedAt) as number)
}

/**
 * The statement of the planned signature: U is the packed U, with `"containerDigest":"sha256:<containerSha256>"`
 * as its last member when a container digest is given; P is built over U and the plan's files, and the
 * message of docs/signing.md §7 over P. These are the bytes `sign --prepare` writes and a vault signs.
 */
export function artifactStatement(plan: SignaturePlan, containerSha256: string | null): ArtifactStatement {
  const unsigned = containerSha256 === null ? plan.packedUnsigned : withContainerDigest(plan.packedUnsigned, containerSha256)
  const digest = computeArtifactDigest({unsignedManifest: unsigned, files: plan.files})
  const message = signatureMessage({keyId: plan.certificateId, signedAt: plan.signedAt, artifactDigestHex: digest.sha256})
  return {unsigned, artifactDigest: digest.sha256, message: new Uint8Array(Buffer.from(message, 'utf8'))}
}

/**
 * Signs the planned manifest: its statement ({@link artifactStatement}) signed with the plan's key and the
 * signature checked against the certificate's key (`signature-invalid`; a prepared statement that is not
 * this one is `statement-mismatch`), then sealed ({@link sealManifest}).
 */
export async function signManifest(plan: SignaturePlan, containerSha256: string | null): Promise<SignedContents> {
  if (plan.key === null) throw new SigningError('invalid-signer', 'Signing needs a key: a private key, a signer, or a prepared statement with its signature.')
  const statement = artifactStatement(plan, containerSha256)
  const signature = await signWithKey(plan.key, statement.message, plan.publicKey, `the artifact (certificate ${plan.certificateId})`, (prepared) => statementMismatch(prepared, statement))
  return sealManifest(plan, statement, signature)
}

/** What differs between a prepared artifact statement and the one this artifact and certificate give. */
function statementMismatch(prepared: Uint8Array, statement: ArtifactStatement): string {
  const fields = parseSignatureMessage(prepared)
  const found = fields === null ? 'other bytes' : `artifact digest sha256:${fields.artifactDigestHex}`
  return `The prepared statement signs ${found}; this artifact, signed with this certificate chain, gives sha256:${statement.artifactDigest}. Prepare the statement again from the same artifact and certificate files.`
}

/**
 * Appends the signature trailer to the statement's U; the result is checked with the verifier's checklist
 * (all but the root link, and the container, which is checked once written) before it is returned.
 */
export function sealManifest(plan: SignaturePlan, statement: ArtifactStatement, signature: Uint8Array): SignedContents {
  const value = encodeBase64(signature)
  const signed = appendSignatureTrailer(statement.unsigned, {algorithm: 'ed25519', keyId: plan.certificateId, value, signedAt: plan.signedAt})
  const check = runChecklist({manifest: manifestRead(signed), files: plan.files, signingFiles: plan.chainEntries}, {trust: null, now: plan.now, revocations: null, requireContainerSignature: false})
  if ('code' in check) throw errorFrom(check)
  return {manifest: signed, chainEntries: plan.chainEntries, certificateId: plan.certificateId, signedAt: plan.signedAt, artifactDigest: statement.artifactDigest}
}

/**
 * The signed manifest as it is written before its container digest is known: the same bytes as the final
 * one, but for the 64 hex digits (all `0`) and the signature value (base64 of 64 zero bytes), the two
 * ranges the container digest counts as zero bytes.
 */
export function placeholderManifest(plan: SignaturePlan): Uint8Array {
  const unsigned = withContainerDigest(plan.packedUnsigned, '0'.repeat(64))
  return appendSignatureTrailer(unsigned, {algorithm: 'ed25519', keyId: plan.certificateId, value: encodeBase64(new Uint8Array(signatureLength)), signedAt: plan.signedAt})
}

/** U with `"containerDigest":"sha256:<hex>"` added as its last member (U ends in `}`, the object has members). */
function withContainerDigest(unsigned: Uint8Array, sha256: string): Uint8Array {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new RangeError(`A container digest is 64 lowercase hex digits, not ${JSON.stringify(sha256)}.`)
  return new Uint8Array(Buffer.concat([unsigned.subarray(0, -1), Buffer.from(`,"${containerDigestMember}":"sha256:${sha256}"}`, 'utf8')]))
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
  add(credentials.certificate, signingFileNames.certificateJson, signingFileNames.certificateSig, 'certificate')
  if (credentials.issuer !== undefined) add(credentials.issuer, signingFileNames.issuerJson, signingFileNames.issuerSig, 'issuer certificate')
  return entries
}

/** Throws `key-mismatch` unless `privateKey` is the key of `certificate`. */
export function assertKeyOf(certificate: Certificate, privateKey: Uint8Array): void {
  if (!Buffer.from(publicKeyOf(privateKey)).equals(Buffer.from(certificatePublicKey(certificate)))) {
    throw new SigningError('key-mismatch', `The private key is not the key of certificate ${certificate.certificateId}.`)
  }
}

/** A signer checks its certificate at the signing time, which is now (bounds inclusive): `certificate-not-yet-valid`, `certificate-expired`. */
export function assertValidNow(certificate: Certificate, signedAt: string): void {
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
export function errorFrom(failure: VerifyProblem | ChainProblem): SigningError {
  if (passThroughCodes.has(failure.code)) return new SigningError(failure.code as SigningErrorCode, failure.message)
  return new SigningError('self-verification-failed', `The signed artifact does not verify (${failure.code}): ${failure.message}`, {details: {problem: failure.code}})
}
