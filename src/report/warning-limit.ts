import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {plural} from '../quantities.js'

/** The code a run reports when its warnings exceed the most allowed (`validate --max-warnings`). */
export const tooManyWarnings = 'too-many-warnings'

/** How a run's warnings compare with the most it allows. */
export interface WarningLimit {
  /** The most warnings allowed. */
  limit: number
  /** The warnings of every subject of the run (notes are not counted). */
  warnings: number
  /** True when `warnings` is above `limit`: the run fails. */
  exceeded: boolean
}

/**
 * The run's warnings against `maxWarnings`, as ESLint's flag of that name counts them: every warning of every
 * subject, whatever is shown. Null when no limit applies (`maxWarnings` absent or negative).
 */
export function warningLimit(subjects: readonly SubjectResult[], maxWarnings: number | undefined): WarningLimit | null {
  if (maxWarnings === undefined || maxWarnings < 0) return null
  let warnings = 0
  for (const subject of subjects) if (!isSubjectFailure(subject)) for (const problem of subject.problems) if (problem.severity === 'warning') warnings += 1
  return {limit: maxWarnings, warnings, exceeded: warnings > maxWarnings}
}

/** `3 warnings found; --max-warnings 2 allows at most 2.`: the sentence every format carries. */
export function warningLimitMessage({limit, warnings}: WarningLimit): string {
  return `${plural(warnings, 'warning')} found; --max-warnings ${limit} allows ${limit === 0 ? 'none' : `at most ${limit}`}.`
}
