/**
 * Defects the fuzzer has found that are not fixed yet. The seeded sample in `npm test` tolerates these
 * (and only these) so that it stays green while they are open, and `npm run fuzz` marks their findings
 * as open defects. Each that a test can hold has a regression case in `regressions.todo.ts`: once the
 * defect is fixed, delete its entry here and turn its regression on.
 */
import type {Finding} from './oracle.js'

/** What a defect is recognised by. */
type Recognisable = Pick<Finding, 'kind' | 'signature' | 'message' | 'input'>

/** One open defect and how to recognise its findings. */
export interface KnownDefect {
  /** The regression case's name in regressions.todo.ts, or a name of its own when no test can hold it. */
  id: string
  description: string
  matches(finding: Recognisable): boolean
}

export const knownDefects: readonly KnownDefect[] = [
  {
    id: 'merge of an unsigned input holding a signing file its files[] does not list',
    description: 'merge throws a TypeError from its payload plan when an unsigned input carries an undeclared certificate.* or issuer.* entry',
    matches: (finding) => finding.kind === 'crash' && finding.signature.includes('at unionPayload ('),
  },
  {
    // No regression case: only a timing assertion could hold it. jsonc-parser's scanner, which finds the
    // positions of diagnostics, appends a whitespace run to a string one character at a time.
    id: 'seconds to validate a manifest of several MiB of whitespace',
    description: 'a manifest near the 8 MiB limit that is mostly whitespace takes 1-3 s per validation when a diagnostic needs a position (a malformed one always), over 5 s on a busy machine',
    matches: (finding) => finding.kind === 'hang' && /^hang (validateManifest|readManifest)/.test(finding.signature) && finding.input.length > 4 * 1024 * 1024,
  },
]

/** The open defect a finding belongs to, if any. */
export function knownDefectOf(finding: Recognisable): KnownDefect | undefined {
  return knownDefects.find((defect) => defect.matches(finding))
}

/** Findings that belong to no open defect: what a seeded sample must not produce. */
export function unexpectedFindings<T extends Recognisable>(findings: readonly T[]): T[] {
  return findings.filter((finding) => knownDefectOf(finding) === undefined)
}
