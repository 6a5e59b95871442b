import {
  isSvcPluginError,
  type ArchiveErrorCode,
  type InputFileErrorCode,
  type InputKindErrorCode,
  type InitErrorCode,
  type DevelopErrorCode,
  type InspectErrorCode,
  type InstallErrorCode,
  type MergeErrorCode,
  type ModelErrorCode,
  type OutputErrorCode,
  type PackErrorCode,
  type ReproduceCode,
  type RevocationErrorCode,
  type SigningErrorCode,
  type StoreErrorCode,
  type ValidationErrorCode,
} from '#cli'

/** Exit statuses shared by every command. */
export const ExitCode = {
  /** Success, warnings allowed. */
  success: 0,
  /** The subject was judged and refused. */
  invalid: 1,
  /** The command line was wrong, or it would destroy something (an output that exists). */
  usage: 2,
  /** An input cannot be read: missing, not a regular file, not a ZIP. */
  unreadable: 3,
  /** Interrupted (Ctrl-C, SIGTERM). */
  cancelled: 4,
  /** An output cannot be written: an output path or the data root (permissions, disk full, not a directory). */
  unwritable: 5,
  /** A bug in this tool. */
  internal: 70,
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** The command line's own codes: parsing, dispatch, interruption. */
export type CommandErrorCode = 'usage' | 'unknown-command' | 'unknown-flag' | 'cancelled' | 'internal'

/** Every code an error of this toolchain can carry. */
export type ErrorCode =
  | ArchiveErrorCode
  | InputFileErrorCode
  | InputKindErrorCode
  | OutputErrorCode
  | InstallErrorCode
  | SigningErrorCode
  | RevocationErrorCode
  | PackErrorCode
  | ReproduceCode
  | MergeErrorCode
  | StoreErrorCode
  | ValidationErrorCode
  | InspectErrorCode
  | InitErrorCode
  | DevelopErrorCode
  | ModelErrorCode
  | 'lock-timeout'
  | CommandErrorCode

const {invalid, usage, unreadable, cancelled, unwritable} = ExitCode

/**
 * The one table from a code to its exit status. It is typed over every error-code union, so a new code does
 * not compile until it is classified here, and an entry for a code that no longer exists does not compile
 * either. A code means one thing everywhere it occurs (`file-not-found` is 3 for every command).
 */
const exitStatusOf: {readonly [code in ErrorCode]: ExitCode} = {
  // The command line.
  usage,
  'unknown-command': usage,
  'unknown-flag': usage,
  cancelled,
  internal: ExitCode.internal,
  // Inputs that cannot be read.
  'file-not-found': unreadable,
  'not-a-regular-file': unreadable,
  unreadable,
  // A path of another kind than the command or flag takes (told by its content): it cannot be read as that kind.
  'not-an-artifact': unreadable,
  'not-a-manifest': unreadable,
  'not-a-folder': unreadable,
  'data-root-not-found': unreadable,
  'trust-store-unreadable': unreadable,
  'key-unreadable': unreadable,
  'certificate-unreadable': unreadable,
  'revocation-list-unreadable': unreadable,
  // Outputs that cannot be written, or that exist.
  'output-exists': usage,
  'write-failed': unwritable,
  'io-error': unwritable,
  // Refusals of the package itself.
  'secret-detected': invalid,
  'level-not-met': invalid,
  // A rebuild that differs from the artifact it was compared with.
  'not-reproduced': invalid,
  'unsafe-data-root': unwritable,
  // Arguments that are not usable.
  'too-many-selectors': usage,
  'invalid-argument': usage,
  'data-root-inside-plugin': usage,
  'merge-needs-two': usage,
  'invalid-key-name': usage,
  'invalid-root-key-id': usage,
  'invalid-key-usage': usage,
  'invalid-validity': usage,
  'invalid-signer': usage,
  'invalid-revocation': usage,
  'trust-store-invalid': usage,
  'invalid-version': usage,
  'invalid-range': usage,
  'invalid-entrypoint': usage,
  // The archive was judged and refused.
  'unsafe-entry': invalid,
  'limit-exceeded': invalid,
  'archive-malformed': invalid,
  'archive-unsupported': invalid,
  'source-changed': invalid,
  // The manifest or the content was judged and refused.
  'manifest-invalid': invalid,
  'manifest-missing': invalid,
  'manifest-malformed': invalid,
  'file-missing': invalid,
  'file-size-mismatch': invalid,
  'file-digest-mismatch': invalid,
  'undeclared-file': invalid,
  'hash-mismatch': invalid,
  'source-entry-rejected': invalid,
  'identity-mismatch': invalid,
  'manifest-mismatch': invalid,
  'duplicate-rid': invalid,
  'file-conflict': invalid,
  // Installation refused.
  incompatible: invalid,
  'id-mismatch': invalid,
  'version-mismatch': invalid,
  'artifact-digest-mismatch': invalid,
  'entrypoint-missing': invalid,
  'already-installed': invalid,
  'consent-required': invalid,
  'unsigned-not-permitted': invalid,
  'signature-invalid': invalid,
  'signature-untrusted': invalid,
  'signature-revoked': invalid,
  'publisher-changed': invalid,
  'store-signature-missing': invalid,
  'store-signature-invalid': invalid,
  'upload-refused': invalid,
  'trust-downgrade': invalid,
  'not-installed': invalid,
  'version-not-installed': invalid,
  'dependency-in-use': invalid,
  'lock-timeout': invalid,
  // Keys, certificates, signing and revocation refused.
  'key-invalid': invalid,
  'key-mismatch': invalid,
  'certificate-untrusted': invalid,
  'certificate-malformed': invalid,
  'certificate-wrong-purpose': invalid,
  'certificate-issuer-missing': invalid,
  'certificate-issuer-mismatch': invalid,
  'certificate-outlives-issuer': invalid,
  'chain-too-long': invalid,
  'certificate-not-yet-valid': invalid,
  'certificate-expired': invalid,
  'already-signed': invalid,
  'signature-malformed': invalid,
  'invalid-digest-input': invalid,
  'publisher-mismatch': invalid,
  'self-verification-failed': invalid,
  'signer-failed': invalid,
  'statement-malformed': invalid,
  'statement-mismatch': invalid,
  'signature-unreadable': unreadable,
  'revocation-list-invalid': invalid,
  'revocation-list-stale': invalid,
  'revocation-list-rollback': invalid,
  'already-revoked': invalid,
}

/** The exit status of a thrown error: by its code for one of ours, 70 for anything else (a bug). */
export function exitCodeFor(error: unknown): ExitCode {
  if (!isSvcPluginError(error)) return ExitCode.internal
  return Object.hasOwn(exitStatusOf, error.code) ? exitStatusOf[error.code as ErrorCode] : ExitCode.internal
}

/**
 * The exit status of a refused verification or upload, from its deciding problem: a problem is a judgment
 * (1), except an archive the reader could not open at all, which takes its archive code's status (a missing
 * file or not a ZIP is 3), and an archive format this tool does not read (2).
 */
export function exitCodeForProblem(problem: {code: string; archiveCode?: string}): ExitCode {
  if (problem.code === 'package-format-unsupported') return ExitCode.usage
  if (problem.archiveCode !== undefined && Object.hasOwn(exitStatusOf, problem.archiveCode)) return exitStatusOf[problem.archiveCode as ErrorCode]
  return ExitCode.invalid
}

/** The exit status of a run over several subjects: the worst of theirs (the highest). */
export function worstExitCode(statuses: readonly ExitCode[]): ExitCode {
  return statuses.reduce<ExitCode>((worst, status) => (status > worst ? status : worst), ExitCode.success)
}

/** Every error code, for the pages that explain each one. */
export const errorCodes = Object.keys(exitStatusOf) as ErrorCode[]

/** The exit status a command ends with when it stops on `code`. */
export function exitStatusOfCode(code: ErrorCode): ExitCode {
  return exitStatusOf[code]
}
