import {hash} from 'node:crypto'
import {Readable} from 'node:stream'
import zlib from 'node:zlib'
import {deflateLengthMismatch, endProblem, inflateError, isSmallEntry, largerThanDeclared, readError} from './entry-stream.js'
import type {ArchiveError} from './errors.js'
import {ReusedBuffers, UnexpectedEndOfFile, readAt, readAtInto, readAtSync} from './fd.js'
import type {ArchiveEntry, EntryDigest, EntryStream} from './types.js'
import {ZlibFailure, inflateRawOnce} from './zlib-once.js'

/**
 * Small entries ({@link isSmallEntry}) read whole: their compressed bytes in one read, inflated in one
 * call and checked as a stream checks them (the deflate stream ends exactly at the compressed size, no
 * more and no fewer bytes than declared, the CRC-32), then hashed. Many small entries that lie together
 * in the file are read with one read of the range that holds them ({@link planBatches}).
 */

/** An entry's verified bytes and their digest. */
export interface WholeEntry {
  data: Buffer
  digest: EntryDigest
}

/** Entries at most this large (compressed and uncompressed) are inflated on this thread, larger ones on the thread pool. */
const inlineEntryMaxBytes = 16 * 1024

/**
 * Checks `compressed`, the data of a small entry as the archive holds it: inflated (when deflated) one
 * byte past the declared size at most, then its deflate length, size and CRC-32, then hashed. Returns at
 * once for an entry inflated on this thread, a promise for one inflated on the thread pool; throws (or
 * rejects with) the ArchiveError of the first lie. With `scratch` (a worker thread's choice), an entry is
 * inflated on this thread whatever its size, into `scratch` (one byte more than the largest small entry,
 * reused by the caller: the returned bytes are then a view of it): the same verdicts, as the digesting workers' tests show.
 */
export function verifyWholeEntry(entry: ArchiveEntry, compressed: Buffer, scratch?: Buffer): WholeEntry | Promise<WholeEntry> {
  if (entry.method === 0) return checked(entry, compressed)
  // The thread pool's buffer is at least Z_MIN_CHUNK bytes: an entry declaring fewer (which the reader's
  // check of what declared sizes may hold keeps from being large) is inflated here.
  const here = scratch !== undefined || (entry.compressedSize <= inlineEntryMaxBytes && entry.uncompressedSize <= inlineEntryMaxBytes) || entry.uncompressedSize < zlib.constants.Z_MIN_CHUNK
  if (here) {
    let inflated
    try {
      inflated = inflateRawOnce(compressed, entry.uncompressedSize, scratch)
    } catch (error) {
      throw error instanceof ZlibFailure ? inflateError(entry, error) : error
    }
    return checked(entry, inflatedData(entry, inflated.data, inflated.consumed, inflated.overflow))
  }
  return inflateOnPool(compressed, entry.uncompressedSize).then(
    (inflated) => checked(entry, inflatedData(entry, inflated.buffer, inflated.engine.bytesWritten, false)),
    (error: NodeJS.ErrnoException) => {
      throw error.code === 'ERR_BUFFER_TOO_LARGE' ? largerThanDeclared(entry, entry.uncompressedSize + 1) : inflateError(entry, error)
    },
  )
}

/** The inflated bytes of a deflated entry, once the stream proved to end exactly at the compressed size and not to run past the declared size. */
function inflatedData(entry: ArchiveEntry, data: Buffer, consumed: number, overflow: boolean): Buffer {
  if (overflow) throw largerThanDeclared(entry, entry.uncompressedSize + 1)
  if (consumed !== entry.compressedSize) throw deflateLengthMismatch(entry, `the deflate stream ends after ${consumed} of ${entry.compressedSize} compressed bytes`)
  return data
}

/** The entry's bytes with their digest, once their size and CRC-32 are the declared ones. */
function checked(entry: ArchiveEntry, data: Buffer): WholeEntry {
  const problem = endProblem(entry, data.length, zlib.crc32(data) >>> 0)
  if (problem !== null) throw problem
  return {data, digest: {size: data.length, sha256: `sha256:${hash('sha256', data)}`}}
}

/**
 * Inflates `input` on the thread pool into one output buffer one byte larger than `declared`: a truthful entry
 * is inflated in one piece, and one that fills the buffer is refused there (`ERR_BUFFER_TOO_LARGE`), whatever
 * its stream would do after that byte, as {@link inflateRawOnce} on this thread refuses it (a stream that
 * fills the buffer and then fails gives the same refusal on either thread). `info` hands back the engine,
 * whose bytesWritten is the compressed bytes the stream consumed.
 */
function inflateOnPool(input: Buffer, declared: number): Promise<{buffer: Buffer; engine: {bytesWritten: number}}> {
  return new Promise((resolve, reject) => {
    zlib.inflateRaw(input, {info: true, maxOutputLength: declared, chunkSize: declared + 1} as zlib.ZlibOptions, (error, result) => {
      if (error) reject(error)
      else resolve(result as unknown as {buffer: Buffer; engine: {bytesWritten: number}})
    })
  })
}

/**
 * Reads and checks one small entry whose data starts at `dataStart` of `fd`: a tiny one with a
 * synchronous read (less than a trip to the thread pool costs), a larger one on the thread pool.
 */
export async function digestWholeEntry(fd: number, entry: ArchiveEntry, dataStart: number): Promise<WholeEntry> {
  const inline = entry.compressedSize <= inlineEntryMaxBytes
  const compressed = await (inline ? readAtSync(fd, entry.compressedSize, dataStart) : readAt(fd, entry.compressedSize, dataStart)).catch((error: Error) => {
    throw readError(entry, error)
  })
  if (compressed.length !== entry.compressedSize) throw readError(entry, new UnexpectedEndOfFile(dataStart + compressed.length))
  return verifyWholeEntry(entry, compressed)
}

