/**
 * The base of every error the library throws. Callers branch on `code`, never on the message
 * or the class name; each domain narrows `code` to its own string-literal union.
 */
export class SvcPluginError<Code extends string = string> extends Error {
  /** Stable kebab-case code a caller can act on. */
  readonly code: Code
  /** Machine-readable facts about the failure (paths, limits, offsets); never needed to read the message. */
  readonly details: Readonly<Record<string, unknown>>

  constructor(code: Code, message: string, options: {cause?: unknown; details?: Record<string, unknown>} = {}) {
    super(message, options.cause === undefined ? undefined : {cause: options.cause})
    this.code = code
    this.details = options.details ?? {}
  }

  override get name(): string {
    return this.constructor.name
  }
}

/** True when `error` is one of ours, whatever its domain. */
export function isSvcPluginError(error: unknown): error is SvcPluginError {
  return error instanceof SvcPluginError
}
