import {withOutputs} from '../fs/output.js'
import {readInputFile} from '../fs/input.js'
import path from 'node:path'
import {base64Line, decodeBase64Line} from './base64.js'
import {
  type Certificate,
  type CertificateFiles,
  certificateOfStatement,
  certificatePublicKey,
  type CertificateSubject,
  certificateToIssue,
  type CertificateToIssueOptions,
  type KeyUsage,
  maxCertificateBytes,
  parseCertificate,
} from './certificate.js'
import {signingFileNames} from '../model/signing-files.js'
import {publicKeyOf, signatureLength} from './ed25519.js'
import {SigningError} from './errors.js'
import {readPublicKeyFile} from './keys.js'
import {type KeySource, preparedStatementOf, readSigningKey, type SigningKey, signWithKey} from './signing-key.js'
import {parseTimestamp} from './timestamp.js'

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
  /** Default: the issue time (now, or a prepared statement's). */
  notBefore?: Date | string
  notAfter: Date | string
  /** The root's private key file (a root-issued certificate). */
  rootKeyFile?: string
  /** The issuer's private key file (a certificate issued by an issuer); needs the two files below. */
  issuerKeyFile?: string
  /** The issuer certificate, `issuer.json`. */
  issuerCertificateFile?: string
  /** The issuer certificate's signature, `issuer.sig`. */
  issuerSignatureFile?: string
  /**
   * The root's or the issuer's key held elsewhere, instead of `rootKeyFile` or `issuerKeyFile`: a signing
   * command, or a prepared statement and its signature (docs/signing.md, "Signing with a key in a vault").
   */
  key?: KeySource
  /** The root's public key file: needed with `key` for a root-issued certificate, to check its signature. */
  rootPublicKeyFile?: string
  /** Working directory of a signing command. */
  cwd?: string
  /** Required for a root-issued certificate; with an issuer it defaults to the issuer's. */
  rootKeyId?: string
  /** Directory to write into (created if needed). */
  output: string
  now?: Date
}

