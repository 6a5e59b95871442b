import type {DiagnosticCode, Severity} from '../manifest/diagnostic.js'
import type {Verdict, VerifyCode} from '../signing/result.js'

/**
 * Every code an upload report can carry: the validator's diagnostics (publication level), the signature
 * verifier's codes (`revoked` included), an unusable revocation list, and the store's own:
 * `publisher-mismatch` (the manifest's publisher is not the uploading account) and `version-not-newer`.
 */
export type UploadProblemCode = DiagnosticCode | VerifyCode | 'revocation-list-invalid' | 'revocation-list-stale' | 'version-not-newer'

/** One problem of an upload. */
export interface UploadProblem {
  code: UploadProblemCode
  /** Errors refuse the upload; warnings are reported and never refuse. */
  severity: Severity
  /** A plain sentence. */
  message: string
  /** RFC 6901 pointer into manifest.json, when the problem is at a value. */
  pointer?: string
  /** The package file the problem is in, when that is not manifest.json (a secret in `config/app.js`). */
  file?: string
  /** The 1-based line in `file`, when known. */
  line?: number
  /** For `package-unreadable` / `package-format-unsupported`: the archive reader's code. */
  archiveCode?: string
}

/** What `verifyUpload` returns: every problem found, in one report. */
export interface UploadReport {
  /** True when no problem is an error and the signature verdict is Trusted. */
  accepted: boolean
  /** The manifest's id and version, null when they could not be read (`id`, as in every result and in `store verify --json`). */
  id: string | null
  version: string | null
  /** Validation problems (in report order), then the signature's, the publisher's and the version's. */
  problems: UploadProblem[]
  /** The signature verdict. */
  verdict: Verdict
  /** The signing certificate, when the verifier got as far as reading it. */
  certificateId: string | null
}
