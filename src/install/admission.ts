import type {StoreSignature} from '../signing/countersignature.js'
import type {Verdict, VerificationResult} from '../signing/result.js'
import {InstallError, type SignatureRefusalCode} from './errors.js'
import {publisherOfCertificate, type AdmittedVerdict, type PinnedPublisher} from './trust-record.js'
import {warning, type InstallWarning} from './warnings.js'

/** How an artifact's signature lets it in. */
export interface Admission {
  verdict: AdmittedVerdict
  certificateId: string | null
  /** The signing certificate's subject, for a Trusted admission. */
  publisher: PinnedPublisher | null
  /** The store countersignature that held, when one was checked; null otherwise. */
  storeSignature: StoreSignature | null
  warnings: InstallWarning[]
}

/**
 * Turns a verdict into an admission: Trusted is admitted (with the verifier's warnings); Unsigned only when the caller allows it
 * (`unsigned-not-permitted` otherwise; warning `artifact-unsigned` when allowed); every other verdict throws
 * `signature-invalid`, `signature-untrusted` or `signature-revoked`, with the verdict and the deciding
 * verification code as `reason` in the details; a store countersignature that is required and missing, or
 * does not hold, throws its own code (`store-signature-missing`, `store-signature-invalid`).
 */
export function admit(result: VerificationResult, options: {allowUnsigned?: boolean; subject: string}): Admission {
  switch (result.verdict) {
    case 'Trusted':
      return {
        verdict: 'Trusted',
        certificateId: result.certificateId,
        publisher: publisherOfCertificate(result.certificate),
        storeSignature: result.storeSignature ?? null,
        warnings: result.warnings.map(({code, message}) => warning(code, message)),
      }
    case 'Unsigned':
      if (options.allowUnsigned !== true) {
        throw new InstallError('unsigned-not-permitted', `${options.subject} is not signed, and unsigned artifacts were not allowed.`, {
          details: {verdict: result.verdict},
        })
      }
      return {verdict: 'Unsigned', certificateId: null, publisher: null, storeSignature: null, warnings: [warning('artifact-unsigned', `${options.subject} is not signed; it was installed because unsigned artifacts were allowed.`)]}
    default: {
      const deciding = result.problems[0]
      throw new InstallError(
        deciding?.code === 'store-signature-missing' || deciding?.code === 'store-signature-invalid' ? deciding.code : refusalCodeOf[result.verdict],
        `${options.subject} was refused: ${result.verdict}${deciding === undefined ? '' : ` (${deciding.code}: ${deciding.message})`}`,
        {details: {verdict: result.verdict, reason: deciding?.code ?? null, certificateId: result.certificateId, problems: result.problems}},
      )
    }
  }
}

/**
 * The refusal code of each verdict that is not admitted, so that a host can act on it: the artifact is
 * broken or forged (`signature-invalid`), it chains to nothing the host trusts for this at that time
 * (`signature-untrusted`), or it was revoked (`signature-revoked`).
 */
const refusalCodeOf: Record<Exclude<Verdict, 'Trusted' | 'Unsigned'>, SignatureRefusalCode> = {
  Malformed: 'signature-invalid',
  SignatureInvalid: 'signature-invalid',
  ContentMismatch: 'signature-invalid',
  UntrustedRoot: 'signature-untrusted',
  WrongCertificatePurpose: 'signature-untrusted',
  CertificateNotValidAtSignature: 'signature-untrusted',
  Revoked: 'signature-revoked',
}
