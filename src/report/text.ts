import type {Diagnostic} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult, type ValidationReport} from '../manifest/report.js'
import {displayPath, problemFile} from './location.js'
import {plural} from '../quantities.js'
import {summaryLine} from './summary.js'
import {line, styled, textLines, type PartsLine, type TextLine} from './text-lines.js'
import {tooManyWarnings, warningLimit, warningLimitMessage} from './warning-limit.js'

/** Options of the text renderer. */
export interface TextOptions {
  /** Colour the severity word (never set this when the output is not a terminal). */
  color: boolean
  /** Only error diagnostics, no summary line (`--quiet`). */
  errorsOnly?: boolean
  /** Paths are shown relative to this directory; default `process.cwd()`. */
  cwd?: string
  /** The most warnings the run allows (`--max-warnings`); absent or negative: no limit. */
  maxWarnings?: number
}

/**
 * Subjects as text for a terminal, one report after the other (see {@link reportTextLines}), escaped and
 * coloured by {@link textLines}.
 */
export function renderText(subjects: readonly SubjectResult[], options: TextOptions): string {
  return textLines(subjectsTextLines(subjects, options), {color: options.color})
}

/**
 * Subjects as text lines, one report after the other (see {@link reportTextLines}); a subject that could
 * not be read is `error <code>: <message>`. Several subjects end with a line counting them; warnings over
 * `maxWarnings` end the text with `error too-many-warnings: <why>`.
 */
export function subjectsTextLines(subjects: readonly SubjectResult[], options: Omit<TextOptions, 'color'>): TextLine[] {
  const lines = subjects.flatMap((subject) => (isSubjectFailure(subject) ? [line(styled('error', 'error'), ` ${subject.code}: ${subject.message}`)] : reportTextLines(subject, options)))
  if (subjects.length > 1 && !options.errorsOnly) lines.push(subjectsLine(subjects))
  const limit = warningLimit(subjects, options.maxWarnings)
  if (limit?.exceeded === true) lines.push(line(styled('error', 'error'), ` ${tooManyWarnings}: ${warningLimitMessage(limit)}`))
  return lines
}

/** `N subjects: V valid, I invalid, U not read.` */
function subjectsLine(subjects: readonly SubjectResult[]): string {
  const unread = subjects.filter(isSubjectFailure).length
  const valid = subjects.filter((subject) => !isSubjectFailure(subject) && subject.valid).length
  return `${plural(subjects.length, 'subject')}: ${valid} valid, ${subjects.length - valid - unread} invalid, ${unread} not read.`
}

/** One report as text, escaped and coloured by {@link textLines} (see {@link reportTextLines}). */
export function renderReportText(report: ValidationReport, options: TextOptions): string {
  return textLines(reportTextLines(report, options), {color: options.color})
}

/**
 * One report as text lines: one line per diagnostic, `<severity> <code>: <message> [<pointer>]
 * (<requiredBy>)`, then `  at <file>:<line>:<column>` when the position is known (`<file>` being the
 * manifest, or the other file of the package the problem is in, shown even without a line), then the
 * summary line. The root pointer `""` is shown as `[/]`; a null pointer and an absent requiredBy are left out.
 */
export function reportTextLines(report: ValidationReport, options: Omit<TextOptions, 'color'>): TextLine[] {
  const cwd = options.cwd ?? process.cwd()
  const lines: TextLine[] = []
  for (const problem of report.problems) {
    if (options.errorsOnly && problem.severity !== 'error') continue
    lines.push(diagnosticLine(problem))
    const position = positionOf(problem)
    if (position !== null || problem.path !== undefined) lines.push(`  at ${displayPath(problemFile(report, problem), cwd)}${position === null ? '' : `:${position}`}`)
  }
  if (!options.errorsOnly) lines.push(summaryLine(report, cwd))
  return lines
}

/** `<severity> <code>: <message> [<pointer>] (<requiredBy>)` for one diagnostic, the severity styled. */
export function diagnosticLine(problem: Diagnostic): PartsLine {
  let rest = ` ${problem.code}: ${problem.message}`
  if (problem.pointer !== null) rest += ` [${pointerText(problem.pointer)}]`
  if (problem.requiredBy !== undefined) rest += ` (${problem.requiredBy})`
  return line(styled(problem.severity, problem.severity), rest)
}

/** A JSON pointer for people: the root `""` reads as `/`. */
export function pointerText(pointer: string): string {
  return pointer === '' ? '/' : pointer
}

function positionOf(problem: Diagnostic): string | null {
  if (problem.line === null) return null
  return problem.column === null ? `${problem.line}` : `${problem.line}:${problem.column}`
}
