import {constants, type Stats} from 'node:fs'
import {open, stat, type FileHandle} from 'node:fs/promises'
import {SvcPluginError} from '../errors.js'

/**
 * Reading the files a user names as input (a manifest, an artifact, a key, a certificate, a trust store, a
 * revocation list): only regular files, and never a wait. A FIFO opened for reading blocks in open(2) until
 * a writer appears (and Ctrl-C cannot interrupt that wait), a character device may never end: so the type
 * is checked before opening, the open is non-blocking, and the type is checked again on the descriptor, in
 * case the path was swapped in between.
 */

/** Why an input file cannot be read. */
export type InputFileErrorCode = 'file-not-found' | 'not-a-regular-file' | 'unreadable'

/** Thrown by {@link openInputFile} and {@link readInputFile}; `details.path` names the file, `details.type` what it is. */
export class InputFileError extends SvcPluginError<InputFileErrorCode> {}

const openFlags = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/** What kind of file `stats` describes, in words a message can use. */
export function fileTypeOf(stats: Stats): 'file' | 'directory' | 'fifo' | 'socket' | 'character device' | 'block device' | 'symbolic link' | 'special file' {
  if (stats.isFile()) return 'file'
  if (stats.isDirectory()) return 'directory'
  if (stats.isFIFO()) return 'fifo'
  if (stats.isSocket()) return 'socket'
  if (stats.isCharacterDevice()) return 'character device'
  if (stats.isBlockDevice()) return 'block device'
  if (stats.isSymbolicLink()) return 'symbolic link'
  return 'special file'
}

function notRegular(file: string, stats: Stats): InputFileError {
  const type = fileTypeOf(stats)
  const what = type === 'directory' ? 'a directory' : type === 'fifo' ? 'a FIFO (named pipe)' : `a ${type}`
  return new InputFileError('not-a-regular-file', `${file} is ${what}, not a regular file.`, {details: {path: file, type}})
}

/** The error for a failed stat or open of `file`. */
export function inputError(file: string, error: unknown): InputFileError {
  if (error instanceof InputFileError) return error
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (code === 'ENOENT' || code === 'ENOTDIR') return new InputFileError('file-not-found', `${file} does not exist.`, {cause: error, details: {path: file}})
  if (code === 'EISDIR') return new InputFileError('not-a-regular-file', `${file} is a directory, not a regular file.`, {cause: error, details: {path: file, type: 'directory'}})
  const reason = error instanceof Error ? error.message : String(error)
  return new InputFileError('unreadable', `${file} cannot be read: ${reason}`, {cause: error, details: {path: file, errno: code ?? null}})
}

/** Opens a regular input file for reading without ever blocking; the caller closes the handle. */
export async function openInputFile(file: string): Promise<{handle: FileHandle; stats: Stats}> {
  let handle: FileHandle
  try {
    const before = await stat(file)
    if (!before.isFile()) throw notRegular(file, before)
    handle = await open(file, openFlags)
  } catch (error) {
    throw inputError(file, error)
  }
  try {
    const stats = await handle.stat()
    if (!stats.isFile()) throw notRegular(file, stats)
    return {handle, stats}
  } catch (error) {
    await handle.close().catch(() => undefined)
    throw inputError(file, error)
  }
}

/**
 * Reads a regular input file, at most `limit` bytes (default: all of it): `bytes` is the file or its first
 * `limit` bytes, `size` the file's size, so a caller can refuse a file that is too large with its own words.
 */
export async function readInputFile(file: string, options: {limit?: number} = {}): Promise<{bytes: Buffer; size: number}> {
  const {handle, stats} = await openInputFile(file)
  try {
    const length = Math.min(stats.size, options.limit ?? Number.POSITIVE_INFINITY)
    const bytes = Buffer.alloc(length)
    let filled = 0
    while (filled < length) {
      const {bytesRead} = await handle.read(bytes, filled, length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return {bytes: filled === length ? bytes : bytes.subarray(0, filled), size: stats.size}
  } catch (error) {
    throw inputError(file, error)
  } finally {
    await handle.close().catch(() => undefined)
  }
}
