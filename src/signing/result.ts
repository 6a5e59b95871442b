import {fileProblemCodes} from '../manifest/declared-files.js'
import {chainProblemCodes} from '../pki/chain.js'
import type {Certificate} from '../pki/certificate.js'
import type {RevocationEntry, RevocationListSummary} from '../revocation/list.js'
import type {StoreSignature} from './countersignature.js'

/**
 * The outcome of verifying a signed artifact: every code in checklist order, the
 * verdict each one means to a host, and the result object `verifyContents` / `verifyArtifact` return.
 */

/** Every verification code, in the order the checklist tries them; the first failure decides. */
export const verifyCodes = [
  'package-format-unsupported',
  'package-unreadable',
  'manifest-missing',
  'manifest-too-large',
  'manifest-malformed',
  'signature-missing',
  'signature-malformed',
  'signature-algorithm-unsupported',
  ...chainProblemCodes,
  'signature-key-id-mismatch',
  'certificate-not-yet-valid',
  'certificate-expired',
  'signed-in-future',
  ...fileProblemCodes,
  'publisher-mismatch',
  'signature-invalid',
  'container-digest-malformed',
  'container-manifest-compressed',
  'container-digest-mismatch',
  'revoked',
  'container-unsigned',
  'store-signature-missing',
  'store-signature-invalid',
] as const
/** A verification code. */
export type VerifyCode = (typeof verifyCodes)[number]

/** What a host acts on. */
export type Verdict =
  | 'Trusted'
  | 'Unsigned'
  | 'Malformed'
  | 'SignatureInvalid'
  | 'ContentMismatch'
  | 'UntrustedRoot'
  | 'WrongCertificatePurpose'
  | 'CertificateNotValidAtSignature'
  | 'Revoked'

/**
 * The verdict of each code. Malformed: the artifact, its manifest, its signature block or its
 * certificate files cannot be read as the artifact format and the signing rules define them (docs/artifact-format.md, docs/signing.md) (an unsupported algorithm
 * included: nothing can be checked). UntrustedRoot: no chain to a trusted root (unknown root, bad
 * certificate signature, an issuer that is not the named one or does not contain the certificate's
 * validity). ContentMismatch: the bytes are not what the signed manifest declares, or the manifest
 * names a publisher the certificate does not certify. CertificateNotValidAtSignature: the signing time
 * is outside the certificate's validity or implausibly in the future. SignatureInvalid: the signature
 * does not verify, it names another certificate than the one carried, the container is not the one it
 * signed, it does not cover the container where that is required, or a store countersignature that is
 * required is missing or does not hold for this artifact. Revoked: the signature is valid,
 * but the revocation list revokes the artifact, a key of its chain or a certificate of its chain.
 */
export const verdictOf: Readonly<Record<VerifyCode, Exclude<Verdict, 'Trusted'>>> = {
  'package-format-unsupported': 'Malformed',
  'package-unreadable': 'Malformed',
  'manifest-missing': 'Malformed',
  'manifest-too-large': 'Malformed',
  'manifest-malformed': 'Malformed',
  'signature-missing': 'Unsigned',
  'signature-malformed': 'Malformed',
  'signature-algorithm-unsupported': 'Malformed',
  'certificate-unreadable': 'Malformed',
  'certificate-untrusted': 'UntrustedRoot',
  'certificate-malformed': 'Malformed',
  'certificate-wrong-purpose': 'WrongCertificatePurpose',
  'certificate-issuer-missing': 'Malformed',
  'certificate-issuer-mismatch': 'UntrustedRoot',
  'certificate-outlives-issuer': 'UntrustedRoot',
  'signature-key-id-mismatch': 'SignatureInvalid',
  'certificate-not-yet-valid': 'CertificateNotValidAtSignature',
  'certificate-expired': 'CertificateNotValidAtSignature',
  'signed-in-future': 'CertificateNotValidAtSignature',
  'file-missing': 'ContentMismatch',
  'file-size-mismatch': 'ContentMismatch',
  'file-digest-mismatch': 'ContentMismatch',
  'undeclared-file': 'ContentMismatch',
  'publisher-mismatch': 'ContentMismatch',
  'signature-invalid': 'SignatureInvalid',
  'container-unsigned': 'SignatureInvalid',
  'container-digest-malformed': 'Malformed',
  'container-manifest-compressed': 'Malformed',
  'container-digest-mismatch': 'SignatureInvalid',
  revoked: 'Revoked',
  'store-signature-missing': 'SignatureInvalid',
  'store-signature-invalid': 'SignatureInvalid',
}

/** Why an artifact did not verify. */
export interface VerifyProblem {
  code: VerifyCode
  /** A plain sentence naming the file or field at fault. */
  message: string
  /** For `package-unreadable` / `package-format-unsupported`: the archive reader's error code. */
  archiveCode?: string
  /** For `revoked`: the list entry that refused the artifact. */
  revocation?: RevocationEntry
}

/** Something a host should know about a signature that verified: `container-unsigned` (it does not cover the container). */
export interface VerifyWarning {
  code: 'container-unsigned'
  message: string
}

/** What `verifyContents` and `verifyArtifact` return; `problems` holds the one deciding failure, or nothing. */
export interface VerificationResult {
  valid: boolean
  verdict: Verdict
  certificateId: string | null
  issuerCertificateId: string | null
  signedAt: string | null
  certificate: Certificate | null
  /** For a Trusted result: `sha256:` + hex SHA-256 of the canonical digest P that the signature covers. */
  artifactDigest?: string
  /** For a Trusted result: the publisher signature's value (base64), which a store countersignature names. */
  signatureValue?: string
  /** For a Trusted result whose store countersignature was checked: the store that countersigned, and when. */
  storeSignature?: StoreSignature
  problems: VerifyProblem[]
  /** Warnings about a signature that verified (`container-unsigned` when it does not cover the container). */
  warnings: VerifyWarning[]
  /** The revocation list that was applied, when one was given (its `stale` flag set when stale lists were allowed). */
  revocations?: RevocationListSummary
}

/** A problem with `code` and `message`. */
export function problem(code: VerifyCode, message: string, archiveCode?: string): VerifyProblem {
  return archiveCode === undefined ? {code, message} : {code, message, archiveCode}
}
