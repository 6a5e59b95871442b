import {decodeBase64, decodeBase64Line} from './base64.js'
import {type Certificate, certificateMessage, checkCertificate, maxCertificateBytes, readCertificateObject, validityInside} from './certificate.js'
import {keyLength, verifyStrict} from './ed25519.js'
import {type TrustStore, trustedRootKey} from './trust.js'
import {formatMiB} from '../quantities.js'

/** Every code the chain check can give, in the order its steps try them. */
export const chainProblemCodes = [
  'certificate-unreadable',
  'certificate-untrusted',
  'certificate-malformed',
  'certificate-wrong-purpose',
  'certificate-issuer-missing',
  'certificate-issuer-mismatch',
  'certificate-outlives-issuer',
] as const
/** One of {@link chainProblemCodes}. */
export type ChainProblemCode = (typeof chainProblemCodes)[number]

/** Why a certificate chain does not hold. */
export interface ChainProblem {
  code: ChainProblemCode
  message: string
}

function problem(code: ChainProblemCode, message: string): ChainProblem {
  return {code, message}
}

/** The certificate files an artifact carries at its root; null when the entry is absent. */
export interface ChainFiles {
  certificateJson: Uint8Array | null
  certificateSig: Uint8Array | null
  issuerJson: Uint8Array | null
  issuerSig: Uint8Array | null
}

/** A chain that passed every check: the package certificate and, when there is one, its issuer. */
export interface VerifiedChain {
  certificate: Certificate
  issuer: Certificate | null
}


/** A certificate file that could be read: its exact bytes, its JSON object and its signature bytes. */
interface CertificateFile {
  bytes: Uint8Array
  value: Record<string, unknown>
  sig: Uint8Array
}

/**
 * Checks a certificate chain in this order, first failure decides:
 * 1. `certificate-unreadable`: certificate.json or certificate.sig absent; a certificate file (or, when
 *    both are present, an issuer file) that is not a strict JSON object of at most 64 KiB or a `.sig` that
 *    is not canonical base64 text. A lone issuer file is left to steps 5 and 6.
 * 2. `certificate-untrusted`: the root-signed certificate (issuer.json when certificate.json names an
 *    `issuer`, else certificate.json) names a root the trust store lacks or its root signature fails;
 *    with an issuer, certificate.sig must verify under the issuer's key.
 * 3. `certificate-malformed`: a chain certificate breaks the certificate format; an issuer certificate is
 *    itself issued (schemaVersion 2).
 * 4. `certificate-wrong-purpose`: the certificate's keyUsage is not ["package"], the issuer's not ["issuer"].
 * 5. `certificate-issuer-missing`: certificate.json names an issuer, issuer.json or issuer.sig is absent.
 * 6. `certificate-issuer-mismatch`: issuer files without an `issuer` member, another certificate id, or
 *    another rootKeyId than the certificate's.
 * 7. `certificate-outlives-issuer`: the certificate's validity is not inside the issuer's.
 * With `trust` null (the signer re-checking its own output) the root look-up and root signature are skipped.
 */
