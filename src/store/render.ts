import {pointerText} from '../report/text.js'
import {line, styled, textLines, type PartsLine, type TextLine} from '../report/text-lines.js'
import type {UploadProblem, UploadReport} from './report.js'

/** An upload report as text, escaped and coloured by the text-line renderer (see {@link uploadTextLines}). */
export function renderUploadText(report: UploadReport, options: {color?: boolean} = {}): string {
  return textLines(uploadTextLines(report), {color: options.color ?? false})
}

/**
 * An upload report as text lines: one line per problem, `<severity> <code>: <message> [<pointer>]`
 * (the root pointer shown as `[/]`), then `accepted <id> <version>` or
 * `refused <id> <version>: N problem(s)`, N counting the errors (the problems that refuse). An id or
 * version that could not be read is shown as `?`.
 */
export function uploadTextLines(report: UploadReport): TextLine[] {
  const lines: TextLine[] = report.problems.map(uploadProblemLine)
  const subject = `${report.id ?? '?'} ${report.version ?? '?'}`
  const errors = report.problems.filter((problem) => problem.severity === 'error').length
  lines.push(report.accepted ? `accepted ${subject}` : `refused ${subject}: ${errors} problem${errors === 1 ? '' : 's'}`)
  return lines
}

/** `<severity> <code>: <message> [<pointer>]` for one upload problem, the severity styled. */
export function uploadProblemLine(problem: UploadProblem): PartsLine {
  const rest = ` ${problem.code}: ${problem.message}`
  return line(styled(problem.severity, problem.severity), problem.pointer === undefined ? rest : `${rest} [${pointerText(problem.pointer)}]`)
}
