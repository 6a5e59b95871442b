import {withOutputs} from '../fs/output.js'
import {readInputFile} from '../fs/input.js'
import path from 'node:path'
import {base64Line, decodeBase64Line} from './base64.js'
import {type Certificate, type CertificateFiles, type CertificateSubject, issueCertificate, type KeyUsage, maxCertificateBytes} from './certificate.js'
import {signingFileNames} from '../model/signing-files.js'
import {signatureLength} from './ed25519.js'
import {SigningError} from './errors.js'
import {readPrivateKeyFile, readPublicKeyFile} from './keys.js'

/** Reads a certificate and its signature file (`unreadable` when a file is missing or the signature is not base64 of 64 bytes). */
export async function readCertificateFiles(jsonFile: string, sigFile: string): Promise<CertificateFiles> {
  const json = await readInput(jsonFile, 'certificate')
  const sigBytes = await readInput(sigFile, 'certificate signature')
  const signature = decodeBase64Line(sigBytes, signatureLength)
  if (signature === null) throw new SigningError('certificate-unreadable', `${sigFile} is not a certificate signature: one line of base64 of ${signatureLength} bytes.`, {details: {path: sigFile}})
  return {json, sig: Buffer.from(signature).toString('base64')}
}

async function readInput(file: string, what: string): Promise<Uint8Array> {
  try {
    // One byte past the largest certificate: enough for the certificate reader to refuse a larger file.
    return new Uint8Array((await readInputFile(file, {limit: maxCertificateBytes + 1})).bytes)
  } catch (error) {
    throw new SigningError('certificate-unreadable', `Cannot read the ${what} file ${file}: ${(error as Error).message}`, {cause: error, details: {path: file}})
  }
}

/** What `issueCertificateFiles` needs: key and certificate files instead of bytes. */
export interface IssueCertificateFilesOptions {
  subject: CertificateSubject
  subjectPublicKeyFile: string
  keyUsage: KeyUsage
  notBefore: Date | string
  notAfter: Date | string
  /** The root's private key file (a root-issued certificate). */
  rootKeyFile?: string
  /** The issuer's private key file (a certificate issued by an issuer); needs the two files below. */
  issuerKeyFile?: string
  /** The issuer certificate, `issuer.json`. */
  issuerCertificateFile?: string
  /** The issuer certificate's signature, `issuer.sig`. */
  issuerSignatureFile?: string
  /** Required with `rootKeyFile`; with an issuer it defaults to the issuer's. */
  rootKeyId?: string
  /** Directory to write into (created if needed). */
  output: string
  now?: Date
}

/** The signer's files: the root key alone, or the issuer's key, certificate and signature together (`invalid-signer` otherwise). */
function signerFiles(options: IssueCertificateFilesOptions): {keyFile: string; issuer: {certificateFile: string; signatureFile: string} | null} {
  const {rootKeyFile, issuerKeyFile, issuerCertificateFile, issuerSignatureFile} = options
  const anyIssuer = issuerKeyFile !== undefined || issuerCertificateFile !== undefined || issuerSignatureFile !== undefined
  if (rootKeyFile !== undefined && !anyIssuer) return {keyFile: rootKeyFile, issuer: null}
  if (rootKeyFile === undefined && issuerKeyFile !== undefined && issuerCertificateFile !== undefined && issuerSignatureFile !== undefined) {
    return {keyFile: issuerKeyFile, issuer: {certificateFile: issuerCertificateFile, signatureFile: issuerSignatureFile}}
  }
  throw new SigningError(
    'invalid-signer',
    rootKeyFile !== undefined && anyIssuer
      ? 'Give the root key or the issuer key, certificate and signature, not both.'
      : anyIssuer
        ? 'The issuer needs all three: its private key, its certificate (issuer.json) and its signature (issuer.sig).'
        : 'Give the root key, or the issuer key, certificate and signature.',
  )
}

/** What `issueCertificateFiles` wrote. */
export interface IssuedCertificateFiles {
  certificate: Certificate
  /** `certificate.json`, or `issuer.json` for an issuer certificate. */
  certificateFile: string
  /** `certificate.sig`, or `issuer.sig`. */
  signatureFile: string
  /** With an issuer: the copies of issuer.json and issuer.sig written beside the certificate. */
  issuerFiles: {certificateFile: string; signatureFile: string} | null
}

/**
 * Issues a certificate from key files and writes it into `output` under the names it carries in an
 * artifact: `certificate.json` + `certificate.sig`, or `issuer.json` + `issuer.sig` for key usage
 * `issuer`. A certificate issued by an issuer gets copies of `issuer.json` and `issuer.sig` beside it,
 * so the directory holds the whole chain `sign` needs. Never overwrites (`output-exists`).
 */
export async function issueCertificateFiles(options: IssueCertificateFilesOptions): Promise<IssuedCertificateFiles> {
  const signer = signerFiles(options)
  const subjectPublicKey = await readPublicKeyFile(options.subjectPublicKeyFile)
  const signerPrivateKey = await readPrivateKeyFile(signer.keyFile)
  const issuer = signer.issuer === null ? undefined : await readCertificateFiles(signer.issuer.certificateFile, signer.issuer.signatureFile)
  const issued = issueCertificate({
    subject: options.subject,
    subjectPublicKey,
    keyUsage: options.keyUsage,
    notBefore: options.notBefore,
    notAfter: options.notAfter,
    signerPrivateKey,
    rootKeyId: options.rootKeyId,
    issuerCertificate: issuer?.json,
    now: options.now,
  })
  const isIssuer = options.keyUsage === 'issuer'
  const contents: [string, Uint8Array | string][] = [
    [isIssuer ? signingFileNames.issuerJson : signingFileNames.certificateJson, issued.certificateJson],
    [isIssuer ? signingFileNames.issuerSig : signingFileNames.certificateSig, base64Line(Buffer.from(issued.certificateSig, 'base64'))],
  ]
  if (issuer !== undefined) {
    contents.push([signingFileNames.issuerJson, issuer.json], [signingFileNames.issuerSig, base64Line(Buffer.from(issuer.sig, 'base64'))])
  }
  const written = await withOutputs(async (outputs) => {
    await outputs.folder(options.output)
    const files: string[] = []
    for (const [name, content] of contents) {
      const file = path.join(options.output, name)
      await outputs.newFile(file, content)
      files.push(file)
    }
    return files
  })
  return {
    certificate: issued.certificate,
    certificateFile: written[0] as string,
    signatureFile: written[1] as string,
    issuerFiles: issuer === undefined ? null : {certificateFile: written[2] as string, signatureFile: written[3] as string},
  }
}
