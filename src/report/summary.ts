import type {Severity} from '../manifest/diagnostic.js'
import type {ValidationReport} from '../manifest/report.js'
import {plural} from '../quantities.js'
import {displayPath} from './location.js'

/** How many diagnostics of each severity a report holds. */
export type ProblemCounts = Record<Severity, number>

/** Counts the report's diagnostics by severity. */
export function countProblems(report: ValidationReport): ProblemCounts {
  const counts: ProblemCounts = {error: 0, warning: 0, info: 0}
  for (const problem of report.problems) counts[problem.severity] += 1
  return counts
}

/**
 * The closing line of a text report: `<id> <version>: N errors, M warnings.`,
 * named after the manifest file when the id is unknown (the file did not parse, or the id is bad).
 */
export function summaryLine(report: ValidationReport, cwd: string): string {
  const {error, warning} = countProblems(report)
  const subject = report.pluginId === null ? displayPath(report.file, cwd) : [report.pluginId, report.version].filter((part) => part !== null).join(' ')
  return `${subject}: ${plural(error, 'error')}, ${plural(warning, 'warning')}.`
}

