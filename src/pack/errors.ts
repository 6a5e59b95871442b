import {SvcPluginError} from '../errors.js'
import type {ValidationReport} from '../manifest/report.js'

/** Why `pack` refused to write an artifact. */
export type PackErrorCode =
  | 'file-not-found'
  | 'manifest-invalid'
  | 'source-entry-rejected'
  | 'limit-exceeded'
  | 'output-exists'
  | 'source-changed'

/** Thrown by `pack`; nothing has been written when it is thrown. */
export class PackError extends SvcPluginError<PackErrorCode> {
  /** The validation report when the source manifest is invalid (`manifest-invalid`). */
  readonly report?: ValidationReport

  constructor(code: PackErrorCode, message: string, options: {cause?: unknown; details?: Record<string, unknown>; report?: ValidationReport} = {}) {
    super(code, message, options)
    if (options.report) this.report = options.report
  }
}
