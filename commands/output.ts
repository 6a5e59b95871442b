import {colorEnabled, jsonText, textLines, withoutInvisibleCharacters, type TextLine} from '#cli'
import {io, type Output} from './io.js'

/**
 * What a command prints, and where: results on stdout, progress, notes and warnings on stderr, and nothing
 * but errors and the JSON result with `--quiet`. This is the only module that writes to the two channels
 * (test/report/output-boundary.test.ts holds every other module of commands/ to that), and everything it
 * writes is escaped for where it goes (docs/output-escaping.md):
 *
 * - text is given as lines ({@link TextLine}: a string, or parts the tool styles) and written by the one
 *   text-line renderer, which escapes every part, shows a line break inside a line as `\n` and colours
 *   the severity words after escaping, when the channel is a terminal that wants colour;
 * - a value is written as JSON by `jsonText`;
 * - a document that a renderer escaped for its own format (workflow commands, JUnit XML, SARIF) is written
 *   as it is, bar any invisible character but the line feed (written as a `\u` escape): a last guard.
 *
 * So a command that prints a value from an artifact gets it escaped without calling anything.
 */
export class CommandOutput {
  constructor(private readonly options: {readonly quiet: boolean; readonly noColor?: boolean}) {}

  /** Result lines on stdout, unless --quiet. */
  out(lines: TextLine | readonly TextLine[]): void {
    if (!this.options.quiet) this.outAlways(lines)
  }

  /** Lines on stdout even with --quiet: a refusal's own lines. */
  outAlways(lines: TextLine | readonly TextLine[]): void {
    this.write(io.stdout, lines)
  }

  /** Lines on stderr unless --quiet (progress, notes, warnings). */
  note(lines: TextLine | readonly TextLine[]): void {
    if (!this.options.quiet) this.write(io.stderr, lines)
  }

  /** Error lines on stderr, even with --quiet. */
  errorLine(lines: TextLine | readonly TextLine[]): void {
    this.write(io.stderr, lines)
  }

  /** A question on stderr, escaped as a line is, with no line break after it: the answer is typed on the same line. */
  ask(question: string): void {
    io.stderr.write(textLines([question], {color: false}).slice(0, -1))
  }

  /** True when stdout is a terminal (with a terminal on stdin: a person is there to answer questions). */
  get stdoutIsTerminal(): boolean {
    return io.stdout.isTTY === true
  }

  /** A value as indented JSON on stdout, even with --quiet. */
  outJson(value: unknown): void {
    io.stdout.write(jsonText(value))
  }

  /**
   * A whole document on stdout, even with --quiet, already escaped for its format by its renderer (the
   * `github`, `junit`, `sarif` and `gitlab` reports, the schema): written as it is, except that any
   * invisible character but the line feed is written as a `\u` escape.
   */
  outDocument(text: string): void {
    io.stdout.write(withoutInvisibleCharacters(text))
  }

  private write(channel: Output, lines: TextLine | readonly TextLine[]): void {
    const list: readonly TextLine[] = typeof lines === 'string' || !Array.isArray(lines) ? [lines as TextLine] : lines
    channel.write(textLines(list, {color: colorEnabled({isTTY: channel.isTTY, env: process.env, noColor: this.options.noColor === true})}))
  }
}
