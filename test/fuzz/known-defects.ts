/**
 * Defects the fuzzer has found that are not fixed yet. The seeded sample in `npm test` tolerates these
 * (and only these) so that it stays green while they are open; each has a regression case in
 * `regressions.todo.ts`. Once a defect is fixed, delete its entry here and turn its regression on.
 */
import type {Finding} from './oracle.js'

/** One open defect and how to recognise its findings. */
export interface KnownDefect {
  /** The regression case's name in regressions.todo.ts. */
  id: string
  description: string
  matches(finding: Pick<Finding, 'kind' | 'signature' | 'message'>): boolean
}

export const knownDefects: readonly KnownDefect[] = [
  {
    id: 'uniqueItems over objects with valueOf or toString members',
    description: 'validation throws a TypeError from the schema\'s uniqueItems comparison when `languages` holds equal objects with a `valueOf` or `toString` member',
    matches: (finding) => finding.kind === 'crash' && /\b(valueOf|toString) is not a function\b/.test(finding.message),
  },
  {
    id: 'a directory entry carrying bytes',
    description: 'a directory entry with compressed bytes that are never checked verifies Trusted',
    matches: (finding) => finding.signature === 'unsigned-mutation-verifies directoryData',
  },
  {
    id: 'an entry comment',
    description: 'a central-directory record with a file comment verifies Trusted',
    matches: (finding) => finding.signature === 'unsigned-mutation-verifies comments',
  },
  {
    id: 'an unknown or oversized extra field',
    description: 'an extra field of any id and length (local or central) verifies Trusted',
    matches: (finding) => finding.signature === 'unsigned-mutation-verifies extraFields',
  },
]

/** The open defect a finding belongs to, if any. */
export function knownDefectOf(finding: Pick<Finding, 'kind' | 'signature' | 'message'>): KnownDefect | undefined {
  return knownDefects.find((defect) => defect.matches(finding))
}

/** Findings that belong to no open defect: what a seeded sample must not produce. */
export function unexpectedFindings<T extends Pick<Finding, 'kind' | 'signature' | 'message'>>(findings: readonly T[]): T[] {
  return findings.filter((finding) => knownDefectOf(finding) === undefined)
}
