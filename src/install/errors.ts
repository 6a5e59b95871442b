import {ArchiveError, type ArchiveErrorCode} from '../archive/errors.js'
import {SvcPluginError, isSvcPluginError} from '../errors.js'
import {LockError} from '../fs/lock.js'

/** Archive codes an install passes through unchanged (the ArchiveError is kept as `cause`). */
export type ArchivePassThroughCode = Exclude<ArchiveErrorCode, 'source-changed' | 'output-exists' | 'write-failed'>

/**
 * Why a signature was refused: the artifact is malformed, its signature does not verify or its content
 * does not match (`signature-invalid`); it does not chain to a trusted root, its certificate is for another
 * purpose or was not valid when it signed (`signature-untrusted`); or a revocation list revokes it
 * (`signature-revoked`).
 */
export type SignatureRefusalCode = 'signature-invalid' | 'signature-untrusted' | 'signature-revoked'

/** Why an install, uninstall, activation or installed-version lookup was refused. */
export type InstallErrorCode =
  | ArchivePassThroughCode
  /** `protocol` or `svc` compatibility failed; `details.direction` is `host-too-old` or `host-too-new`. */
  | 'incompatible'
  /** The manifest failed development-level validation; `details.problems` holds the report's problems. */
  | 'manifest-invalid'
  /** The manifest's id is not the one the caller expected. */
  | 'id-mismatch'
  /** The manifest's version is not the one the caller expected. */
  | 'version-mismatch'
  /** The artifact file's SHA-256 is not the one the caller expected. */
  | 'artifact-digest-mismatch'
  /** The executable the host would start (its runtime identifier's entrypoint, or the fallback) is not in the artifact. */
  | 'entrypoint-missing'
  /** The artifact has no manifest.json at its root (the same code `validate` and `inspect` give). */
  | 'manifest-missing'
  /** This version is already installed and `force` was not given. */
  | 'already-installed'
  /** The extracted bytes disagree with `files[]`; `details.problems` lists each file. */
  | 'hash-mismatch'
  /** The artifact is unsigned and `allowUnsigned` was not given. */
  | 'unsigned-not-permitted'
  /** The signature was refused (`details.verdict`, `details.reason`): see {@link SignatureRefusalCode}. */
  | SignatureRefusalCode
  /** A Trusted update is signed by another certificate subject than the one the plugin was admitted from. */
  | 'publisher-changed'
  /** The plugin was admitted with more trust before; this version would lower it. */
  | 'trust-downgrade'
  /** No version of this plugin is installed. */
  | 'not-installed'
  /** The plugin is installed, but not in the requested version (or no version is active). */
  | 'version-not-installed'
  /** Another installed plugin depends on this one; `details.dependents` names them. */
  | 'dependency-in-use'
  /** Another operation held the plugin's lock for longer than the caller would wait. */
  | 'lock-timeout'
  /** An argument is not usable (a plugin id or version that is not one, an option out of range). */
  | 'invalid-argument'
  /** The file system refused a read or write in the data root; `details` names the path and the errno code. */
  | 'io-error'
  /**
   * A directory the installer works through (`plugins`, `_staging`, `plugins/<id>`, `versions`, `data`) is
   * a symbolic link, a file or anything else but a real directory; `details.path` names it and
   * `details.found` says what it is. The installer never follows it (see docs/data-root.md).
   */
  | 'unsafe-data-root'
  /**
   * The data root does not exist: list, activate, uninstall and verifyInstalled never create one (only an
   * install does), so a mistyped path is said to be one instead of reading as a data root with nothing in it.
   */
  | 'data-root-not-found'

/** Thrown by `install`, `uninstall`, `activate`, `verifyInstalled` and `listInstalled`; nothing half-done is left behind. */
export class InstallError extends SvcPluginError<InstallErrorCode> {}

/** Wraps a Node file-system error met in the data root as `io-error`, keeping it as `cause`. */
export function ioError(error: unknown, action: string): InstallError {
  if (error instanceof InstallError) return error
  const {code, path: file, syscall} = (error ?? {}) as NodeJS.ErrnoException
  const reason = error instanceof Error ? error.message : String(error)
  return new InstallError('io-error', `Could not ${action}: ${reason}`, {
    cause: error,
    details: {errno: code ?? null, path: file ?? null, syscall: syscall ?? null},
  })
}

/**
 * The error an installer function throws: ours as they are, an archive error passed through with its own
 * code (and kept as `cause`), a file-system error as `io-error`; any other coded error unchanged.
 */
export function asInstallError(error: unknown): Error {
  if (error instanceof InstallError) return error
  if (error instanceof LockError) return new InstallError(error.code, error.message, {cause: error, details: {...error.details}})
  if (error instanceof ArchiveError && isPassThroughCode(error.code)) {
    return new InstallError(error.code, error.message, {cause: error, details: {...error.details}})
  }
  if (isSvcPluginError(error)) return error
  const errno = error as NodeJS.ErrnoException | null
  if (typeof errno === 'object' && errno !== null && typeof errno.code === 'string' && typeof errno.syscall === 'string') {
    return ioError(error, 'complete the operation')
  }
  return error instanceof Error ? error : new Error(String(error))
}

const passThroughCodes: ReadonlySet<string> = new Set<ArchivePassThroughCode>([
  'not-an-artifact',
  'file-not-found',
  'unreadable',
  'unsafe-entry',
  'limit-exceeded',
  'archive-malformed',
  'archive-unsupported',
])

function isPassThroughCode(code: string): code is ArchivePassThroughCode {
  return passThroughCodes.has(code)
}
