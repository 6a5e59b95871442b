import {createHash, type Hash} from 'node:crypto'
import {Transform, type TransformCallback} from 'node:stream'
import zlib from 'node:zlib'
import {cancelledError} from '../cancellation.js'
import {ArchiveError} from './errors.js'
import {FdRangeStream, UnexpectedEndOfFile} from './fd.js'
import {quoteName} from './path-policy.js'
import type {ArchiveEntry, EntryDigest, EntryStream} from './types.js'

/**
 * Checks an entry's bytes as they pass: never more than the declared size (the
 * stream errors at the first byte past it, so a bomb is cut off after one chunk), exactly the
 * declared size at the end, the declared CRC-32, and a deflate stream that ended exactly at the
 * declared compressed size. Keeps a running SHA-256, so no entry needs to be read twice. Once `signal`
 * is aborted, the next chunk fails the stream with the cancellation's `AbortError`.
 */
class VerifiedEntryStream extends Transform implements EntryStream {
  readonly #entry: ArchiveEntry
  readonly #deflateEnd: (() => ArchiveError | null) | null
  readonly #signal: AbortSignal | undefined
  readonly #hash: Hash = createHash('sha256')
  #size = 0
  #crc = 0
  #digest: EntryDigest | null = null

  constructor(entry: ArchiveEntry, deflateEnd: (() => ArchiveError | null) | null, signal: AbortSignal | undefined) {
    super()
    this.#entry = entry
    this.#deflateEnd = deflateEnd
    this.#signal = signal
  }

  get digest(): EntryDigest | null {
    return this.#digest
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.#signal?.aborted === true) {
      callback(cancelledError(this.#signal))
      return
    }
    const entry = this.#entry
    this.#size += chunk.length
    if (this.#size > entry.uncompressedSize) {
      callback(largerThanDeclared(entry, this.#size))
      return
    }
    this.#crc = zlib.crc32(chunk, this.#crc)
    this.#hash.update(chunk)
    callback(null, chunk)
  }

  override _flush(callback: TransformCallback): void {
    const problem = this.#deflateEnd?.() ?? endProblem(this.#entry, this.#size, this.#crc >>> 0)
    if (problem !== null) return callback(problem)
    this.#digest = {size: this.#size, sha256: `sha256:${this.#hash.digest('hex')}`}
    callback()
  }
}

/** The first lie an entry's complete bytes tell about their size or CRC-32, or null. */
export function endProblem(entry: ArchiveEntry, size: number, crc: number): ArchiveError | null {
  if (size > entry.uncompressedSize) return largerThanDeclared(entry, size)
  if (size !== entry.uncompressedSize) {
    return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)} holds ${size} bytes but declares ${entry.uncompressedSize}.`, {
      reason: 'entry-smaller-than-declared',
      entry: entry.name,
      declared: entry.uncompressedSize,
      actual: size,
    })
  }
  if (crc !== entry.crc32) {
    return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)} fails its CRC-32 check (computed ${hex32(crc)}, declared ${hex32(entry.crc32)}).`, {
      reason: 'crc-mismatch',
      entry: entry.name,
      declared: entry.crc32,
      actual: crc,
    })
  }
  return null
}

