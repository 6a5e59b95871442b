import type {ExitCode} from '../exit-codes.js'
import type {CommandOutput} from '../output.js'

/**
 * The work of a command, apart from parsing its command line: it takes the parsed arguments and flags,
 * prints through its context and gives the exit status; what it throws is reported the one way every
 * command reports a failure. The oclif command and the direct path (commands/direct.ts) run the same action.
 */
export type Action<Input> = (input: Input, context: ActionContext) => Promise<ExitCode>

/** The arguments and flags of a command line, in the shape oclif's parser gives them. */
export interface ActionInput {
  /** Arguments by name. */
  readonly args: Readonly<Record<string, string | undefined>>
  /** Flags by name: given, from their environment variable or their default. */
  readonly flags: Readonly<Record<string, unknown>>
  /** Every positional argument, in order (for a command that takes any number of them). */
  readonly argv: readonly string[]
}

/** What an action is given besides its command line. */
export interface ActionContext {
  /** Where it prints. */
  readonly output: CommandOutput
  /** The version of svc-plugin. */
  readonly version: string
  /** Where this version's code pages are published (from package.json, `codePagesBase`); absent or null: nowhere known. */
  readonly codePages?: string | null
  /** Asks for a failure of this run to be reported as JSON too (a command whose `--format json` asks for it). */
  reportFailuresAsJson(): void
}
