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
    id: 'merge of an unsigned input holding a signing file its files[] does not list',
    description: 'merge throws a TypeError from its payload plan when an unsigned input carries an undeclared certificate.* or issuer.* entry',
    matches: (finding) => finding.kind === 'crash' && finding.signature.includes('at unionPayload ('),
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
