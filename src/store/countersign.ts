import {withOutputs, checkOutputFree} from '../fs/output.js'
import {decodeBase64Line, encodeBase64} from '../pki/base64.js'
import {type Certificate, type CertificateFiles, certificatePublicKey} from '../pki/certificate.js'
import {checkChain} from '../pki/chain.js'
import {signatureLength} from '../pki/ed25519.js'
import {SigningError} from '../pki/errors.js'
import {readCertificateFiles} from '../pki/certificate-files.js'
import {readPrivateKeyFile} from '../pki/keys.js'
import {type Signer, signerFromCommand, signerFromPrivateKey, signWithSigner} from '../pki/signer.js'
import {readRevocationList} from '../revocation/files.js'
import {formatTimestamp} from '../pki/timestamp.js'
import {parseTrustStore, readTrustStore, type TrustStore} from '../pki/trust.js'
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
import {StoreError} from './errors.js'
import type {UploadReport} from './report.js'
import {judgeUpload, type VerifyUploadOptions} from './verify-upload.js'

/** What `countersignUpload` needs besides the store's verification options: the registry certificate and its key. */
export interface CountersignUploadOptions extends VerifyUploadOptions {
  /** The store's `registry` certificate: its exact JSON bytes and its signature. */
  certificate: CertificateFiles
  /** The issuer certificate, when the registry certificate was issued by one. */
  issuer?: CertificateFiles
  /** The certificate's private key (32-byte seed); or `signer`, not both. */
  privateKey?: Uint8Array
  /** Where the key lives when it is not in memory (a vault, a command): see `signerFromCommand`. */
  signer?: Signer
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
  const signer = signerOf(options)
  const trust = parseTrustStore(options.trust)
  const now = options.now ?? new Date()
  const countersignedAt = formatTimestamp(now)
  const chain = registryChain(options, trust, countersignedAt)
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
  const signature = await signWithSigner(signer, countersignatureStatement(statement), certificatePublicKey(chain.certificate), 'the store countersignature')
  const bytes = renderCountersignature({...statement, signature: encodeBase64(signature), ...chain.files})
  const check = checkCountersignature(bytes, {fileSha256, artifactDigest: statement.artifactDigest.slice('sha256:'.length), publisherSignature: statement.publisherSignature}, {trust, now, revocations: []})
  if ('code' in check) throw new SigningError('self-verification-failed', `The countersignature written does not verify: ${check.message}`)
  await withOutputs((outputs) => outputs.newFile(output, bytes))
  return {output, certificateId: statement.keyId, countersignedAt, artifactSha256: fileSha256, artifactDigest: statement.artifactDigest, report}
}

/** What `countersignUploadFiles` needs: the key, certificate, trust store and revocation list as files. */
export interface CountersignUploadFilesOptions extends Omit<CountersignUploadOptions, 'trust' | 'revocations' | 'certificate' | 'issuer' | 'privateKey' | 'signer'> {
  trustFile: string
  revocationsFile?: string
  certificateFile: string
  certificateSignatureFile: string
  /** issuer.json and issuer.sig, both or neither (`invalid-signer`). */
  issuerCertificateFile?: string
  issuerSignatureFile?: string
  /** The registry certificate's private key file; or `signerCommand`, not both (`invalid-signer`). */
  privateKeyFile?: string
  /** A command that signs the statement on its standard input (see `signerFromCommand`). */
  signerCommand?: string
}

/** Reads the files, then {@link countersignUpload}. */
export async function countersignUploadFiles(artifact: string, options: CountersignUploadFilesOptions): Promise<CountersignUploadResult> {
  const {trustFile, revocationsFile, certificateFile, certificateSignatureFile, issuerCertificateFile, issuerSignatureFile, privateKeyFile, signerCommand, ...rest} = options
  if ((issuerCertificateFile === undefined) !== (issuerSignatureFile === undefined)) {
    throw new SigningError('invalid-signer', 'Give both the issuer certificate and its signature, or neither.')
  }
  if ((privateKeyFile === undefined) === (signerCommand === undefined)) {
    throw new SigningError('invalid-signer', 'Countersign with a private key file or with a signing command: give exactly one of them.')
  }
  return countersignUpload(artifact, {
    ...rest,
    trust: await readTrustStore(trustFile),
    ...(revocationsFile === undefined ? {} : {revocations: await readRevocationList(revocationsFile)}),
    certificate: await readCertificateFiles(certificateFile, certificateSignatureFile),
    ...(issuerCertificateFile === undefined ? {} : {issuer: await readCertificateFiles(issuerCertificateFile, issuerSignatureFile as string)}),
    ...(privateKeyFile === undefined ? {signer: signerFromCommand(signerCommand as string)} : {privateKey: await readPrivateKeyFile(privateKeyFile)}),
  })
}

/** The signer: the private key's or the one given, exactly one of them (`invalid-signer`). */
function signerOf(options: CountersignUploadOptions): Signer {
  if ((options.privateKey === undefined) === (options.signer === undefined)) {
    throw new SigningError('invalid-signer', 'Countersign with a private key or with a signer: give exactly one of them.')
  }
  return options.signer ?? signerFromPrivateKey(options.privateKey as Uint8Array)
}

/** The registry certificate's chain, checked as a host will check it; valid now; the private key its own. */
function registryChain(options: CountersignUploadOptions, trust: TrustStore, countersignedAt: string): {certificate: Certificate; files: Pick<Countersignature, 'certificate' | 'certificateSignature' | 'issuer'>} {
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
