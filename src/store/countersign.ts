import {withOutputs, checkOutputFree} from '../fs/output.js'
import {decodeBase64Line, encodeBase64} from '../pki/base64.js'
import {type Certificate, type CertificateFiles, certificatePublicKey} from '../pki/certificate.js'
import {checkChain} from '../pki/chain.js'
import {signatureLength} from '../pki/ed25519.js'
import {SigningError} from '../pki/errors.js'
import {type Signer, signerFromPrivateKey, signWithSigner} from '../pki/signer.js'
import {formatTimestamp} from '../pki/timestamp.js'
import type {TrustStore} from '../pki/trust.js'
import {
  checkCountersignature,
  type Countersignature,
  countersignatureChain,
  countersignatureStatement,
  type CountersignatureStatement,
  countersignatureSuffix,
  renderCountersignature,
} from '../signing/countersignature.js'
import {assertKeyOf, assertValidNow, errorFrom} from '../signing/sign.js'
import {readCertificateSources, type IssuerCertificateSource, type SigningCertificateSource} from '../signing/sign-artifact.js'
import {readKeySource, type SigningKeySource} from '../pki/signing-key.js'
import {readTrustSources} from '../signing/trust-sources.js'
import {StoreError} from './errors.js'
import type {UploadReport} from './report.js'
import {judgeUpload, type VerifyUploadOptions} from './verify-upload.js'

/**
 * The registry certificate's key: a private key or its file, a signer or a signing command (a prepared
 * statement cannot serve: the statement names the countersigning time, known only when it is made).
 */
export type CountersignKeySource = Omit<SigningKeySource, 'prepared'> & {prepared?: never}

/**
 * What `countersignUpload` needs: the store's verification options (the trust store and the revocation
 * list as values or files), the registry certificate (bytes or files), its issuer when it has one, the key
 * and where to write.
 */
export type CountersignUploadOptions = VerifyUploadOptions &
  CountersignKeySource &
  SigningCertificateSource &
  IssuerCertificateSource & {
    /** Where to write the countersignature; default `<artifact>.countersig` beside the artifact. Never overwritten. */
    output?: string
  }

/** What `countersignUpload` wrote. */
export interface CountersignUploadResult {
  /** The countersignature file. */
  output: string
  /** The registry certificate that countersigned. */
  certificateId: string
  countersignedAt: string
  /** `sha256:` + hex SHA-256 of the artifact file. */
  artifactSha256: string
  /** `sha256:` + hex SHA-256 of the canonical artifact digest P. */
  artifactDigest: string
  /** The store's verification of the upload (accepted). */
  report: UploadReport
}

/**
 * Countersigns an upload the store accepts (docs/countersignature.md), without changing a byte of it:
 * 1. the credentials: a private key or a signer, not both (`invalid-signer`); the certificate chain up to a
 *    root of `trust` with key usage `registry` (`certificate-wrong-purpose` for another usage, and the chain
 *    codes); the certificate valid now; a private key that is the certificate's (`key-mismatch`);
 * 2. the output free (`output-exists`);
 * 3. the store's verification, `verifyUpload`'s one call, with the artifact file hashed through the
 *    descriptor it is read from: an upload it does not accept is `upload-refused` (its problems in
 *    `details.problems`);
 * 4. the statement signed (a signer's signature is checked against the certificate's key:
 *    `signature-invalid`), the file rendered in its canonical form and checked as a host checks it, then
 *    created exclusively.
 */
