import type {CommandOutput} from '../output.js'

/**
 * What an action is given besides its command line. An action (a module of commands/actions/) is the work of
 * a command apart from declaring its command line: it takes what oclif parsed (`CommandInput<typeof
 * TheCommand>`, commands/base.ts), prints through this context and gives the exit status; what it throws is
 * reported the one way every command reports a failure.
 */
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
