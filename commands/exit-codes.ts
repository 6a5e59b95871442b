import {SvcPluginError, isSvcPluginError} from '../src/errors.js'

/** Exit statuses shared by every command (DESIGN §10). */
export const ExitCode = {
  success: 0,
  invalid: 1,
  usage: 2,
  unreadable: 3,
  cancelled: 4,
  internal: 70,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** Codes that mean the command line was wrong or would destroy something: exit 2. */
const usageCodes = new Set<string>([
  'usage',
  'too-many-selectors',
  'unknown-level',
  'output-exists',
  'invalid-argument',
  'merge-needs-two',
  'package-format-unsupported',
  'invalid-key-name',
  'invalid-root-key-id',
  'invalid-validity',
  'invalid-signer',
  'invalid-revocation',
])

/** Codes that mean the input could not be read at all: exit 3. */
const unreadableCodes = new Set<string>([
  'file-not-found',
  'unreadable',
  'not-an-artifact',
  'package-unreadable-file',
  'trust-store-unreadable',
  'key-unreadable',
  'revocation-list-unreadable',
])

/** Codes that mean the user interrupted the work: exit 4. */
const cancelledCodes = new Set<string>(['cancelled'])

/**
 * The one table from an outcome to an exit status. Every coded error not listed as usage,
 * unreadable or cancelled means the subject was judged and refused: exit 1. Anything
 * uncoded is a bug in this tool: exit 70.
 */
export function exitCodeFor(error: unknown): ExitCode {
  if (!isSvcPluginError(error)) return ExitCode.internal
  if (usageCodes.has(error.code)) return ExitCode.usage
  if (unreadableCodes.has(error.code)) return ExitCode.unreadable
  if (cancelledCodes.has(error.code)) return ExitCode.cancelled
  return ExitCode.invalid
}

/**
 * The exit status of a refused verification, from its deciding problem: for an archive the reader
 * refused, by the reader's code (a file that is missing or not a ZIP is unreadable, 3; a hostile one is
 * invalid, 1); otherwise by the problem's code (an unsupported format is 2; every other refusal is 1).
 */
export function exitCodeForProblem(problem: {code: string; message: string; archiveCode?: string}): ExitCode {
  const code = problem.code === 'package-unreadable' && problem.archiveCode !== undefined ? problem.archiveCode : problem.code
  return exitCodeFor(new SvcPluginError(code, problem.message))
}
