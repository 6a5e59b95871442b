import {Command, Errors, Flags, type Interfaces} from '@oclif/core'
import type {ActionContext} from './actions/action.js'
import {prepareCommandProcess} from './command-process.js'
import {ExitCode} from './exit-codes.js'
import {argvWantsJson, reportThrown, reportUsage} from './failure.js'
import {CommandOutput} from './output.js'
import {codePagesBase} from '../src/index.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * Every command extends this: it owns the global flags, parses the command line, runs the command's action
 * (commands/actions/), which writes results to stdout and everything else to stderr, and turns any thrown
 * error into one line and an exit status.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override baseFlags = {
    json: Flags.boolean({description: 'Print the result as JSON on stdout.', default: false}),
    quiet: Flags.boolean({char: 'q', description: 'Print nothing but errors (and the JSON result with --json).', default: false}),
    'no-color': Flags.boolean({description: 'Never colour the output.', default: false}),
  }

  /**
   * What the command line adds to a refusal of the library, by code: the flag that overrides it
   * (`--force`, `--allow-unsigned`). Library messages name no option; the command names its flags.
   */
  static advice: Readonly<Record<string, string>> = {}

  /** The parsed flags of the concrete command. */
  protected flags!: BaseFlags<T>
  /** The parsed arguments of the concrete command. */
  protected args!: BaseArgs<T>
  /** Every positional argument, in order (for commands with `strict = false`). */
  protected positionals!: string[]

  override async init(): Promise<void> {
    prepareCommandProcess()
    await super.init()
    try {
      const {args, argv, flags} = await this.parse({
        flags: this.ctor.flags,
        baseFlags: (this.ctor as typeof BaseCommand).baseFlags,
        args: this.ctor.args,
        strict: this.ctor.strict,
      })
      this.flags = flags as BaseFlags<T>
      this.args = args as BaseArgs<T>
      this.positionals = argv as string[]
      this.output = new CommandOutput({quiet: this.flags.quiet, noColor: this.flags['no-color']})
    } catch (error) {
      this.failUsage(error)
    }
  }

  /** Where the command prints (see {@link CommandOutput}); it knows --quiet once the flags are parsed. */
  protected output = new CommandOutput({quiet: false})

  /** What the command's action is given besides its command line (see commands/actions/). */
  protected get context(): ActionContext {
    return {output: this.output, version: this.config.version, codePages: codePagesBase(this.config.pjson), reportFailuresAsJson: () => (this.flags.json = true)}
  }

  /** Sets the exit status without throwing; the command returns normally. */
  protected setExit(code: ExitCode): void {
    process.exitCode = code
  }

  /** True when the JSON form was asked for, even when the flags could not be parsed. */
  protected get wantsJson(): boolean {
    return this.flags?.json ?? argvWantsJson(this.argv)
  }

  private failUsage(error: unknown): never {
    reportUsage(this.id, error instanceof Error ? error.message : String(error), this.wantsJson)
    this.exit(ExitCode.usage)
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    if (error instanceof Errors.CLIError && error.oclif?.exit === 2) this.failUsage(error)
    this.exit(reportThrown(error, {json: this.wantsJson, commandId: this.id, advice: (this.ctor as typeof BaseCommand).advice}))
  }
}