export function checkChain(files: ChainFiles, trust: TrustStore | null): VerifiedChain | ChainProblem {
  // 1. Readable.
  if (files.certificateJson === null) return problem('certificate-unreadable', 'The artifact has no certificate.json.')
  if (files.certificateSig === null) return problem('certificate-unreadable', 'The artifact has no certificate.sig.')
  const leaf = readCertificateFile(files.certificateJson, files.certificateSig, 'certificate')
  if ('code' in leaf) return leaf
  // A lone issuer file is not read: the issuer-link steps judge it once the certificate was read.
  let issuerFile: CertificateFile | null = null
  if (files.issuerJson !== null && files.issuerSig !== null) {
    const read = readCertificateFile(files.issuerJson, files.issuerSig, 'issuer')
    if ('code' in read) return read
    issuerFile = read
  }
  const declaresIssuer = Object.hasOwn(leaf.value, 'issuer')
  const chainIssuer = declaresIssuer ? issuerFile : null

  // 2. Trusted: every signature up to a root of the trust store.
  const trusted = checkSignatures(leaf, chainIssuer, declaresIssuer, trust)
  if (trusted !== null) return trusted

  // 3. Well-formed.
  const leafProblem = checkCertificate(leaf.value)
  if (leafProblem !== null) return problem('certificate-malformed', `certificate.json is malformed: ${leafProblem}.`)
  const certificate = leaf.value as unknown as Certificate
  let issuer: Certificate | null = null
  if (chainIssuer !== null) {
    const issuerProblem = checkCertificate(chainIssuer.value) ?? (chainIssuer.value.schemaVersion === 1 ? null : 'an issuer certificate is signed by the root (schemaVersion 1, no issuer)')
    if (issuerProblem !== null) return problem('certificate-malformed', `issuer.json is malformed: ${issuerProblem}.`)
    issuer = chainIssuer.value as unknown as Certificate
  }

  // 4. Purpose: package certificates sign artifacts; issuer certificates only issue.
  if (certificate.keyUsage[0] !== 'package') {
    return problem('certificate-wrong-purpose', `The certificate ${certificate.certificateId} has key usage "${certificate.keyUsage[0]}"; artifacts are signed with a "package" certificate.`)
  }
  if (issuer !== null && issuer.keyUsage[0] !== 'issuer') {
    return problem('certificate-wrong-purpose', `The issuer certificate ${issuer.certificateId} has key usage "${issuer.keyUsage[0]}"; only an "issuer" certificate issues certificates.`)
  }

  // 5–7. The issuer link.
  if (certificate.issuer !== undefined && issuer === null) {
    return problem('certificate-issuer-missing', `The certificate is issued by ${certificate.issuer}, but the artifact lacks ${files.issuerJson === null ? 'issuer.json' : 'issuer.sig'}.`)
  }
  if (certificate.issuer === undefined && (files.issuerJson !== null || files.issuerSig !== null)) {
    return problem('certificate-issuer-mismatch', 'The artifact carries issuer files, but its certificate names no issuer.')
  }
  if (issuer !== null) {
    if (issuer.certificateId !== certificate.issuer) {
      return problem('certificate-issuer-mismatch', `The certificate names the issuer ${certificate.issuer}, but issuer.json is ${issuer.certificateId}.`)
    }
    if (issuer.rootKeyId !== certificate.rootKeyId) {
      return problem('certificate-issuer-mismatch', `The certificate names the root ${certificate.rootKeyId}, its issuer ${issuer.rootKeyId}.`)
    }
    if (!validityInside(certificate, issuer)) {
      return problem(
        'certificate-outlives-issuer',
        `The certificate's validity ${certificate.notBefore} – ${certificate.notAfter} is not inside its issuer's ${issuer.notBefore} – ${issuer.notAfter}.`,
      )
    }
  }
  return {certificate, issuer}
}

function readCertificateFile(json: Uint8Array, sigText: Uint8Array, name: 'certificate' | 'issuer'): CertificateFile | ChainProblem {
  const value = readCertificateObject(json)
  if (value === null) return problem('certificate-unreadable', `${name}.json is not a strict JSON object of at most ${formatMiB(maxCertificateBytes)}.`)
  const sig = decodeBase64Line(sigText)
  if (sig === null) return problem('certificate-unreadable', `${name}.sig is not base64 text (one line of canonical, padded base64).`)
  return {bytes: json, value, sig}
}

function checkSignatures(leaf: CertificateFile, issuer: CertificateFile | null, declaresIssuer: boolean, trust: TrustStore | null): ChainProblem | null {
  const top = declaresIssuer ? issuer : leaf
  if (trust !== null) {
    // With an issuer declared but absent, only the root id can be judged now; step 5 reports the gap.
    const rootKeyId = (top ?? leaf).value.rootKeyId
    const rootKey = typeof rootKeyId === 'string' ? trustedRootKey(trust, rootKeyId) : null
    if (rootKey === null) return problem('certificate-untrusted', `The certificate chain ends at the root ${JSON.stringify(rootKeyId)}, which the trust store does not hold.`)
    if (top !== null && !verifyStrict(top.sig, certificateMessage(top.bytes), rootKey)) {
      return problem('certificate-untrusted', `The root signature over ${top === leaf ? 'certificate.json' : 'issuer.json'} does not verify.`)
    }
  }
  if (declaresIssuer && issuer !== null) {
    const issuerKey = typeof issuer.value.publicKey === 'string' ? decodeBase64(issuer.value.publicKey, keyLength) : null
    if (issuerKey === null || !verifyStrict(leaf.sig, certificateMessage(leaf.bytes), issuerKey)) {
      return problem('certificate-untrusted', "The issuer's signature over certificate.json does not verify.")
    }
  }
  return null
}
