import {SvcPluginError} from '../errors.js'
import type {ValidationReport} from '../manifest/report.js'

/** Why `merge` refused to write an artifact. */
export type MergeErrorCode =
  | 'merge-needs-two'
  | 'manifest-invalid'
  | 'identity-mismatch'
  | 'manifest-mismatch'
  | 'duplicate-rid'
  | 'hash-mismatch'
  | 'file-conflict'

/** Thrown by `merge`; nothing has been written to the output when it is thrown. */
export class MergeError extends SvcPluginError<MergeErrorCode> {
  /** The validation report behind `manifest-invalid` (an input's manifest, or the merged one). */
  readonly report?: ValidationReport

  constructor(code: MergeErrorCode, message: string, options: {cause?: unknown; details?: Record<string, unknown>; report?: ValidationReport} = {}) {
    super(code, message, options)
    if (options.report) this.report = options.report
  }
}