/** A small entry and where its data starts in the file. */
export interface PlacedEntry {
  entry: ArchiveEntry
  dataStart: number
}

/** Small entries that lie close together in the file, read with one read of `length` bytes from `start`. */
export interface Batch<T extends PlacedEntry = PlacedEntry> {
  start: number
  length: number
  /** In file order. */
  members: T[]
}

/** The most bytes one batch reads (more only for a batch of one entry larger than this). */
const batchBytes = 1024 * 1024
/**
 * The most bytes between two entries of a batch: a batch reads them too. Room for a local header with a
 * long name and extra field; an entry that streams lies between two small ones only with a larger gap.
 */
const batchGapBytes = 64 * 1024

/**
 * Groups small entries ({@link isSmallEntry}) into batches: in file order, each batch a range of at most
 * `limits.bytes` (default {@link batchBytes}) holding its members' data and nothing much else (gaps of at most
 * {@link batchGapBytes}: local headers), and declaring at most `limits.inflated` bytes in all (unbounded by
 * default), a batch of one entry excepted. Reading a batch costs one read instead of one per entry.
 */
export function planBatches<T extends PlacedEntry>(entries: readonly T[], limits: {bytes?: number; inflated?: number} = {}): Batch<T>[] {
  const maxBytes = limits.bytes ?? batchBytes
  const maxInflated = limits.inflated ?? Infinity
  const sorted = [...entries].sort((a, b) => a.dataStart - b.dataStart)
  const batches: Batch<T>[] = []
  let current: Batch<T> | null = null
  let inflated = 0
  for (const placed of sorted) {
    if (!isSmallEntry(placed.entry)) throw new RangeError(`Entry ${placed.entry.name} is not small enough to be read in a batch.`)
    const end = placed.dataStart + placed.entry.compressedSize
    const fits =
      current !== null &&
      placed.dataStart - (current.start + current.length) <= batchGapBytes &&
      end - current.start <= maxBytes &&
      inflated + placed.entry.uncompressedSize <= maxInflated
    if (fits) {
      current!.members.push(placed)
      current!.length = end - current!.start
      inflated += placed.entry.uncompressedSize
    } else {
      current = {start: placed.dataStart, length: placed.entry.compressedSize, members: [placed]}
      inflated = placed.entry.uncompressedSize
      batches.push(current)
    }
  }
  return batches
}

/** Buffers for batches: reused, as the archive is read in ranges of {@link batchBytes}. */
export function batchBuffers(): ReusedBuffers {
  return new ReusedBuffers(batchBytes)
}

/** A batch's range as read: its bytes, the members whose data lies whole in them, and the refusal of the first that does not. */
export interface BatchRead<T extends PlacedEntry> {
  bytes: Buffer
  /** In file order: every member but the ones the file ends before. */
  whole: T[]
  /** `entry-smaller-than-declared` of the first member the file ends before, for the caller to throw once those before it are done; null when none. */
  ended: ArchiveError | null
}

/**
 * Reads a batch's range into `buffer` (room for `batch.length` bytes) with one read; a failing read is the
 * first member's refusal. A file that ends before a member's data is that member's `entry-smaller-than-declared`
 * (`ended`), and so for every member after it: members lie in file order, one after another.
 */
export async function readBatchRange<T extends PlacedEntry>(fd: number, batch: Batch<T>, buffer: Buffer): Promise<BatchRead<T>> {
  const bytes = await readAtInto(fd, buffer, batch.length, batch.start).catch((error: Error) => {
    throw readError(batch.members[0]!.entry, error)
  })
  const ending = batch.members.findIndex((member) => member.dataStart - batch.start + member.entry.compressedSize > bytes.length)
  if (ending === -1) return {bytes, whole: batch.members, ended: null}
  return {bytes, whole: batch.members.slice(0, ending), ended: readError(batch.members[ending]!.entry, new UnexpectedEndOfFile(batch.start + bytes.length))}
}

/**
 * Reads a batch's range and hands each member's compressed bytes to `use`, in file order (a view of a
 * buffer from `buffers`, given back once the last member is done: `use` keeps no reference to it). A file
 * that ends before a member's data is that member's `entry-smaller-than-declared`.
 */
export async function readBatch<T extends PlacedEntry>(
  fd: number,
  batch: Batch<T>,
  buffers: ReusedBuffers,
  use: (member: T, compressed: Buffer) => void | Promise<void>,
): Promise<void> {
  const buffer = buffers.take(batch.length)
  try {
    const {bytes, whole, ended} = await readBatchRange(fd, batch, buffer)
    for (const member of whole) {
      const from = member.dataStart - batch.start
      const used = use(member, bytes.subarray(from, from + member.entry.compressedSize))
      if (used !== undefined) await used
    }
    if (ended !== null) throw ended
  } finally {
    buffers.give(buffer)
  }
}

/**
 * The stream of a small entry ({@link isSmallEntry}): on the first read it is read, inflated and checked
 * in one piece by `readWhole` (one read and one inflate, no inflater kept per entry), then handed out as
 * one chunk; a failure is emitted as the stream's error, as with a streamed entry.
 */
class WholeEntryStream extends Readable implements EntryStream {
  readonly #readWhole: () => Promise<WholeEntry>
  #started = false
  #digest: EntryDigest | null = null

  constructor(readWhole: () => Promise<WholeEntry>) {
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
export function openWholeEntryStream(readWhole: () => Promise<WholeEntry>): {stream: EntryStream; released: Promise<void>} {
  const stream = new WholeEntryStream(readWhole)
  return {stream, released: new Promise<void>((resolve) => stream.once('close', resolve))}
}
