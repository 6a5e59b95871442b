import {severityWord} from '../report/color.js'
import {pointerText} from '../report/text.js'
import type {UploadProblem, UploadReport} from './report.js'

/**
 * An upload report as text lines: one line per problem, `<severity> <code>: <message> [<pointer>]`
 * (the root pointer shown as `[/]`), then `accepted <id> <version>` or
 * `refused <id> <version>: N problem(s)`, N counting the errors (the problems that refuse). An id or
 * version that could not be read is shown as `?`. Ends with a newline.
 */
export function renderUploadText(report: UploadReport, options: {color?: boolean} = {}): string {
  const lines = report.problems.map((problem) => uploadProblemLine(problem, options.color ?? false))
  const subject = `${report.pluginId ?? '?'} ${report.version ?? '?'}`
  const errors = report.problems.filter((problem) => problem.severity === 'error').length
  lines.push(report.accepted ? `accepted ${subject}` : `refused ${subject}: ${errors} problem${errors === 1 ? '' : 's'}`)
  return `${lines.join('\n')}\n`
}

/** `<severity> <code>: <message> [<pointer>]` for one upload problem. */
export function uploadProblemLine(problem: UploadProblem, color = false): string {
  const line = `${severityWord(problem.severity, color)} ${problem.code}: ${problem.message}`
  return problem.pointer === undefined ? line : `${line} [${pointerText(problem.pointer)}]`
}
