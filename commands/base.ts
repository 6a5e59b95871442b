import {Command, Errors, Flags, type Interfaces} from '@oclif/core'
import type {ActionContext} from './actions/action.js'
import {prepareCommandProcess} from './command-process.js'
import {ExitCode} from './exit-codes.js'
import {argvWantsJson, reportThrown, reportUsage, usageProblem} from './failure.js'
import {CommandOutput} from './output.js'
import {codePagesBase} from '#cli'

/** The flags every command takes. */
const baseFlags = {
  json: Flags.boolean({description: 'Print the result as JSON on stdout.', default: false}),
  quiet: Flags.boolean({char: 'q', description: 'Print nothing but errors (and the JSON result with --json).', default: false}),
  'no-color': Flags.boolean({description: 'Never colour the output.', default: false}),
}

/**
 * The command line of the command class `C` as oclif parsed it, typed from the class's own declarations:
 * its `args`, its `flags` and the flags every command takes. An action takes `CommandInput<typeof X>`, so
 * renaming a flag in the class, or changing what its value is, does not compile until the action follows.
 */
export interface CommandInput<C extends Pick<typeof Command, 'args' | 'flags'>> {
  /** Arguments by name. */
  readonly args: Interfaces.InferredArgs<C['args']>
  /** Flags by name: given, from their environment variable, or their default. */
  readonly flags: Interfaces.InferredFlags<typeof baseFlags & C['flags']>
  /** Every positional argument, in order (for a command that takes any number of them). */
  readonly argv: readonly string[]
}

/**
 * Every command extends this: it owns the global flags, parses the command line with oclif, runs the
 * command's action (commands/actions/), which writes results to stdout and everything else to stderr, and
 * turns any thrown error into one line and an exit status.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags = baseFlags

  /**
   * What the command line adds to a refusal of the library, by code: the flag that overrides it
   * (`--force`, `--allow-unsigned`). Library messages name no option; the command names its flags.
   */
  static advice: Readonly<Record<string, string>> = {}

  /** The parsed command line. */
  protected input!: CommandInput<T>
  /** Set when a failure of this run is to be printed as JSON too (`--json`, or a command's `--format json`). */
  private failuresAsJson: boolean | undefined

  override async init(): Promise<void> {
    prepareCommandProcess()
    await super.init()
    try {
      const {args, argv, flags} = await this.parse({flags: this.ctor.flags, baseFlags, args: this.ctor.args, strict: this.ctor.strict})
      this.input = {args, flags, argv: argv as string[]} as unknown as CommandInput<T>
      this.failuresAsJson = this.input.flags.json
      this.output = new CommandOutput({quiet: this.input.flags.quiet, noColor: this.input.flags['no-color']})
    } catch (error) {
      this.failUsage(error)
    }
  }

  /** Where the command prints (see {@link CommandOutput}); it knows --quiet once the flags are parsed. */
  protected output = new CommandOutput({quiet: false})

  /** What the command's action is given besides its command line (see commands/actions/). */
  protected get context(): ActionContext {
    return {output: this.output, version: this.config.version, codePages: codePagesBase(this.config.pjson), reportFailuresAsJson: () => (this.failuresAsJson = true)}
  }

  /** Sets the exit status without throwing; the command returns normally. */
  protected setExit(code: ExitCode): void {
    process.exitCode = code
  }

  /** True when the JSON form was asked for, even when the flags could not be parsed. */
  protected get wantsJson(): boolean {
    return this.failuresAsJson ?? argvWantsJson(this.argv)
  }

  private failUsage(error: unknown): never {
    reportUsage(this.id, usageProblem(error, this.id, {...baseFlags, ...this.ctor.flags}), this.wantsJson)
    this.exit(ExitCode.usage)
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    if (error instanceof Errors.CLIError && error.oclif?.exit === 2) this.failUsage(error)
    this.exit(reportThrown(error, {json: this.wantsJson, commandId: this.id, advice: (this.ctor as typeof BaseCommand).advice}))
  }
}
