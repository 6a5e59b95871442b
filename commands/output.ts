import {io} from './io.js'

/**
 * What a command prints, and where: results on stdout, progress, notes and warnings on stderr, and nothing
 * but errors and the JSON result with `--quiet`. Every command writes through one of these, whether oclif
 * parsed its arguments or the direct path did (commands/direct.ts).
 */
export class CommandOutput {
  constructor(private readonly options: {readonly quiet: boolean}) {}

  /** A result line on stdout, unless --quiet. */
  out(text: string): void {
    if (!this.options.quiet) this.outAlways(text)
  }

  /** A line on stdout even with --quiet: a refusal's own lines, the JSON result. */
  outAlways(text: string): void {
    io.stdout.write(line(text))
  }

  /** A line on stderr unless --quiet (progress, notes, warnings). */
  note(text: string): void {
    if (!this.options.quiet) io.stderr.write(line(text))
  }

  /** An error line on stderr, even with --quiet. */
  errorLine(text: string): void {
    io.stderr.write(line(text))
  }

  /** A value as indented JSON on stdout, even with --quiet. */
  outJson(value: unknown): void {
    this.outAlways(JSON.stringify(value, null, 2))
  }
}

function line(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`
}
