import {createHash} from 'node:crypto'
import {readSync} from 'node:fs'
import {Worker} from 'node:worker_threads'
import {ArchiveError} from './errors.js'

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

// A file up to this size is hashed on the calling thread (about 6 ms for 8 MiB): a worker thread costs
// more than that to start. A larger one is read and hashed by a worker thread in file order, through the
// same descriptor, while the calling thread inflates and hashes the entries.
const inThreadMaxBytes = 8 * 1024 * 1024
const chunkBytes = 1024 * 1024

/**
 * Starts computing SHA-256 of the first `size` bytes of the open descriptor `fd`, each byte of `zeroed`
 * counted as 0x00 (every range must lie inside the file). The descriptor must stay open until the digest
 * settles or `stop()` resolves.
 */
export function startFileDigest(fd: number, size: number, zeroed: readonly ByteRange[]): FileDigest {
  for (const range of zeroed) {
    if (!Number.isSafeInteger(range.start) || !Number.isSafeInteger(range.length) || range.start < 0 || range.length < 0 || range.start + range.length > size) {
      throw new RangeError(`The range of ${range.length} bytes at ${range.start} does not lie inside the ${size}-byte file.`)
    }
  }
  const ranges = zeroed.map(({start, length}) => ({start, length}))
  if (size <= inThreadMaxBytes) {
    const sha256 = new Promise<string>((resolve) => resolve(digestZeroed((buffer, length, position) => readSync(fd, buffer, 0, length, position), createHash('sha256'), size, ranges, chunkBytes)))
    return withReadError({sha256, stop: () => sha256.then(() => undefined, () => undefined)})
  }
  return withReadError(inWorker(fd, size, ranges))
}

/**
 * Reads `size` bytes with `read` (which fills its buffer from the position given and returns the bytes
 * read) in file order, zeroes the ranges, and hashes them into `hash`; returns the hex digest. Self-contained:
 * a worker thread runs its source text as it is.
 */
function digestZeroed(
  read: (buffer: Buffer, length: number, position: number) => number,
  hash: {update(data: Uint8Array): unknown; digest(encoding: 'hex'): string},
  size: number,
  zeroed: readonly ByteRange[],
  chunk: number,
): string {
  const buffer = Buffer.allocUnsafe(Math.min(chunk, size))
  for (let position = 0; position < size; ) {
    const length = Math.min(chunk, size - position)
    let filled = 0
    while (filled < length) {
      const bytes = read(buffer.subarray(filled), length - filled, position + filled)
      if (bytes === 0) throw Object.assign(new Error(`The file ended at byte ${position + filled} of ${size}.`), {endOfFile: position + filled})
      filled += bytes
    }
    for (const range of zeroed) {
      const from = Math.max(range.start, position)
      const to = Math.min(range.start + range.length, position + length)
      if (from < to) buffer.fill(0, from - position, to - position)
    }
    hash.update(buffer.subarray(0, length))
    position += length
  }
  return hash.digest('hex')
}

/** The worker's program: {@link digestZeroed} over positioned reads of the shared descriptor. */
const workerSource = `
const {parentPort, workerData} = require('node:worker_threads')
const {readSync} = require('node:fs')
const {createHash} = require('node:crypto')
const digestZeroed = ${digestZeroed.toString()}
const {fd, size, zeroed, chunk} = workerData
try {
  parentPort.postMessage({sha256: digestZeroed((buffer, length, position) => readSync(fd, buffer, 0, length, position), createHash('sha256'), size, zeroed, chunk)})
} catch (error) {
  parentPort.postMessage({error: String(error && error.message), endOfFile: error && error.endOfFile, code: error && error.code})
}
`

function inWorker(fd: number, size: number, zeroed: readonly ByteRange[]): FileDigest {
  const worker = new Worker(workerSource, {eval: true, workerData: {fd, size, zeroed, chunk: chunkBytes}})
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()))
  const sha256 = new Promise<string>((resolve, reject) => {
    worker.once('message', (message: {sha256?: string; error?: string; endOfFile?: number; code?: string}) => {
      if (message.sha256 !== undefined) resolve(message.sha256)
      else reject(Object.assign(new Error(message.error), {endOfFile: message.endOfFile, code: message.code}))
    })
    worker.once('error', reject)
    void exited.then(() => reject(new Error('The digest was stopped.')))
  })
  return {
    sha256,
    stop: async () => {
      await worker.terminate()
      await exited
    },
  }
}

/** The same digest, its failures as ArchiveErrors (a caller that never asks for the digest gets no unhandled rejection). */
function withReadError(digest: FileDigest): FileDigest {
  const sha256 = digest.sha256.catch((error: Error & {endOfFile?: number}) => {
    if (typeof error.endOfFile === 'number') {
      throw new ArchiveError('archive-malformed', `The archive ended at byte ${error.endOfFile} while it was hashed: it changed after it was opened.`, {reason: 'file-changed'}, {cause: error})
    }
    throw new ArchiveError('unreadable', `The archive could not be read to its end: ${error.message}`, {reason: 'io-error'}, {cause: error})
  })
  sha256.catch(() => undefined)
  return {sha256, stop: digest.stop}
}