/** The error for an entry found to hold more than it declares (at least `atLeast` bytes). */
export function largerThanDeclared(entry: ArchiveEntry, atLeast: number): ArchiveError {
  return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)} holds more than the ${entry.uncompressedSize} bytes it declares.`, {
    reason: 'entry-larger-than-declared',
    entry: entry.name,
    declared: entry.uncompressedSize,
    atLeast,
  })
}

/** Entries at most this large (compressed and uncompressed) are digested whole: one read, one inflate call. */
export const wholeEntryMaxBytes = 1024 * 1024

/** True for an entry small enough to be read in one piece (see whole-entries.ts). */
export function isSmallEntry(entry: Pick<ArchiveEntry, 'compressedSize' | 'uncompressedSize'>): boolean {
  return entry.compressedSize <= wholeEntryMaxBytes && entry.uncompressedSize <= wholeEntryMaxBytes
}

/**
 * The order to read `entries` in when several are read at once, as indices into `entries`: the entries that
 * stream (not {@link isSmallEntry}) first, largest first, then the small ones in archive order. A large
 * entry left for the end streams alone while the other readers idle; started first, it streams while the
 * small ones fill in around it.
 */
export function streamedFirst(entries: ReadonlyArray<Pick<ArchiveEntry, 'compressedSize' | 'uncompressedSize'>>): number[] {
  const streamed: number[] = []
  const small: number[] = []
  entries.forEach((entry, index) => (isSmallEntry(entry) ? small : streamed).push(index))
  streamed.sort((a, b) => entries[b]!.compressedSize - entries[a]!.compressedSize || a - b)
  return [...streamed, ...small]
}

/** Bytes the inflater hands out at a time: a bomb is cut off at most this far past its declared size. */
export const inflateChunkBytes = 1024 * 1024

/** An entry stream and when it stops using the archive's descriptor. */
export interface OpenedEntryStream {
  stream: EntryStream
  /** Settles once no read of this stream is in flight any more (after it ended or was destroyed). */
  released: Promise<void>
}

/**
 * Streams the verified bytes of `entry`, whose data (already proven to lie inside the file) starts
 * at `dataStart` of the open descriptor `fd`. Every failure surfaces as an ArchiveError emitted by
 * the returned stream (the `AbortError` of `signal` once it is aborted, checked at every chunk);
 * destroying the returned stream releases the read and the inflater.
 */
export function openEntryStream(fd: number, entry: ArchiveEntry, dataStart: number, signal?: AbortSignal): OpenedEntryStream {
  const raw = new FdRangeStream(fd, {start: dataStart, end: dataStart + entry.compressedSize, chunkSize: inflateChunkBytes})
  const released = new Promise<void>((resolve) => raw.once('close', resolve))
  if (entry.method === 0) {
    const verified = new VerifiedEntryStream(entry, null, signal)
    raw.on('error', (error) => verified.destroy(readError(entry, error)))
    verified.on('close', () => raw.destroy())
    raw.pipe(verified)
    return {stream: verified, released}
  }
  const inflater = zlib.createInflateRaw({chunkSize: inflateChunkBytes})
  // The inflater is fed exactly compressedSize bytes; a stream that ended before consuming
  // them all hides bytes, one that wants more was cut short: both are lies about the length.
  const deflateEnd = (): ArchiveError | null =>
    inflater.bytesWritten === entry.compressedSize
      ? null
      : deflateLengthMismatch(entry, `the deflate stream ends after ${inflater.bytesWritten} of ${entry.compressedSize} compressed bytes`)
  const verified = new VerifiedEntryStream(entry, deflateEnd, signal)
  raw.on('error', (error) => verified.destroy(readError(entry, error)))
  inflater.on('error', (error: NodeJS.ErrnoException) => verified.destroy(inflateError(entry, error)))
  verified.on('close', () => {
    raw.destroy()
    inflater.destroy()
  })
  raw.pipe(inflater).pipe(verified)
  return {stream: verified, released}
}

/** The error for an entry whose deflate stream zlib refused (`Z_BUF_ERROR`: it needs more bytes than declared). */
export function inflateError(entry: ArchiveEntry, error: NodeJS.ErrnoException): ArchiveError {
  if (error.code === 'Z_BUF_ERROR') {
    return deflateLengthMismatch(entry, `the deflate stream needs more than the ${entry.compressedSize} compressed bytes declared`, error)
  }
  return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)} is not a valid deflate stream (${error.message}).`, {reason: 'deflate-invalid', entry: entry.name}, {cause: error})
}

/** The error for an entry whose deflate stream does not end exactly at its compressed size. */
export function deflateLengthMismatch(entry: ArchiveEntry, what: string, cause?: unknown): ArchiveError {
  return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)}: ${what}.`, {reason: 'deflate-length-mismatch', entry: entry.name}, {cause})
}

/** The error for an entry whose data could not be read (the file ending first means it changed). */
export function readError(entry: ArchiveEntry, error: Error): ArchiveError {
  if (error instanceof UnexpectedEndOfFile) {
    return new ArchiveError('archive-malformed', `The archive ended while entry ${quoteName(entry.name)} was read: it changed after it was opened.`, {
      reason: 'entry-smaller-than-declared',
      entry: entry.name,
    }, {cause: error})
  }
  return new ArchiveError('unreadable', `Entry ${quoteName(entry.name)} could not be read: ${error.message}`, {reason: 'io-error', entry: entry.name}, {cause: error})
}

/** `0x` and eight hex digits. */
export function hex32(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`
}
