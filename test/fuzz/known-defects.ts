/**
 * Defects the fuzzer has found that are not fixed yet. The seeded sample in `npm test` tolerates these
 * (and only these) so that it stays green while they are open, and `npm run fuzz` marks their findings
 * as open defects. Each that a test can hold gets a regression case in the test file of its area; once the
 * defect is fixed, delete its entry here.
 */
import type {Finding} from './oracle.js'

/** What a defect is recognised by. */
type Recognisable = Pick<Finding, 'kind' | 'signature' | 'message' | 'input'>

/** One open defect and how to recognise its findings. */
export interface KnownDefect {
  /** The regression case's name, or a name of its own when no test can hold it. */
  id: string
  description: string
  matches(finding: Recognisable): boolean
}

export const knownDefects: readonly KnownDefect[] = []

/** The open defect a finding belongs to, if any. */
export function knownDefectOf(finding: Recognisable): KnownDefect | undefined {
  return knownDefects.find((defect) => defect.matches(finding))
}

/** Findings that belong to no open defect: what a seeded sample must not produce. */
export function unexpectedFindings<T extends Recognisable>(findings: readonly T[]): T[] {
  return findings.filter((finding) => knownDefectOf(finding) === undefined)
}