/** Who signs: the root (its key file or key source) or an issuer (its key and its certificate files); `invalid-signer` for anything else. */
function signerFiles(options: Omit<IssueCertificateFilesOptions, 'output'>): {key: KeySource | null; issuer: {certificateFile: string; signatureFile: string} | null} {
  const {rootKeyFile, issuerKeyFile, issuerCertificateFile, issuerSignatureFile, key} = options
  const keys = [rootKeyFile, issuerKeyFile, key].filter((given) => given !== undefined).length
  if (keys > 1) throw new SigningError('invalid-signer', 'Give one key: the root key, the issuer key, or a key held elsewhere (a signing command or a prepared statement).')
  const keyFile = rootKeyFile ?? issuerKeyFile
  const keySource: KeySource | null = key ?? (keyFile === undefined ? null : {privateKeyFile: keyFile})
  const issuerFiles = issuerCertificateFile !== undefined || issuerSignatureFile !== undefined
  if (rootKeyFile !== undefined && (issuerFiles || issuerKeyFile !== undefined)) throw new SigningError('invalid-signer', 'Give the root key or the issuer key, certificate and signature, not both.')
  if (issuerKeyFile !== undefined || issuerFiles) {
    if (issuerCertificateFile === undefined || issuerSignatureFile === undefined) {
      throw new SigningError('invalid-signer', 'The issuer needs all three: its key, its certificate (issuer.json) and its signature (issuer.sig).')
    }
    return {key: keySource, issuer: {certificateFile: issuerCertificateFile, signatureFile: issuerSignatureFile}}
  }
  return {key: keySource, issuer: null}
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
 * so the directory holds the whole chain `sign` needs. The signature, whoever makes it (a key file, a
 * signing command, a prepared statement), is checked against the signer's public key before anything is
 * written (`signature-invalid`). Never overwrites (`output-exists`).
 */
export async function issueCertificateFiles(options: IssueCertificateFilesOptions): Promise<IssuedCertificateFiles> {
  const signer = signerFiles(options)
  if (signer.key === null) throw new SigningError('invalid-signer', 'Give the root key, or the issuer key, certificate and signature.')
  const key = await readSigningKey(signer.key, {cwd: options.cwd})
  const issuer = signer.issuer === null ? undefined : await readCertificateFiles(signer.issuer.certificateFile, signer.issuer.signatureFile)
  const signerPublicKey = await signerPublicKeyOf(key, issuer, options.rootPublicKeyFile)
  const prepared = preparedStatementOf(key)
  const fixed = prepared === null ? null : certificateOfStatement(prepared)
  if (prepared !== null && fixed === null) throw new SigningError('statement-malformed', 'The prepared statement is not a certificate statement (the bytes `cert issue --prepare` writes).')
  const now = fixed === null ? (options.now ?? new Date()) : new Date(parseTimestamp(fixed.issuedAt) as number)
  const toIssue = certificateToIssue({...(await certificateFields(options, now)), issuerCertificate: issuer?.json, now, certificateId: fixed?.certificateId, signerPublicKey})
  const signature = await signWithKey(key, toIssue.statement, signerPublicKey, `certificate ${toIssue.certificate.certificateId}`, () => {
    return `The prepared statement is another certificate than this command issues (${fixed?.certificateId}: subject, key, usage, validity, root or issuer differ). Prepare it again with the same flags.`
  })
  const isIssuer = options.keyUsage === 'issuer'
  const contents: [string, Uint8Array | string][] = [
    [isIssuer ? signingFileNames.issuerJson : signingFileNames.certificateJson, toIssue.certificateJson],
    [isIssuer ? signingFileNames.issuerSig : signingFileNames.certificateSig, base64Line(signature)],
  ]
  if (issuer !== undefined) {
    contents.push([signingFileNames.issuerJson, issuer.json], [signingFileNames.issuerSig, base64Line(Buffer.from(issuer.sig, 'base64'))])
  }
  const written = await writeNewFiles(options.output, contents)
  return {
    certificate: toIssue.certificate,
    certificateFile: written[0] as string,
    signatureFile: written[1] as string,
    issuerFiles: issuer === undefined ? null : {certificateFile: written[2] as string, signatureFile: written[3] as string},
  }
}

/** The public key the signature of a certificate must verify with: the issuer certificate's, the root's file, or the private key's own. */
async function signerPublicKeyOf(key: SigningKey, issuer: CertificateFiles | undefined, rootPublicKeyFile: string | undefined): Promise<Uint8Array> {
  if (issuer !== undefined) return certificatePublicKey(parseCertificate(issuer.json))
  if (rootPublicKeyFile !== undefined) return readPublicKeyFile(rootPublicKeyFile)
  if ('privateKey' in key) return publicKeyOf(key.privateKey)
  throw new SigningError('invalid-signer', "A root key held elsewhere needs the root's public key file (--root-public-key), to check its signature before anything is written.")
}

/** The certificate's fields from the options and the subject's public key file; the validity starts at `now` unless the options say otherwise. */
async function certificateFields(options: Omit<IssueCertificateFilesOptions, 'output'>, now: Date): Promise<Omit<CertificateToIssueOptions, 'now' | 'certificateId' | 'signerPublicKey'>> {
  const {subject, keyUsage, notAfter, rootKeyId} = options
  return {subject, subjectPublicKey: await readPublicKeyFile(options.subjectPublicKeyFile), keyUsage, notBefore: options.notBefore ?? now, notAfter, rootKeyId}
}

/** Creates each file of `contents` in `dir` (created if needed), never overwriting; all or none. */
async function writeNewFiles(dir: string, contents: readonly [string, Uint8Array | string][]): Promise<string[]> {
  return withOutputs(async (outputs) => {
    await outputs.folder(dir)
    const files: string[] = []
    for (const [name, content] of contents) {
      const file = path.join(dir, name)
      await outputs.newFile(file, content)
      files.push(file)
    }
    return files
  })
}

/** What `prepareCertificateFiles` needs: the certificate's flags without a key, and where to write the statement. */
export interface PrepareCertificateFilesOptions extends Omit<IssueCertificateFilesOptions, 'rootKeyFile' | 'issuerKeyFile' | 'key' | 'rootPublicKeyFile' | 'cwd' | 'output'> {
  /** Where to write the statement; never overwritten. */
  output: string
}

/**
 * Writes the statement the root's or the issuer's key must sign to issue this certificate, and nothing
 * else: `svc-plugin-certificate/1\n` then the certificate's JSON, with its id and issue time chosen now.
 * `issueCertificateFiles` with `key: {preparedFile, signatureFile}` and the same options completes it.
 */
export async function prepareCertificateFiles(options: PrepareCertificateFilesOptions): Promise<{output: string; certificate: Certificate}> {
  const signer = signerFiles(options)
  const issuer = signer.issuer === null ? undefined : await readCertificateFiles(signer.issuer.certificateFile, signer.issuer.signatureFile)
  const now = options.now ?? new Date()
  const toIssue = certificateToIssue({...(await certificateFields(options, now)), issuerCertificate: issuer?.json, now})
  await withOutputs(async (outputs) => {
    await outputs.folderOf(options.output)
    await outputs.newFile(options.output, toIssue.statement)
  })
  return {output: options.output, certificate: toIssue.certificate}
}
