import type {Stats} from 'node:fs'
import {lstat, stat} from 'node:fs/promises'
import path from 'node:path'
import {hasErrno} from '../fs/durable.js'
import {InputFileError, readInputFile} from '../fs/input.js'
import {chmod, mkdir, rmdir} from '../fs/mutations.js'
import {InstallError} from './errors.js'
import {directoryModeOf, directoryModes} from './layout.js'

/** What stands where a real directory belongs. */
export type UnsafeEntryKind = 'symbolic-link' | 'file' | 'directory' | 'other'

/**
 * The path `<dataRoot>/<segments…>` after checking, level by level with lstat, that every level below the
 * data root is a real directory: a symbolic link (or a Windows junction) is never followed, a file is
 * never taken for a directory. Threat: a link planted at `plugins/_staging` (or `versions`, …) would
 * otherwise make the installer write, rename and delete inside whatever it points to.
 *
 * A missing level is created when `create` is set, with its mode ({@link directoryModeOf}), and so is
 * the data root with its missing parents (0755); otherwise the result is null. Callers check right
 * before they change anything inside the directory, so that a level replaced by a link since an earlier
 * check is caught too. Node has no directory-relative calls (openat, renameat), so a link swapped in
 * between this check and the change that follows it is not ruled out; the installer limits what such a
 * race could reach by removing only names it creates itself (docs/data-root.md).
 *
 * The data root itself is the host's choice and may be reached through a link. Throws `unsafe-data-root`.
 */
export async function realDirectory(dataRoot: string, segments: readonly string[], options: {create?: boolean} = {}): Promise<string | null> {
  const root = path.resolve(dataRoot)
  let dir = root
  for (const [depth, segment] of segments.entries()) {
    dir = path.join(dir, segment)
    let info = await lstatOrNull(dir)
    if (info === null) {
      if (options.create !== true) return null
      if (depth === 0) await createDataRoot(root)
      await createDirectory(dir, directoryModeOf(segments.slice(0, depth + 1)))
      info = await lstat(dir)
    }
    if (!info.isDirectory()) throw unsafeDataRoot(dir, info)
  }
  return dir
}

/**
 * Creates the directory `dir` with exactly `mode`, whatever the umask: made with it, then set to it (the
 * umask may have narrowed it). A directory someone else created first is left as it is.
 */
export async function createDirectory(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, {mode})
  } catch (error) {
    if (hasErrno(error, 'EEXIST')) return
    throw error
  }
  await chmod(dir, mode)
}

/**
 * Removes the directory `<dataRoot>/<segments…>` when it is empty and a real directory; leaves it
 * otherwise (something in it, a link, gone already). Never throws for those: it runs in clean-up paths.
 */
export async function removeDirectoryIfEmpty(dataRoot: string, segments: readonly string[]): Promise<void> {
  try {
    const dir = await realDirectory(dataRoot, segments)
    if (dir !== null) await rmdir(dir)
  } catch (error) {
    if (error instanceof InstallError || hasErrno(error, 'ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR', 'EBUSY', 'EPERM')) return
    throw error
  }
}

/**
 * Refuses a data root that does not exist (`data-root-not-found`) or is not a directory (`unsafe-data-root`),
 * for the operations that read or change what is installed: only an install creates a data root. The data
 * root itself may be reached through a link.
 */
export async function requireDataRoot(dataRoot: string): Promise<void> {
  const info = await stat(dataRoot).catch((error: unknown) => {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return null
    throw error
  })
  if (info === null) {
    throw new InstallError('data-root-not-found', `The data root ${dataRoot} does not exist: nothing was ever installed there (an install creates it).`, {details: {path: dataRoot}})
  }
  if (!info.isDirectory()) throw unsafeDataRoot(dataRoot, info)
}

/** {@link realDirectory} that must exist or be created: never null. */
export async function ensureRealDirectory(dataRoot: string, segments: readonly string[]): Promise<string> {
  return (await realDirectory(dataRoot, segments, {create: true})) as string
}

/**
 * Throws `unsafe-data-root` when something stands at `target` that is not a real directory (a symbolic link,
 * a FIFO, a device; a regular file too, unless `fileAllowed`): for a name inside a level, where only the
 * installer puts directories (a version directory, the plugin's lock).
 */
export async function assertDirectoryOrAbsent(target: string, options: {fileAllowed?: boolean} = {}): Promise<void> {
  const info = await lstatOrNull(target)
  if (info === null || info.isDirectory() || (options.fileAllowed === true && info.isFile())) return
  throw unsafeDataRoot(target, info)
}

/**
 * The `unsafe-data-root` refusal for `target`, which is not a real directory: also what a lock of the data
 * root refuses when its path holds what is never a lock (`unusable` of `acquireLock`).
 */
export function unsafeDataRoot(target: string, info: Stats): InstallError {
  const found = kindOf(info)
  return new InstallError('unsafe-data-root', `${target} is ${descriptions[found]}, not a directory; the installer does not work through it. Move it away and retry.`, {
    details: {path: target, found},
  })
}

/** The most a data-root state file (`current.json`, `trust.json`, `.transaction.json`) holds; none comes near. */
export const maxStateFileBytes = 16 * 1024 * 1024

/**
 * The text of a state file the installer keeps in the data root, or null when there is none. Only a regular
 * file is read, and never with a wait: a FIFO where a state file belongs would block the read until a
 * writer comes (and no signal ends that wait), so it, a device or a directory there is `unsafe-data-root`,
 * naming the file. Of a file larger than `maxBytes` the first `maxBytes` + 1 bytes are read: no format of
 * ours parses from them, so the file counts as damaged, as one holding anything else that does not parse.
 */
export async function readStateFile(file: string, maxBytes: number = maxStateFileBytes): Promise<string | null> {
  try {
    const {bytes} = await readInputFile(file, {limit: maxBytes + 1})
    return bytes.toString('utf8')
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error
    if (error.code === 'file-not-found') return null
    if (error.code === 'not-a-regular-file') {
      const type = String(error.details['type'])
      throw new InstallError('unsafe-data-root', `${file} is ${type === 'fifo' ? 'a FIFO (named pipe)' : `a ${type}`}, not a file; the installer does not read through it. Move it away and retry.`, {
        details: {path: file, found: type === 'directory' ? 'directory' : 'other'},
      })
    }
    // Refused by the system (permissions, an I/O error): the error as it came.
    throw error.cause ?? error
  }
}

/** lstat, or null when nothing is there (a parent that is a file counts as nothing there). */
export async function lstatOrNull(target: string): Promise<Stats | null> {
  try {
    return await lstat(target)
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return null
    throw error
  }
}

const descriptions: Record<UnsafeEntryKind, string> = {'symbolic-link': 'a symbolic link', file: 'a file', directory: 'a directory', other: 'neither a file nor a directory'}

function kindOf(info: Stats): UnsafeEntryKind {
  if (info.isSymbolicLink()) return 'symbolic-link'
  if (info.isFile()) return 'file'
  return 'other'
}

/** Creates the data root and whichever of its parents are missing, one level at a time, each 0755. */
async function createDataRoot(root: string): Promise<void> {
  const missing: string[] = []
  for (let dir = root; (await lstatOrNull(dir)) === null; dir = path.dirname(dir)) {
    missing.unshift(dir)
    if (path.dirname(dir) === dir) break
  }
  for (const dir of missing) await createDirectory(dir, directoryModes.shared)
}
