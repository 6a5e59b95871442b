import {isSvcPluginError, type SvcPluginError, type TextLine} from '#cli'
import {ExitCode, exitCodeFor} from './exit-codes.js'
import {CommandOutput} from './output.js'
import {closestWord} from './suggest.js'

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
 * Reports a command line that cannot be acted on: `error <code>: <message>` (`usage`, or `unknown-flag` for
 * a flag the command does not have) and where to read the command's help; the caller exits with
 * {@link ExitCode.usage}.
 */
export function reportUsage(commandId: string | undefined, problem: UsageProblem, json: boolean): void {
  const help = `svc-plugin ${commandId?.replaceAll(':', ' ') ?? ''} --help`.replace(/ {2,}/g, ' ')
  reportFailure({code: problem.code, message: problem.message, json, details: problem.details, text: [`See: ${help}`]})
}

/** A command line the parser refused, as the command line reports it. */
export interface UsageProblem {
  readonly code: 'usage' | 'unknown-flag'
  readonly message: string
  readonly details?: Readonly<Record<string, unknown>>
}

/** The flags of a command as their declarations give them: the long name, and the variable that may stand for it. */
type DeclaredFlags = Readonly<Record<string, {readonly env?: string | undefined; readonly allowNo?: boolean | undefined; readonly type?: string}>>

/**
 * What the parser's refusal of `commandId`'s command line says, in the words of the command line: a flag the
 * command does not have is `unknown-flag`, with the flag it most likely meant (`--levle`: did you mean
 * `--level`?); a required flag that is missing is named with its dashes and the environment variable that
 * can stand for it; anything else is the parser's message on one line.
 */
export function usageProblem(error: unknown, commandId: string | undefined, flags: DeclaredFlags): UsageProblem {
  const message = error instanceof Error ? error.message : String(error)
  const unknown = (error as {flags?: unknown} | null)?.flags
  if (Array.isArray(unknown) && unknown.length > 0 && unknown.every((flag) => typeof flag === 'string')) return unknownFlag(unknown as string[], commandId, flags)
  const parsed = usageLines(message)
  if (/^Missing \d+ required args?:$/.test(parsed[0] ?? '')) return {code: 'usage', message: missingArguments(parsed.slice(1))}
  const lines = withoutParsingPrefix(parsed).map((line) => {
    const missing = /^Missing required flag (\S+)$/.exec(line)?.[1]
    if (missing === undefined) return line
    const variable = flags[missing]?.env
    return `Missing required flag --${missing}${variable === undefined ? '' : ` (or set ${variable})`}.`
  })
  return {code: 'usage', message: lines.join('; ') || message}
}

/**
 * The parser puts `Parsing --<flag>` on a line of its own before a flag's value it could not parse: joined
 * to the reason when the reason does not name the flag (`--retain: …`), left out when it does.
 */
function withoutParsingPrefix(lines: readonly string[]): string[] {
  const joined: string[] = []
  for (let index = 0; index < lines.length; index++) {
    const flag = /^Parsing (--[\w-]+)$/.exec(lines[index] as string)?.[1]
    const reason = lines[index + 1]
    if (flag === undefined || reason === undefined) {
      joined.push(lines[index] as string)
      continue
    }
    joined.push(new RegExp(`${flag}(?![\\w-])`).test(reason) ? reason : `${flag}: ${reason}`)
    index += 1
  }
  return joined
}

/**
 * The arguments the parser found missing (its lines `<name>  <description>`), named as `--help` shows them:
 * `Missing required argument ARTIFACT (the .svcPlugin file to install).`
 */
function missingArguments(lines: readonly string[]): string {
  const named = lines.map((line) => {
    const [, name = line, description = ''] = /^(\S+)\s+(.*)$/.exec(line) ?? []
    const what = description.replace(/\.$/, '')
    return `${name.toUpperCase()}${what === '' ? '' : ` (${what.charAt(0).toLowerCase()}${what.slice(1)})`}`
  })
  return `Missing required argument${named.length === 1 ? '' : 's'} ${named.join(', ')}.`
}

/** `unknown-flag` for the flags in `typed` (as typed, `--levle=2` included), with a suggestion for the first. */
function unknownFlag(typed: readonly string[], commandId: string | undefined, flags: DeclaredFlags): UsageProblem {
  const names = Object.entries(flags).flatMap(([name, flag]) => [`--${name}`, ...(flag.allowNo === true ? [`--no-${name}`] : [])])
  const flag = (typed[0] as string).replace(/=.*$/s, '')
  const suggestion = flag.startsWith('--') ? closestWord(flag, names) : undefined
  const command = `svc-plugin ${commandId?.replaceAll(':', ' ') ?? ''}`.trim()
  const list = typed.map((word) => word.replace(/=.*$/s, '')).join(', ')
  const hint = suggestion === undefined ? '' : ` Did you mean ${suggestion}?`
  return {
    code: 'unknown-flag',
    message: `${command} has no flag${typed.length === 1 ? '' : 's'} ${list}.${hint}`,
    details: {flag, ...(suggestion === undefined ? {} : {suggestion})},
  }
}

/**
 * Reports what a command threw and gives the status to exit with: a {@link UsageError} as a usage error of
 * `commandId`; a library refusal with its code, its details and its exit status, and the command's advice
 * for its code (the flag that overrides it) or that of an {@link AdvisedRefusal}; anything else as
 * `internal` (exit 70), with the stack only when SVC_PLUGIN_DEBUG=1 asks for it.
 */
export function reportThrown(thrown: unknown, options: {json: boolean; commandId?: string | undefined; advice?: Readonly<Record<string, string>>}): ExitCode {
  if (thrown instanceof UsageError) {
    reportUsage(options.commandId, {code: 'usage', message: thrown.message}, options.json)
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

/** oclif's parse message without its preamble, its help hint or colour, one line per problem. */
function usageLines(text: string): string[] {
  return text
    .replace(/\u001B\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^The following errors? occurred:$/.test(line) && !line.startsWith('See more help with'))
}
