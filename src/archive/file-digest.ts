import {createHash} from 'node:crypto'
import {readSync} from 'node:fs'
import {isCancellation, throwIfCancelled} from '../cancellation.js'
import {ArchiveError} from './errors.js'
import {readAt} from './fd.js'

/** `length` bytes of a file from offset `start`. */
export interface ByteRange {
  start: number
  length: number
}

/** A digest being computed in the background; `stop()` ends it, and resolves once no read of it is in flight. */
export interface FileDigest {
  /** 64 lowercase hex digits of SHA-256; rejects with an ArchiveError when the file cannot be read to its end. */
  readonly sha256: Promise<string>
  stop(): Promise<void>
}

// A file up to this size is read at once with synchronous reads (less than a millisecond of hashing): a trip
// to the thread pool would cost more. A larger one is read in order on the thread pool, one piece ahead, and
// each piece is hashed as it arrives, while the entries are read and inflated; no worker thread is started
// (measured: one adds 20 to 30 MiB of resident memory and tens of milliseconds of start-up).
const inThreadMaxBytes = 1024 * 1024
const pieceBytes = 1024 * 1024

/**
 * Starts computing SHA-256 of the first `size` bytes of the open descriptor `fd`, each byte of `zeroed`
 * counted as 0x00 (every range must lie inside the file). The descriptor must stay open until the digest
 * settles or `stop()` resolves. Once `signal` is aborted, the digest rejects with its `AbortError` before the next piece.
 */
export function startFileDigest(fd: number, size: number, zeroed: readonly ByteRange[], signal?: AbortSignal): FileDigest {
  for (const range of zeroed) {
    if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.length) || range.start < 0 || range.length < 0 || range.start + range.length > size) {
      throw new RangeError(`The range of ${range.length} bytes at ${range.start} does not lie inside the ${size}-byte file.`)
    }
  }
  const hash = createHash('sha256')
  if (size <= inThreadMaxBytes) {
    const sha256 = new Promise<string>((resolve) => {
      throwIfCancelled(signal)
      const bytes = readPiece(fd, 0, size, readSync)
      resolve(hash.update(zeroPiece(bytes, 0, zeroed)).digest('hex'))
    })
    return withReadError({sha256, stop: () => sha256.then(() => undefined, () => undefined)})
  }
  let stopped = false
  const sha256 = (async () => {
    let next = readAt(fd, Math.min(pieceBytes, size), 0)
    for (let position = 0; position < size && !stopped; ) {
      const bytes = await next
      throwIfCancelled(signal)
      if (bytes.length === 0) throw endOfFile(position, size)
      const end = position + bytes.length
      // One piece ahead: the next read waits on the thread pool while this one is hashed.
      if (end < size) next = readAt(fd, Math.min(pieceBytes, size - end), end)
      hash.update(zeroPiece(bytes, position, zeroed))
      position = end
    }
    if (stopped) {
      // Let the read in flight settle, so that the descriptor can be closed.
      await next.catch(() => undefined)
      throw new Error('The digest was stopped: the archive was closed.')
    }
    return hash.digest('hex')
  })()
  return withReadError({
    sha256,
    stop: async () => {
      stopped = true
      await sha256.catch(() => undefined)
    },
  })
}

/** `length` bytes at `position`, read with `read` until complete; the file ending first is the `endOfFile` error. */
function readPiece(fd: number, position: number, length: number, read: typeof readSync): Buffer {
  const buffer = Buffer.allocUnsafe(length)
  for (let filled = 0; filled < length; ) {
    const bytes = read(fd, buffer, filled, length - filled, position + filled)
    if (bytes === 0) throw endOfFile(position + filled, position + length)
    filled += bytes
  }
  return buffer
}

/** `bytes`, read from `position` of the file, with the parts of `zeroed` that fall in them set to zero. */
function zeroPiece(bytes: Buffer, position: number, zeroed: readonly ByteRange[]): Buffer {
  for (const range of zeroed) {
    const from = Math.max(range.start, position)
    const to = Math.min(range.start + range.length, position + bytes.length)
    if (from < to) bytes.fill(0, from - position, to - position)
  }
  return bytes
}

function endOfFile(position: number, size: number): Error & {endOfFile: number} {
  return Object.assign(new Error(`The file ended at byte ${position} of ${size}.`), {endOfFile: position})
}

/** The same digest, its failures as ArchiveErrors (a caller that never asks for the digest gets no unhandled rejection). */
function withReadError(digest: FileDigest): FileDigest {
  const sha256 = digest.sha256.catch((error: Error & {endOfFile?: number}) => {
    if (isCancellation(error)) throw error
    if (typeof error.endOfFile === 'number') {
      throw new ArchiveError('archive-malformed', `The archive ended at byte ${error.endOfFile} while it was hashed: it changed after it was opened.`, {reason: 'file-changed'}, {cause: error})
    }
    throw new ArchiveError('unreadable', `The archive could not be read to its end: ${error.message}`, {reason: 'io-error'}, {cause: error})
  })
  sha256.catch(() => undefined)
  return {sha256, stop: digest.stop}
}
