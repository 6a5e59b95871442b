import {setFlagsFromString} from 'node:v8'
import {Command, Errors, Flags, type Interfaces} from '@oclif/core'
import {isSvcPluginError, removeTemporaryFilesSync, type SvcPluginError} from '../src/index.js'
import {ExitCode, exitCodeFor} from './exit-codes.js'
import {argvWantsJson, reportFailure} from './failure.js'
import {io} from './io.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>
export type BaseArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>

/**
 * A command holds many small objects that live as long as it does (one or more per archive entry or per
 * file, up to 20,000 of each), and V8 answers that by growing its young generation up to 16 MiB a
 * semi-space and letting the old generation grow by up to four times its live size between full
 * collections: tens of MiB of resident memory a short-lived process never uses again. Measured on 20,000
 * entries, keeping the young generation at its initial size and growing the old one by a fifth at a time
 * lowers the peak of verify, validate and install by 20 to 35 MiB; on the 295 MB bench tree pack keeps
 * the same CPU time and about 20 MiB less. Set here, in the command line's own process: the library
 * leaves a host's heap alone.
 */
function keepHeapSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
  setFlagsFromString('--heap-growing-percent=20')
}

/**
 * Every command extends this: it owns the global flags, writes results to stdout and
 * everything else to stderr, and turns any thrown error into one line and an exit status.
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
    keepHeapSmall()
    await super.init()
    // Ctrl-C or a TERM from a build system: remove what is half-written, then exit 4.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        removeTemporaryFilesSync()
        io.stderr.write(`\ncancelled (${signal}).\n`)
        process.exit(ExitCode.cancelled)
      })
    }
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
    } catch (error) {
      this.failUsage(error)
    }
  }

  /** Writes a result line to stdout, unless --quiet (which keeps only errors and the JSON result). */
  protected out(text: string): void {
    if (this.flags?.quiet) return
    this.outAlways(text)
  }

  /** Writes a line to stdout even with --quiet: a refusal's own lines, the JSON result. */
  protected outAlways(text: string): void {
    io.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** Writes a line to stderr unless --quiet (progress, notes, warnings). */
  protected note(text: string): void {
    if (this.flags?.quiet) return
    io.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** Writes an error line to stderr, even with --quiet. */
  protected errorLine(text: string): void {
    io.stderr.write(text.endsWith('\n') ? text : `${text}\n`)
  }

  /** Prints a value as indented JSON on stdout. */
  protected outJson(value: unknown): void {
    this.outAlways(JSON.stringify(value, null, 2))
  }

  /** Sets the exit status without throwing; the command returns normally. */
  protected setExit(code: ExitCode): void {
    process.exitCode = code
  }

  /** True when the JSON form was asked for, even when the flags could not be parsed. */
  protected get wantsJson(): boolean {
    return this.flags?.json ?? argvWantsJson(this.argv)
  }

  /**
   * Reports a failure the one way every command does: the JSON error shape on stdout with --json, and
   * `error <code>: <message>` on stderr (plus `text` below it, when there is more to show), then exits.
   */
  protected fail(code: string, message: string, status: ExitCode, options: {details?: Readonly<Record<string, unknown>>; extra?: Record<string, unknown>; text?: string} = {}): never {
    reportFailure({code, message, json: this.wantsJson, ...options})
    this.exit(status)
  }

  /** The advice for a library error (see {@link BaseCommand.advice}); a command may decide from its flags too. */
  protected adviceFor(error: SvcPluginError): string | undefined {
    const {advice} = this.ctor as typeof BaseCommand
    return Object.hasOwn(advice, error.code) ? advice[error.code] : undefined
  }

  private failUsage(error: unknown): never {
    const message = error instanceof Error ? error.message : String(error)
    const help = `svc-plugin ${this.id?.replaceAll(':', ' ') ?? ''} --help`.replace(/ {2,}/g, ' ')
    this.fail('usage', usageText(message), ExitCode.usage, {text: `See: ${help}\n`})
  }

  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error
    if (isSvcPluginError(error)) {
      const advice = this.adviceFor(error)
      this.fail(error.code, advice === undefined ? error.message : `${error.message} ${advice}`, exitCodeFor(error), {details: error.details})
    }
    if (error instanceof Errors.CLIError && error.oclif?.exit === 2) this.failUsage(error)
    if (process.env.SVC_PLUGIN_DEBUG === '1') io.stderr.write(`${error.stack ?? ''}\n`)
    this.fail('internal', `${error.message} (a bug in svc-plugin: please report it)`, ExitCode.internal)
  }
}

/** oclif's parse message without its preamble and help hint, on one line. */
function usageText(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && line !== 'The following error occurred:' && !line.startsWith('See more help with'))
  return lines.join('; ') || text
}