export async function countersignUpload(artifact: string, options: CountersignUploadOptions): Promise<CountersignUploadResult> {
  const credentials = await readCredentials(options)
  const {trust} = await readTrustSources(options)
  const now = options.now ?? new Date()
  const countersignedAt = formatTimestamp(now)
  const chain = registryChain(credentials, trust, countersignedAt)
  const output = options.output ?? `${artifact}${countersignatureSuffix}`
  await checkOutputFree(output, {advice: 'a countersignature is never overwritten; choose another --output or remove it first'})
  const judged = await judgeUpload(artifact, {...options, now}, {fileDigest: true})
  const {report, verification, fileSha256} = judged
  if (!report.accepted || verification?.artifactDigest === undefined || verification.signatureValue === undefined || fileSha256 === null) {
    throw refused(artifact, report)
  }
  const statement: CountersignatureStatement = {
    keyId: chain.certificate.certificateId,
    countersignedAt,
    artifactSha256: fileSha256,
    artifactDigest: verification.artifactDigest,
    publisherSignature: verification.signatureValue,
  }
  const signature = await signWithSigner(credentials.signer, countersignatureStatement(statement), certificatePublicKey(chain.certificate), 'the store countersignature')
  const bytes = renderCountersignature({...statement, signature: encodeBase64(signature), ...chain.files})
  const check = checkCountersignature(bytes, {fileSha256, artifactDigest: statement.artifactDigest.slice('sha256:'.length), publisherSignature: statement.publisherSignature}, {trust, now, revocations: []})
  if ('code' in check) throw new SigningError('self-verification-failed', `The countersignature written does not verify: ${check.message}`)
  await withOutputs((outputs) => outputs.newFile(output, bytes))
  return {output, certificateId: statement.keyId, countersignedAt, artifactSha256: fileSha256, artifactDigest: statement.artifactDigest, report}
}

/** The registry credentials read from the forms they are given in. */
interface RegistryCredentials {
  signer: Signer
  /** The private key, when it is in memory or a file (checked against the certificate). */
  privateKey?: Uint8Array
  certificate: CertificateFiles
  issuer?: CertificateFiles
}

/**
 * The key (a private key or its file, a signer or a signing command: exactly one, `invalid-signer`) and the certificates, each
 * read from its files when given as files.
 */
async function readCredentials(options: CountersignUploadOptions): Promise<RegistryCredentials> {
  const key = await readKeySource(options, 'the registry key', options.signal)
  if (key === null || 'prepared' in key) throw new SigningError('invalid-signer', 'Countersign with a private key or its file, a signer or a signing command: give exactly one of them.')
  const {certificate, issuer} = await readCertificateSources(options)
  const signer = 'signer' in key ? key.signer : signerFromPrivateKey(key.privateKey)
  return {signer, ...('privateKey' in key ? {privateKey: key.privateKey} : {}), certificate, ...(issuer === undefined ? {} : {issuer})}
}

/** The registry certificate's chain, checked as a host will check it; valid now; the private key its own. */
function registryChain(options: RegistryCredentials, trust: TrustStore, countersignedAt: string): {certificate: Certificate; files: Pick<Countersignature, 'certificate' | 'certificateSignature' | 'issuer'>} {
  const files: Pick<Countersignature, 'certificate' | 'certificateSignature' | 'issuer'> = {
    certificate: options.certificate.json,
    certificateSignature: canonicalSignature(options.certificate.sig, 'certificate'),
    ...(options.issuer === undefined ? {} : {issuer: {certificate: options.issuer.json, signature: canonicalSignature(options.issuer.sig, 'issuer certificate')}}),
  }
  const chain = checkChain(countersignatureChain(files), trust, 'registry')
  if ('code' in chain) throw errorFrom(chain)
  assertValidNow(chain.certificate, countersignedAt)
  if (options.privateKey !== undefined) assertKeyOf(chain.certificate, options.privateKey)
  return {certificate: chain.certificate, files}
}

/** A certificate signature as the countersignature holds it: canonical base64 of 64 bytes (`certificate-unreadable` otherwise). */
function canonicalSignature(sig: string, label: string): string {
  const bytes = decodeBase64Line(new Uint8Array(Buffer.from(sig, 'latin1')), signatureLength)
  if (bytes === null) throw new SigningError('certificate-unreadable', `The ${label} signature is not base64 of ${signatureLength} bytes.`)
  return encodeBase64(bytes)
}

/** The refusal of an upload the store would not accept: every error of its report, in one sentence. */
function refused(artifact: string, report: UploadReport): StoreError {
  const errors = report.problems.filter((problem) => problem.severity === 'error')
  const listed = errors.map((problem) => `${problem.code}: ${problem.message}`).join(' ')
  return new StoreError('upload-refused', `The store does not accept ${artifact} (verdict ${report.verdict}), so it does not countersign it. ${listed}`.trim(), {
    details: {verdict: report.verdict, problems: report.problems},
  })
}
