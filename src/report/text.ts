import type {Diagnostic} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult, type ValidationReport} from '../manifest/report.js'
import {severityWord} from './color.js'
import {displayPath} from './location.js'
import {summaryLine} from './summary.js'

/** Options of the text renderer. */
export interface TextOptions {
  /** Colour the severity word (never set this when the output is not a terminal). */
  color: boolean
  /** Only error diagnostics, no summary line (`--quiet`). */
  errorsOnly?: boolean
  /** Paths are shown relative to this directory; default `process.cwd()`. */
  cwd?: string
}

/**
 * Subjects as lines for a terminal, one report after the other (see {@link renderReportText}); a subject
 * that could not be read is `error <code>: <message>`. Several subjects end with a line counting them.
 */
export function renderText(subjects: readonly SubjectResult[], options: TextOptions): string {
  const parts = subjects.map((subject) => (isSubjectFailure(subject) ? `${diagnosticLine({code: subject.code as Diagnostic['code'], severity: 'error', message: subject.message, pointer: null, line: null, column: null}, options.color)}\n` : renderReportText(subject, options)))
  if (subjects.length > 1 && !options.errorsOnly) parts.push(`${subjectsLine(subjects)}\n`)
  return parts.join('')
}

/** `N subjects: V valid, I invalid, U not read.` */
function subjectsLine(subjects: readonly SubjectResult[]): string {
  const unread = subjects.filter(isSubjectFailure).length
  const valid = subjects.filter((subject) => !isSubjectFailure(subject) && subject.valid).length
  return `${subjects.length} subjects: ${valid} valid, ${subjects.length - valid - unread} invalid, ${unread} not read.`
}

/**
 * One report as lines for a terminal: one line per diagnostic,
 * `<severity> <code>: <message> [<pointer>] (<requiredBy>)`, then `  at <file>:<line>:<column>` when
 * the position is known, then the summary line. The root pointer `""` is shown as `[/]`; a null
 * pointer and an absent requiredBy are left out. Ends with a newline unless empty.
 */
export function renderReportText(report: ValidationReport, options: TextOptions): string {
  const cwd = options.cwd ?? process.cwd()
  const file = displayPath(report.file, cwd)
  const lines: string[] = []
  for (const problem of report.problems) {
    if (options.errorsOnly && problem.severity !== 'error') continue
    lines.push(diagnosticLine(problem, options.color))
    const position = positionOf(problem)
    if (position !== null) lines.push(`  at ${file}:${position}`)
  }
  if (!options.errorsOnly) lines.push(summaryLine(report, cwd))
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/** `<severity> <code>: <message> [<pointer>] (<requiredBy>)` for one diagnostic. */
export function diagnosticLine(problem: Diagnostic, color = false): string {
  let line = `${severityWord(problem.severity, color)} ${problem.code}: ${problem.message}`
  if (problem.pointer !== null) line += ` [${pointerText(problem.pointer)}]`
  if (problem.requiredBy !== undefined) line += ` (${problem.requiredBy})`
  return line
}

/** A JSON pointer for people: the root `""` reads as `/`. */
export function pointerText(pointer: string): string {
  return pointer === '' ? '/' : pointer
}

function positionOf(problem: Diagnostic): string | null {
  if (problem.line === null) return null
  return problem.column === null ? `${problem.line}` : `${problem.line}:${problem.column}`
}
