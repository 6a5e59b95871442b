import {createHash, type Hash} from 'node:crypto'
import {Readable, Transform, type TransformCallback} from 'node:stream'
import zlib from 'node:zlib'
import {cancelledError} from '../cancellation.js'
import {ArchiveError} from './errors.js'
import {FdRangeStream, UnexpectedEndOfFile, readAt, readAtSync} from './fd.js'
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
function endProblem(entry: ArchiveEntry, size: number, crc: number): ArchiveError | null {
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

function largerThanDeclared(entry: ArchiveEntry, atLeast: number): ArchiveError {
  return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)} holds more than the ${entry.uncompressedSize} bytes it declares.`, {
    reason: 'entry-larger-than-declared',
    entry: entry.name,
    declared: entry.uncompressedSize,
    atLeast,
  })
}

/** Entries at most this large (compressed and uncompressed) are digested whole: one read, one inflate call. */
export const wholeEntryMaxBytes = 1024 * 1024

/** True for an entry small enough to be read in one piece ({@link digestWholeEntry}). */
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

/**
 * Digests a small entry in one piece (the same checks as the stream): one positioned
 * read of its compressed bytes, one inflate on the thread pool capped one byte past the declared
 * size, then the deflate length, the size, the CRC-32 and the SHA-256. For an archive with many
 * small entries this costs far less than a stream per entry.
 */
export async function digestWholeEntry(fd: number, entry: ArchiveEntry, dataStart: number): Promise<{digest: EntryDigest; data: Buffer}> {
  // A tiny entry is read and inflated on this thread: a trip to the thread pool costs more than the work.
  const inline = entry.compressedSize <= inlineEntryMaxBytes && entry.uncompressedSize <= inlineEntryMaxBytes
  const compressed = await (inline ? readAtSync(fd, entry.compressedSize, dataStart) : readAt(fd, entry.compressedSize, dataStart)).catch((error: Error) => {
    throw readError(entry, error)
  })
  if (compressed.length !== entry.compressedSize) throw readError(entry, new UnexpectedEndOfFile(dataStart + compressed.length))
  let data = compressed
  if (entry.method === 8) {
    // One output buffer one byte larger than declared: a truthful entry is inflated in one piece, not in
    // zlib's default 16 KiB pieces concatenated at the end, and a longer one still stops at that byte.
    const cap = entry.uncompressedSize + 1
    const inflating = inline ? inflateRawSyncWithInfo(compressed, cap) : inflateRawWithInfo(compressed, cap)
    const inflated = await inflating.catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ERR_BUFFER_TOO_LARGE' ? largerThanDeclared(entry, entry.uncompressedSize + 1) : inflateError(entry, error)
    })
    if (inflated.engine.bytesWritten !== entry.compressedSize) {
      throw deflateLengthMismatch(entry, `the deflate stream ends after ${inflated.engine.bytesWritten} of ${entry.compressedSize} compressed bytes`)
    }
    data = inflated.buffer
  }
  const problem = endProblem(entry, data.length, zlib.crc32(data) >>> 0)
  if (problem !== null) throw problem
  return {digest: {size: data.length, sha256: `sha256:${createHash('sha256').update(data).digest('hex')}`}, data}
}

/** Entries at most this large (compressed and uncompressed) are read and inflated without the thread pool. */
const inlineEntryMaxBytes = 16 * 1024

/** {@link inflateRawWithInfo} on this thread; failures reject the promise the same way. */
async function inflateRawSyncWithInfo(input: Buffer, maxOutputLength: number): Promise<{buffer: Buffer; engine: {bytesWritten: number}}> {
  return zlib.inflateRawSync(input, {info: true, maxOutputLength, chunkSize: Math.max(maxOutputLength, zlib.constants.Z_MIN_CHUNK)} as zlib.ZlibOptions) as unknown as {buffer: Buffer; engine: {bytesWritten: number}}
}

function inflateRawWithInfo(input: Buffer, maxOutputLength: number): Promise<{buffer: Buffer; engine: {bytesWritten: number}}> {
  return new Promise((resolve, reject) => {
    // `info` hands back the engine, whose bytesWritten is the compressed bytes the stream consumed.
    zlib.inflateRaw(input, {info: true, maxOutputLength, chunkSize: Math.max(maxOutputLength, zlib.constants.Z_MIN_CHUNK)} as zlib.ZlibOptions, (error, result) => {
      if (error) reject(error)
      else resolve(result as unknown as {buffer: Buffer; engine: {bytesWritten: number}})
    })
  })
}

/**
 * The stream of a small entry ({@link isSmallEntry}): on the first read it is read, inflated and checked
 * in one piece by `readWhole` (one read and one inflate, no inflater kept per entry), then handed out as
 * one chunk; a failure is emitted as the stream's error, as with a streamed entry.
 */
class WholeEntryStream extends Readable implements EntryStream {
  readonly #readWhole: () => Promise<{data: Buffer; digest: EntryDigest}>
  #started = false
  #digest: EntryDigest | null = null

  constructor(readWhole: () => Promise<{data: Buffer; digest: EntryDigest}>) {
    super()
    this.#readWhole = readWhole
  }

  get digest(): EntryDigest | null {
    return this.#digest
  }

  override _read(): void {
    if (this.#started) return
    this.#started = true
    this.#readWhole().then(
      ({data, digest}) => {
        if (this.destroyed) return
        this.#digest = digest
        this.push(data)
        this.push(null)
      },
      (error: Error) => this.destroy(error),
    )
  }
}

/** Streams a small entry read in one piece by `readWhole` (see {@link WholeEntryStream}). */
export function openWholeEntryStream(readWhole: () => Promise<{data: Buffer; digest: EntryDigest}>): OpenedEntryStream {
  const stream = new WholeEntryStream(readWhole)
  return {stream, released: new Promise<void>((resolve) => stream.once('close', resolve))}
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

function inflateError(entry: ArchiveEntry, error: NodeJS.ErrnoException): ArchiveError {
  if (error.code === 'Z_BUF_ERROR') {
    return deflateLengthMismatch(entry, `the deflate stream needs more than the ${entry.compressedSize} compressed bytes declared`, error)
  }
  return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)} is not a valid deflate stream (${error.message}).`, {reason: 'deflate-invalid', entry: entry.name}, {cause: error})
}

function deflateLengthMismatch(entry: ArchiveEntry, what: string, cause?: unknown): ArchiveError {
  return new ArchiveError('archive-malformed', `Entry ${quoteName(entry.name)}: ${what}.`, {reason: 'deflate-length-mismatch', entry: entry.name}, {cause})
}

function readError(entry: ArchiveEntry, error: Error): ArchiveError {
  if (error instanceof UnexpectedEndOfFile) {
    return new ArchiveError('archive-malformed', `The archive ended while entry ${quoteName(entry.name)} was read: it changed after it was opened.`, {
      reason: 'entry-smaller-than-declared',
      entry: entry.name,
    }, {cause: error})
  }
  return new ArchiveError('unreadable', `Entry ${quoteName(entry.name)} could not be read: ${error.message}`, {reason: 'io-error', entry: entry.name}, {cause: error})
}

export function hex32(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`
}
