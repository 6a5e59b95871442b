import {SvcPluginError} from '../errors.js'
import type {ValidationReport} from '../manifest/report.js'

/** Why `pack` refused to write an artifact. */
export type PackErrorCode =
  | 'file-not-found'
  | 'manifest-invalid'
  | 'source-entry-rejected'
  | 'limit-exceeded'
  | 'source-changed'
  /** The package holds a secret (a private key, a `.env` file, a credential) that was not allowed. */
  | 'secret-detected'
  /** The packed artifact would fail the validation level asked for. */
  | 'level-not-met'

/** Thrown by `pack`; nothing has been written when it is thrown. */
export class PackError extends SvcPluginError<PackErrorCode> {
  /**
   * The validation report: of the source manifest (`manifest-invalid`), or of the packed artifact
   * (`secret-detected`, `level-not-met`).
   */
  readonly report?: ValidationReport

  constructor(code: PackErrorCode, message: string, options: {cause?: unknown; details?: Record<string, unknown>; report?: ValidationReport} = {}) {
    super(code, message, options)
    if (options.report) this.report = options.report
  }
}
