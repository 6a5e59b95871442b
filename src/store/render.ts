import {plural} from '../quantities.js'
import {pointerText} from '../report/text.js'
import {line, styled, textLines, type PartsLine, type TextLine} from '../report/text-lines.js'
import type {UploadProblem, UploadReport} from './report.js'

/** An upload report as text, escaped and coloured by the text-line renderer (see {@link uploadTextLines}). */
export function renderUploadText(report: UploadReport, options: {color?: boolean} = {}): string {
  return textLines(uploadTextLines(report), {color: options.color ?? false})
}

/**
 * An upload report as text lines: one line per problem, `<severity> <code>: <message> [<pointer>]`
 * (the root pointer shown as `[/]`), or `… (in <file>:<line>)` for a problem in another file of the package,
 * then `accepted <id> <version>` or `refused <id> <version>: N problems`, N counting the errors (the
 * problems that refuse). An id or version that could not be read is shown as `?`.
 */
export function uploadTextLines(report: UploadReport): TextLine[] {
  const lines: TextLine[] = report.problems.map(uploadProblemLine)
  const subject = `${report.id ?? '?'} ${report.version ?? '?'}`
  const errors = report.problems.filter((problem) => problem.severity === 'error').length
  lines.push(report.accepted ? `accepted ${subject}` : `refused ${subject}: ${plural(errors, 'problem')}`)
  return lines
}

/** `<severity> <code>: <message> [<pointer>]` (or `(in <file>:<line>)`) for one upload problem, the severity styled. */
export function uploadProblemLine(problem: UploadProblem): PartsLine {
  let rest = ` ${problem.code}: ${problem.message}`
  if (problem.pointer !== undefined) rest += ` [${pointerText(problem.pointer)}]`
  if (problem.file !== undefined) rest += ` (in ${problem.file}${problem.line === undefined ? '' : `:${problem.line}`})`
  return line(styled(problem.severity, problem.severity), rest)
}
