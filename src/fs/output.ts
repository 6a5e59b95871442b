import {lstat, mkdir, open, rm, rmdir, stat} from 'node:fs/promises'
import path from 'node:path'
import {SvcPluginError} from '../errors.js'

/**
 * Why an output file was not written:
 * - `output-exists`: a file is already there and replacing it was not asked for (or is never done).
 * - `write-failed`: the file or its folder cannot be written: a folder where the file should be, a file
 *   where a folder should be, no permission, a read-only or full disk. `details.reason` is the system's
 *   error code (`EISDIR`, `ENOTDIR`, `EACCES`, …).
 */
export type OutputErrorCode = 'output-exists' | 'write-failed'

/** Thrown when an output cannot be written; it names the output, never a temporary file beside it. */
export class OutputError extends SvcPluginError<OutputErrorCode> {}

/** The system's reason a write failed, in words a user can act on. */
export function describeWriteFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'ENOENT':
      return 'its folder does not exist'
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file stands where a folder is needed on its path'
    case 'EISDIR':
      return 'it is a folder'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'ENOSPC':
      return 'the disk is full'
    case 'EDQUOT':
      return 'the disk quota is used up'
    case 'ENAMETOOLONG':
      return 'the path is too long'
    default:
      return code ?? (error instanceof Error ? error.message : String(error))
  }
}

/** The `write-failed` error for `target`, whatever file the system call was about. */
export function writeFailed(target: string, error: unknown): OutputError {
  if (error instanceof OutputError) return error
  const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown'
  return new OutputError('write-failed', `${target} cannot be written: ${describeWriteFailure(error)}.`, {cause: error, details: {path: target, reason}})
}

/**
 * Creates the output folder `dir` and any missing parents. Returns the first folder it created (to
 * tell the user once), or null when `dir` already existed. A failure names `output` (the file the
 * folder is for), when given.
 */
export async function createOutputFolder(dir: string, output = dir): Promise<string | null> {
  try {
    return (await mkdir(path.resolve(dir), {recursive: true})) ?? null
  } catch (error) {
    throw writeFailed(output, error)
  }
}

/**
 * Removes the folders {@link createOutputFolder} created for `dir` (from `dir` up to `created`), as
 * long as they are empty: after a refusal, nothing is left behind, not even a folder.
 */
export async function removeCreatedFolders(dir: string, created: string | null): Promise<void> {
  if (created === null) return
  const top = path.resolve(created)
  for (let current = path.resolve(dir); current.startsWith(top); current = path.dirname(current)) {
    if (!(await rmdir(current).then(() => true, () => false))) return
    if (current === top) return
  }
}

/**
 * Where an output goes when the user named `output`: an existing folder, or a path ending in a
 * separator (`dist/`), means "the file `name` in that folder"; anything else is the file itself.
 */
export async function resolveOutputFile(output: string, name: string, cwd = process.cwd()): Promise<string> {
  const resolved = path.resolve(cwd, output)
  if (/[\\/]$/.test(output)) return path.join(resolved, name)
  const isFolder = await stat(resolved).then(
    (stats) => stats.isDirectory(),
    () => false,
  )
  return isFolder ? path.join(resolved, name) : resolved
}

/** What to do about an output that exists, unless the caller says better. */
const keepExisting = 'it is never overwritten. Choose another output or remove it first'

/**
 * The refusal for an output path that something already holds: `write-failed` when it is a folder,
 * `output-exists` (with `advice`, e.g. how to replace it) otherwise.
 */
export async function outputTaken(output: string, advice = keepExisting, cause?: unknown): Promise<OutputError> {
  const isFolder = await stat(output).then(
    (stats) => stats.isDirectory(),
    () => false,
  )
  if (isFolder) return new OutputError('write-failed', `${output} cannot be written: it is a folder.`, {cause, details: {path: output, reason: 'EISDIR'}})
  return new OutputError('output-exists', `${output} already exists; ${advice}.`, {cause, details: {path: output}})
}

/**
 * Refuses an output path that is a folder (`write-failed`), or that exists at all (a file, a link, even
 * a dangling one) unless `replace` was asked for (`output-exists`, with `advice`).
 */
export async function checkOutputFree(output: string, options: {replace?: boolean; advice?: string} = {}): Promise<void> {
  const exists = await lstat(output).then(
    () => true,
    () => false,
  )
  if (!exists) return
  const taken = await outputTaken(output, options.advice)
  if (taken.code === 'write-failed' || options.replace !== true) throw taken
}

/**
 * Creates `file` with `content` and `mode`, never replacing anything (`output-exists`, also for a
 * symbolic link planted there). The mode is given to open(2), so a private key is never readable by
 * others, not even briefly. On failure nothing is left behind.
 */
export async function writeNewFile(file: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
  let handle
  try {
    handle = await open(file, 'wx', mode)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw await outputTaken(file, keepExisting, error)
    throw writeFailed(file, error)
  }
  try {
    await handle.writeFile(content)
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => undefined)
    handle = undefined
    await rm(file, {force: true})
    throw writeFailed(file, error)
  } finally {
    await handle?.close()
  }
}
