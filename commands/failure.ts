import {isSvcPluginError, type SvcPluginError, type TextLine} from '../src/index.js'
import {ExitCode, exitCodeFor} from './exit-codes.js'
import {CommandOutput} from './output.js'

/** The one JSON shape of a failure, for every command: `{"error": {"code", "message", …details}}` (and a report when there is one). */
export function errorDocument(code: string, message: string, details: Readonly<Record<string, unknown>> = {}, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {error: {...details, code, message}, ...extra}
}

/** What {@link reportFailure} prints. */
export interface Failure {
  code: string
  message: string
  /** Print the JSON error shape on stdout too. */
  json: boolean
  details?: Readonly<Record<string, unknown>>
  extra?: Record<string, unknown>
  /**
   * The message as lines for stderr, when it is a list by design (one item a line, the line breaks the
   * library's own); otherwise the message is one line, a line break inside it shown as `\n`.
   */
  messageLines?: readonly string[]
  /** More lines for stderr, below the error line. */
  text?: readonly TextLine[]
}

/**
 * Reports a failure the one way every command does: the JSON error shape on stdout when JSON was asked for,
 * and `error <code>: <message>` on stderr (plus `text` below it, when there is more to show).
 */
export function reportFailure(failure: Failure): void {
  const output = new CommandOutput({quiet: false})
  if (failure.json) output.outJson(errorDocument(failure.code, failure.message, failure.details, failure.extra))
  const [first, ...rest] = failure.messageLines ?? [failure.message]
  output.errorLine([`error ${failure.code}: ${first ?? ''}`, ...rest, ...(failure.text ?? [])])
}

/** True when the command line asks for JSON (read from the raw arguments: for failures before or during parsing). */
export function argvWantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--')
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json')
}

/**
 * The last resort of the `svc-plugin` binary, for a failure no command caught (one in oclif itself, or
 * outside any command): an exit that a command already decided keeps its status; anything else is
 * `error internal: …` and exit 70, with the stack only when SVC_PLUGIN_DEBUG=1 asks for it.
 */
export function exitOnFailure(error: unknown): void {
  const decided = (error as {oclif?: {exit?: unknown}} | null)?.oclif?.exit
  if (typeof decided === 'number' && (error as {code?: unknown}).code === 'EEXIT') {
    process.exitCode = decided
    return
  }
  process.exitCode = reportThrown(error, {json: argvWantsJson(process.argv.slice(2))})
}

/** A command line a command cannot act on, found by the command itself rather than by the flag parser. */
export class UsageError extends Error {}

/**
 * A library refusal with advice that depends on the command line (the flag that was not given), thrown by
 * an action instead of the refusal itself; it is reported as the refusal with this advice.
 */
export class AdvisedRefusal extends Error {
  constructor(
    readonly refusal: SvcPluginError,
    readonly advice: string,
  ) {
    super(refusal.message, {cause: refusal})
  }
}

/**
 * Reports a command line that cannot be acted on: `error usage: <message>` (the parser's message on one line)
 * and where to read the command's help; the caller exits with {@link ExitCode.usage}.
 */
export function reportUsage(commandId: string | undefined, message: string, json: boolean): void {
  const help = `svc-plugin ${commandId?.replaceAll(':', ' ') ?? ''} --help`.replace(/ {2,}/g, ' ')
  reportFailure({code: 'usage', message: usageText(message), json, text: [`See: ${help}`]})
}

/**
 * Reports what a command threw and gives the status to exit with: a {@link UsageError} as a usage error of
 * `commandId`; a library refusal with its code, its details and its exit status, and the command's advice
 * for its code (the flag that overrides it) or that of an {@link AdvisedRefusal}; anything else as
 * `internal` (exit 70), with the stack only when SVC_PLUGIN_DEBUG=1 asks for it.
 */
export function reportThrown(thrown: unknown, options: {json: boolean; commandId?: string | undefined; advice?: Readonly<Record<string, string>>}): ExitCode {
  if (thrown instanceof UsageError) {
    reportUsage(options.commandId, thrown.message, options.json)
    return ExitCode.usage
  }
  const error = thrown instanceof AdvisedRefusal ? thrown.refusal : thrown
  if (isSvcPluginError(error)) {
    const advice = thrown instanceof AdvisedRefusal ? thrown.advice : Object.hasOwn(options.advice ?? {}, error.code) ? options.advice?.[error.code] : undefined
    const message = advice === undefined ? error.message : `${error.message} ${advice}`
    reportFailure({code: error.code, message, json: options.json, details: error.details})
    return exitCodeFor(error)
  }
  const message = error instanceof Error ? error.message : String(error)
  if (process.env.SVC_PLUGIN_DEBUG === '1' && error instanceof Error) new CommandOutput({quiet: false}).errorLine((error.stack ?? '').split('\n'))
  reportFailure({code: 'internal', message: `${message} (a bug in svc-plugin: please report it)`, json: options.json})
  return ExitCode.internal
}

/** oclif's parse message without its preamble and help hint, on one line. */
function usageText(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== 'The following error occurred:' && !line.startsWith('See more help with'))
  return lines.join('; ') || text
}
