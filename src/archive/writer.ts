import {createHash, randomBytes} from 'node:crypto'
import {rmSync} from 'node:fs'
import {link, lstat, rename, unlink} from 'node:fs/promises'
import path from 'node:path'
import {OutputError, outputTaken, writeFailed} from '../fs/output.js'
import {trackTemporaryFile} from '../fs/temporary-files.js'
import {deflateChunkBytes} from './deflate.js'
import {ChunkBuffers, EncodedEntry, byteLength, type EntryFacts, type Piece} from './entry-encoder.js'
import {ArchiveError} from './errors.js'
import {SizeTally, checkArchiveSize, checkCompressionRatio, checkEntryCount, manifestEntryName, resolveLimits} from './limits.js'
import {EntryNameRegistry, compareEntryNames} from './names.js'
import {OutputFile} from './output-file.js'
import {checkEntryPath, describeEntryPathProblem, quoteName} from './path-policy.js'
import {checkCompressedSource, digestChanged, expectedDigestHex, openSource, sourceSize} from './source.js'
import type {WriterSource} from './source.js'
import type {ArchiveLimits} from './types.js'

export type {WriterSource} from './source.js'

/** One file of the archive to write. */
export interface WriterEntry {
  /** The archive path; it must pass the entry-path policy. */
  name: string
  /** 0o755 for a declared entrypoint executable, 0o644 for everything else. */
  mode: 0o644 | 0o755
  /**
   * Store the bytes as they are. Otherwise the writer deflates them unless a probe of their start
   * says deflate would not pay, and stores them anyway when deflate did not make them smaller.
   */
  store: boolean
  source: WriterSource
}

/** Options of {@link writeArchive}. */
export interface WriteArchiveOptions {
  /** Overrides of the archive limits; nothing is written that a reader with these limits would refuse. */
  limits?: Partial<ArchiveLimits>
  /** Replace an existing file at the output path; without it an existing output is `output-exists`. */
  overwrite?: boolean
  /** Called each time an entry's source has been read in full. */
  onProgress?: (progress: WriteProgress) => void
}

/** How far a write has come: entries (and their uncompressed bytes) read, or copied into place. */
export interface WriteProgress {
  entries: number
  totalEntries: number
  bytes: number
  totalBytes: number
}

/** The archive {@link writeArchive} wrote. */
export interface WrittenArchive {
  /** Absolute path of the archive. */
  path: string
  /** Size of the archive file. */
  bytes: number
  /** SHA-256 of the archive file: 64 lowercase hex digits. */
  sha256: string
  /** Number of entries written. */
  entries: number
}

/** One entry as written: the size and SHA-256 of the very bytes the archive holds. */
export interface WrittenEntry {
  name: string
  size: number
  /** `sha256:` + 64 lowercase hex digits. */
  sha256: string
}

/** Options of {@link writeArchiveBody}. */
export interface WriteArchiveBodyOptions {
  /** Overrides of the archive limits, applied to the body now and to the whole archive when finished. */
  limits?: Partial<ArchiveLimits>
  /**
   * Called each time an entry's source has been read in full. When it returns a promise, the next source
   * is read once it settles (a consumer of what was read, such as a scan, can catch up).
   */
  onProgress?: (progress: WriteProgress) => void | Promise<void>
}

/** Options of {@link ArchiveBody.finish}. */
export interface FinishArchiveOptions {
  /** Replace an existing file at the output path; without it an existing output is `output-exists`. */
  overwrite?: boolean
  /** Called as the entries are copied into the archive. */
  onProgress?: (progress: WriteProgress) => void
}

/**
 * Every entry of an archive but the first, already written (each source read once) to a temporary
 * file beside the output: for an archive whose first entry depends on the others, as `pack`'s
 * `manifest.json` lists their digests.
 */
export interface ArchiveBody {
  /** Every entry written, in order. */
  readonly entries: readonly WrittenEntry[]
  /**
   * Writes the archive: `first`, then the body, the central directory and the end record, into
   * `<output>.<random>.tmp`, then moves it onto the output. Refuses what the whole archive would
   * break (the first entry's name, order and size; the archive size and compression ratio).
   */
  finish(first: WriterEntry, options?: FinishArchiveOptions): Promise<WrittenArchive>
  /** Removes the body's temporary file; call it once done, whether or not `finish` was called or succeeded. */
  discard(): void
}

/**
 * Writes a deterministic `.svcPlugin` archive (docs/artifact-format.md, "Writing an artifact"):
 * entries in the order given (`manifest.json` first, then the rest sorted with
 * {@link compareEntryNames}: out of order is a RangeError), fixed date 1980-01-01 00:00, mode
 * `0o100000 | mode` made by Unix, UTF-8 names, no extra fields, comments, data descriptors or ZIP64.
 * Each source is read once: hashed (a file or stream source given a digest must still have it:
 * `source-changed`), CRC-checked and stored or deflated in chunks on every core. The archive is
 * written beside the output and renamed; on any failure nothing is left behind. Throws an
 * {@link ArchiveError}.
 */
export async function writeArchive(output: string, entries: readonly WriterEntry[], options: WriteArchiveOptions = {}): Promise<WrittenArchive> {
  const limits = resolveLimits(options.limits)
  const plan = new ArchivePlan(limits, entries.length)
  entries.forEach((entry, position) => plan.add(entry, position))
  const [first, ...rest] = entries
  const read = progressOf(entries, options.onProgress)
  const body = await Body.write(path.resolve(output), rest, plan, read)
  try {
    return await body.finish(first ?? null, {overwrite: options.overwrite === true, read})
  } finally {
    body.discard()
  }
}

/**
 * Writes every entry of an archive but its first (see {@link ArchiveBody}), judging them as
 * {@link writeArchive} would (names, order, modes, limits, the first entry's slot counted) before
 * a byte is read. Throws an {@link ArchiveError}; nothing is left behind on failure.
 */
export async function writeArchiveBody(output: string, entries: readonly WriterEntry[], options: WriteArchiveBodyOptions = {}): Promise<ArchiveBody> {
  const limits = resolveLimits(options.limits)
  const plan = new ArchivePlan(limits, entries.length + 1)
  entries.forEach((entry, index) => plan.add(entry, index + 1))
  const body = await Body.write(path.resolve(output), entries, plan, progressOf(entries, options.onProgress))
  return {
    entries: body.written,
    finish: async (first, finishOptions = {}) => {
      plan.add(first, 0)
      return body.finish(first, {overwrite: finishOptions.overwrite === true, copied: progressOf([first, ...entries], finishOptions.onProgress)})
    },
    discard: () => body.discard(),
  }
}

/** The largest value a 32-bit field holds without deferring to ZIP64, which we never write. */
const zip32Max = 0xfffffffe
const zip16Max = 0xfffe

/** Refuses, before a byte is read, what no reader would accept or what is not deterministic. */
class ArchivePlan {
  readonly limits: ArchiveLimits
  readonly #names = new EntryNameRegistry()
  readonly #sizes: SizeTally
  /** Names by position, for the order check whichever entry is judged first. */
  readonly #order = new Map<number, string>()

  constructor(limits: ArchiveLimits, count: number) {
    this.limits = limits
    this.#sizes = new SizeTally(limits)
    checkEntryCount(limits, count)
    if (count > zip16Max) throw zip64(`${count} entries need ZIP64`)
  }

  /** Total uncompressed bytes of the entries judged so far. */
  get totalBytes(): number {
    return this.#sizes.total
  }

  /** Judges `entry` as the archive's entry number `position` (0 is written first). */
  add(entry: WriterEntry, position: number): void {
    const {name} = entry
    const problem = checkEntryPath(name)
    if (problem !== null) throw new ArchiveError('unsafe-entry', describeEntryPathProblem(name, problem), {reason: problem, entry: name})
    if (entry.mode !== 0o644 && entry.mode !== 0o755) throw new RangeError(`Entry ${quoteName(name)} has mode 0o${Number(entry.mode).toString(8)}; only 0o644 and 0o755 are written.`)
    this.#checkOrder(name, position)
    this.#names.add(name)
    const size = sourceSize(entry.source)
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`Entry ${quoteName(name)} has an invalid size ${size}.`)
    if (size > zip32Max) throw zip64(`entry ${quoteName(name)} of ${size} bytes needs ZIP64`)
    // A malformed digest is the caller's bug: refuse it before reading anything.
    expectedDigestHex(name, entry.source)
    if (entry.source.kind === 'compressed') checkCompressedSource(name, entry.source)
    this.#sizes.add(name, size)
  }

  #checkOrder(name: string, position: number): void {
    const before = this.#order.get(position - 1)
    const after = this.#order.get(position + 1)
    const outOfOrder =
      name === manifestEntryName
        ? position !== 0
        : (before !== undefined && before !== manifestEntryName && compareEntryNames(before, name) >= 0) || (after !== undefined && compareEntryNames(name, after) >= 0)
    if (outOfOrder) throw new RangeError(`Entry ${quoteName(name)} is out of order: ${manifestEntryName} comes first, then names sorted by their UTF-8 bytes.`)
    this.#order.set(position, name)
  }
}

function zip64(what: string): ArchiveError {
  return new ArchiveError('archive-unsupported', `The archive cannot be written: ${what}, and ZIP64 archives are neither written nor read.`, {reason: 'zip64'})
}

/** Counts one more entry done (read, or copied into place) and reports the totals; a promise it returns is awaited where reading can wait. */
type ProgressCounter = (entry: WriterEntry) => void | Promise<void>

function progressOf(entries: readonly WriterEntry[], onProgress: ((progress: WriteProgress) => void | Promise<void>) | undefined): ProgressCounter {
  const totalBytes = entries.reduce((sum, entry) => sum + sourceSize(entry.source), 0)
  const progress: WriteProgress = {entries: 0, totalEntries: entries.length, bytes: 0, totalBytes}
  return (entry) => {
    progress.entries += 1
    progress.bytes += sourceSize(entry.source)
    return onProgress?.({...progress})
  }
}

const versionMadeByUnix = (3 << 8) | 63
const versionNeeded = 20
const flagUtf8 = 0x0800
// Every entry is dated 1980-01-01 00:00:00: DOS time 0, DOS date (0 << 9) | (1 << 5) | 1.
const dosTime = 0
const dosDate = 0x0021
const localHeaderBytes = 30
const centralHeaderBytes = 46
const endRecordBytes = 22

/** One written entry's facts: its local header, and its central record but for the offset. */
interface EntryRecord {
  name: string
  /** Length of the name in UTF-8. */
  nameBytes: number
  mode: 0o644 | 0o755
  method: 0 | 8
  crc32: number
  compressedSize: number
  size: number
  /** Offset of the local header in the file it was written to. */
  offset: number
}

function localHeader(record: EntryRecord): Buffer {
  const header = Buffer.allocUnsafe(localHeaderBytes + record.nameBytes)
  header.writeUInt32LE(0x04034b50, 0)
  header.writeUInt16LE(versionNeeded, 4)
  header.writeUInt16LE(flagUtf8, 6)
  header.writeUInt16LE(record.method, 8)
  header.writeUInt16LE(dosTime, 10)
  header.writeUInt16LE(dosDate, 12)
  header.writeUInt32LE(record.crc32, 14)
  header.writeUInt32LE(record.compressedSize, 18)
  header.writeUInt32LE(record.size, 22)
  header.writeUInt16LE(record.nameBytes, 26)
  header.writeUInt16LE(0, 28) // extra field length
  header.write(record.name, localHeaderBytes, 'utf8')
  return header
}

/** The central directory: one record per entry, each with the offset of its local header. */
function centralDirectory(records: readonly {record: EntryRecord; offset: number}[]): Buffer {
  const directory = Buffer.alloc(records.reduce((sum, {record}) => sum + centralHeaderBytes + record.nameBytes, 0))
  let at = 0
  for (const {record, offset} of records) {
    directory.writeUInt32LE(0x02014b50, at)
    directory.writeUInt16LE(versionMadeByUnix, at + 4)
    directory.writeUInt16LE(versionNeeded, at + 6)
    directory.writeUInt16LE(flagUtf8, at + 8)
    directory.writeUInt16LE(record.method, at + 10)
    directory.writeUInt16LE(dosTime, at + 12)
    directory.writeUInt16LE(dosDate, at + 14)
    directory.writeUInt32LE(record.crc32, at + 16)
    directory.writeUInt32LE(record.compressedSize, at + 20)
    directory.writeUInt32LE(record.size, at + 24)
    directory.writeUInt16LE(record.nameBytes, at + 28)
    // Extra field, comment, disk number start and internal attributes stay 0.
    directory.writeUInt32LE(((0o100000 | record.mode) << 16) >>> 0, at + 38)
    directory.writeUInt32LE(offset, at + 42)
    directory.write(record.name, at + centralHeaderBytes, 'utf8')
    at += centralHeaderBytes + record.nameBytes
  }
  return directory
}

function endRecord(count: number, directoryBytes: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(endRecordBytes)
  end.writeUInt32LE(0x06054b50, 0)
  // Disk numbers stay 0; no comment.
  end.writeUInt16LE(count, 8)
  end.writeUInt16LE(count, 10)
  end.writeUInt32LE(directoryBytes, 12)
  end.writeUInt32LE(directoryOffset, 16)
  return end
}

/** The entries of an archive but its first, written to a temporary file beside the output. */
class Body {
  readonly #file: OutputFile
  readonly #forget: () => void
  /** Every entry written, in order, as its records and as what was read. */
  records: EntryRecord[] = []
  written: WrittenEntry[] = []

  private constructor(
    readonly target: string,
    readonly temporary: string,
    private readonly entries: readonly WriterEntry[],
    private readonly plan: ArchivePlan,
  ) {
    this.#forget = trackTemporaryFile(temporary)
    try {
      this.#file = createOutput(temporary, target)
    } catch (error) {
      this.#forget()
      throw error
    }
  }

  /** Writes `entries` into a new body file beside `target`; the caller must `discard()` it. */
  static async write(target: string, entries: readonly WriterEntry[], plan: ArchivePlan, read: ProgressCounter): Promise<Body> {
    const body = new Body(target, `${target}.${randomBytes(6).toString('hex')}.body.tmp`, entries, plan)
    try {
      const {records, written} = await writeEntries(body.#file, entries, read)
      body.records = records
      body.written = written
      return body
    } catch (error) {
      body.discard()
      throw error
    }
  }

  discard(): void {
    this.#file.close()
    rmSync(this.temporary, {force: true})
    this.#forget()
  }

  /**
   * Writes `first`, the body, the central directory and the end record to a temporary file beside
   * the target, checks the archive's size and ratio, and moves it into place.
   */
  async finish(first: WriterEntry | null, options: {overwrite: boolean; read?: ProgressCounter; copied?: ProgressCounter}): Promise<WrittenArchive> {
    const temporary = `${this.target}.${randomBytes(6).toString('hex')}.tmp`
    const forget = trackTemporaryFile(temporary)
    let file: OutputFile | null = null
    try {
      file = createOutput(temporary, this.target)
      // The archive's digest, computed over its bytes in order as they are put in place.
      const hash = createHash('sha256')
      const records: {record: EntryRecord; offset: number}[] = []
      const buffer = Buffer.allocUnsafe(copyChunkBytes)
      if (first !== null) {
        const head = await writeEntries(file, [first], options.read ?? (() => undefined))
        for (let offset = 0; offset < file.length; ) {
          const chunk = output(this.target, () => file!.read(buffer.subarray(0, Math.min(copyChunkBytes, file!.length - offset)), offset))
          if (chunk.length === 0) throw outputError(this.target, new Error(`it ended at ${offset} of ${file!.length} bytes`))
          hash.update(chunk)
          offset += chunk.length
        }
        records.push({record: head.records[0]!, offset: 0})
        options.copied?.(first)
      }
      const shift = file.length
      const length = this.#file.length
      // The body is copied with reads and writes on the thread pool (idle by now) while this thread
      // hashes: a ring of buffers, each reused once its write is done.
      const ring = [buffer, Buffer.allocUnsafe(copyChunkBytes), Buffer.allocUnsafe(copyChunkBytes)]
      const writes: Promise<void>[] = []
      // Every read and write is settled before the descriptors may be closed, even after a failure:
      // a late write to a closed (and reused) descriptor number would land in another file.
      const inflight: Promise<unknown>[] = []
      const track = <T>(promise: Promise<T>): Promise<T> => {
        promise.catch(() => undefined)
        inflight.push(promise)
        return promise
      }
      try {
        const readBody = (slot: number, offset: number) => track(this.#file.readLater(ring[slot]!.subarray(0, Math.min(copyChunkBytes, length - offset)), offset))
        let reading = length > 0 ? readBody(0, 0) : null
        let next = 0
        for (let index = 0, offset = 0; offset < length; index++) {
          const chunk = await reading!.catch((error: unknown) => {
            throw outputError(this.target, error)
          })
          if (chunk.length === 0) throw outputError(this.target, new Error(`it ended at ${offset} of ${length} bytes`))
          offset += chunk.length
          if (offset < length) {
            const slot = (index + 1) % ring.length
            await writes[slot]
            reading = readBody(slot, offset)
          }
          writes[index % ring.length] = track(
            file.appendLater(chunk).catch((error: unknown) => {
              throw outputError(this.target, error)
            }),
          )
          hash.update(chunk)
          // An entry counts as copied once all its data is in place.
          for (; next < this.records.length && dataEnd(this.records[next]!) <= offset; next++) options.copied?.(this.entries[next]!)
        }
        await Promise.all(writes)
      } finally {
        await Promise.allSettled(inflight)
      }
      for (const record of this.records) records.push({record, offset: record.offset + shift})
      const directoryOffset = shift + length
      const directory = centralDirectory(records)
      if (directoryOffset + directory.length > zip32Max) throw zip64('the archive would reach 4 GiB')
      const end = endRecord(records.length, directory.length, directoryOffset)
      output(this.target, () => {
        file!.append(directory)
        file!.append(end)
        file!.finish()
      })
      hash.update(directory)
      hash.update(end)
      const bytes = directoryOffset + directory.length + end.length
      // Never leave an archive that the readers would refuse.
      checkArchiveSize(this.plan.limits, bytes)
      checkCompressionRatio(this.plan.limits, this.plan.totalBytes, bytes)
      await moveIntoPlace(temporary, this.target, options.overwrite)
      return {path: this.target, bytes, sha256: hash.digest('hex'), entries: records.length}
    } catch (error) {
      file?.close()
      await unlink(temporary).catch(() => undefined)
      throw error
    } finally {
      forget()
    }
  }
}

function dataEnd(record: EntryRecord): number {
  return record.offset + localHeaderBytes + record.nameBytes + record.compressedSize
}

// The body is copied into the archive this much at a time, three pieces in flight: measured on the
// bench tree, 4 MiB pieces copy no faster and keep about 10 MB more resident.
const copyChunkBytes = 1024 * 1024

// At most this many bytes of entry data are held between being read and being written (chunks
// waiting for deflate, pieces waiting for their turn), and at most this many entries are between
// read and written: neither grows with entry sizes or counts. Measured on the bench tree, 8 MiB
// (eight 1 MiB chunks for four pool threads) packs as fast as 16 MiB and keeps about 15 MB less
// resident.
const bufferedBytesMax = 8 * 1024 * 1024
const bufferedEntriesMax = 256

/**
 * Writes entries, in order, at the end of `file`: sources are read one after the other (each
 * once) while the chunks read so far are deflated in parallel, and each entry's local header and
 * data are written as soon as every entry before it is out. No data descriptors: an entry written
 * before its CRC and sizes are known gets its local header filled in afterwards.
 */
async function writeEntries(file: OutputFile, entries: readonly WriterEntry[], read: ProgressCounter): Promise<{records: EntryRecord[]; written: WrittenEntry[]}> {
  const changes = new Changes()
  /** Entries being read or waiting for their turn, oldest first from `head`. */
  let queue: EncodedEntry<WriterEntry>[] = []
  let head = 0
  let buffered = 0
  const records: EntryRecord[] = []
  const written: WrittenEntry[] = []
  const buffers = new ChunkBuffers()
  const waitForRoom = async (bytes: number): Promise<void> => {
    while (buffered > 0 && buffered + bytes > bufferedBytesMax) await changes.wait()
    buffered += bytes
  }
  const hooks = {
    // One chunk may always go, or an entry larger than the budget would wait forever.
    reserve: (bytes: number): Promise<void> | undefined => {
      if (buffered > 0 && buffered + bytes > bufferedBytesMax) return waitForRoom(bytes)
      buffered += bytes
      return undefined
    },
    changed: () => changes.notify(),
    failed: (error: unknown) => changes.fail(error),
    buffers,
  }
  const write = (run: () => void) => output(file.target, run)
  const done = (piece: Piece) => {
    piece.release()
    buffered -= piece.reserved
  }

  const readAll = async (): Promise<void> => {
    for (const entry of entries) {
      while (queue.length - head >= bufferedEntriesMax) await changes.wait()
      const encoded = new EncodedEntry(entry, hooks)
      queue.push(encoded)
      changes.notify()
      // A small file is usually complete already: no need to wait a turn.
      if (!encoded.complete) await encoded.read
      const waiting = read(entry)
      if (waiting !== undefined) await waiting
    }
  }

  /** Writes an entry that is complete: its header, then its data. */
  const writeWhole = (encoded: EncodedEntry<WriterEntry>): void => {
    const {entry} = encoded
    const pieces: Piece[] = []
    for (let index = 0; index < encoded.chunks; index++) pieces.push(encoded.takePiece(index))
    const facts = encoded.facts!
    const compressedSize = pieces.reduce((sum, piece) => sum + byteLength(piece.parts), 0)
    const record = recordOf(entry, encoded.method, facts, compressedSize, file.length)
    write(() => file.append(localHeader(record)))
    for (const piece of pieces) {
      for (const part of piece.parts) write(() => file.append(part))
      done(piece)
    }
    finished(entry, record, facts)
  }

  /** Writes an entry of several chunks as they come, then fills in its header. */
  const writeStreamed = async (encoded: EncodedEntry<WriterEntry>): Promise<void> => {
    const {entry} = encoded
    const offset = file.length
    const headerBytes = localHeaderBytes + Buffer.byteLength(entry.name, 'utf8')
    write(() => file.append(Buffer.alloc(headerBytes)))
    let compressedSize = 0
    for (let index = 0; index < encoded.chunks; index++) {
      while (!encoded.hasPiece(index)) await changes.wait()
      const piece = encoded.takePiece(index)
      for (const part of piece.parts) write(() => file.append(part))
      compressedSize += byteLength(piece.parts)
      done(piece)
      changes.notify()
    }
    while (!encoded.complete) await changes.wait()
    const facts = encoded.facts!
    let method = encoded.method
    if (method === 8 && compressedSize >= facts.size && entry.source.kind !== 'compressed') {
      // Deflate did not make it smaller: store it, read again and held to the digest just taken.
      write(() => file.truncate(offset + headerBytes))
      await storeAgain(file, entry, facts.sha256, buffers)
      method = 0
      compressedSize = facts.size
    }
    const record = recordOf(entry, method, facts, compressedSize, offset)
    write(() => file.patch(localHeader(record), offset))
    finished(entry, record, facts)
  }

  const recordOf = (entry: WriterEntry, method: 0 | 8, facts: EntryFacts, compressedSize: number, offset: number): EntryRecord => {
    const nameBytes = Buffer.byteLength(entry.name, 'utf8')
    if (offset + localHeaderBytes + nameBytes + compressedSize > zip32Max) throw zip64('the archive would reach 4 GiB')
    return {name: entry.name, nameBytes, mode: entry.mode, method, crc32: facts.crc32, compressedSize, size: facts.size, offset}
  }

  const finished = (entry: WriterEntry, record: EntryRecord, facts: EntryFacts): void => {
    records.push(record)
    written.push({name: entry.name, size: facts.size, sha256: facts.sha256})
  }

  const writeAll = async (): Promise<void> => {
    for (let count = 0; count < entries.length; count++) {
      while (queue.length === head) await changes.wait()
      const encoded = queue[head]!
      if (encoded.chunks > 1) {
        await writeStreamed(encoded)
      } else {
        while (!encoded.complete) await changes.wait()
        writeWhole(encoded)
      }
      head += 1
      if (head >= bufferedEntriesMax) {
        queue = queue.slice(head)
        head = 0
      }
      changes.notify()
    }
    write(() => file.flush())
  }

  await Promise.all([readAll().catch((error: unknown) => changes.fail(error)), writeAll().catch((error: unknown) => changes.fail(error))])
  changes.throwIfFailed()
  return {records, written}
}

/** Writes an entry's source stored, reading it again: it must still have the digest taken the first time. */
async function storeAgain(file: OutputFile, entry: WriterEntry, sha256: string, buffers: ChunkBuffers): Promise<void> {
  const hash = createHash('sha256')
  const reader = await openSource(entry.name, entry.source)
  const buffer = buffers.take(deflateChunkBytes)
  try {
    const size = sourceSize(entry.source)
    for (let offset = 0; offset < size; offset += deflateChunkBytes) {
      const chunk = await reader.read(buffer, Math.min(deflateChunkBytes, size - offset))
      hash.update(chunk)
      output(file.target, () => file.append(chunk))
    }
    await reader.finish()
  } finally {
    reader.close()
    buffers.give(buffer)
  }
  if (`sha256:${hash.digest('hex')}` !== sha256) throw digestChanged(entry.name)
}

/**
 * Lets the reading and the writing side of {@link writeEntries} wait for each other: `wait()`
 * resolves at the next `notify()`. The first failure fails every wait, then and later.
 */
class Changes {
  #waiters: {resolve: () => void; reject: (error: unknown) => void}[] = []
  #failure: {error: unknown} | null = null

  wait(): Promise<void> {
    if (this.#failure !== null) return Promise.reject(this.#failure.error)
    return new Promise((resolve, reject) => this.#waiters.push({resolve, reject}))
  }

  notify(): void {
    const waiters = this.#waiters
    this.#waiters = []
    for (const waiter of waiters) waiter.resolve()
  }

  fail(error: unknown): void {
    if (this.#failure !== null) return
    this.#failure = {error}
    const waiters = this.#waiters
    this.#waiters = []
    for (const waiter of waiters) waiter.reject(error)
  }

  throwIfFailed(): void {
    if (this.#failure !== null) throw this.#failure.error
  }
}

function createOutput(file: string, target: string): OutputFile {
  try {
    return new OutputFile(file, target)
  } catch (error) {
    throw outputError(target, error)
  }
}

/** Runs a write (or read) of an output file, turning an I/O error into `write-failed` naming `target`. */
function output<T>(target: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw outputError(target, error)
  }
}

/** Renames a finished file onto `target`; without `overwrite`, never replaces an existing file (`output-exists`). */
export async function moveIntoPlace(temp: string, target: string, overwrite: boolean): Promise<void> {
  try {
    if (overwrite) {
      await rename(temp, target)
      return
    }
    // link() fails if the target exists, atomically: no window in which a file appearing is clobbered.
    try {
      await link(temp, target)
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'EEXIST') throw await outputTaken(target, undefined, error)
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV' && code !== 'ENOSYS') throw error
      // A file system without hard links: check, then rename.
      if (await lstat(target).then(() => true, () => false)) throw await outputTaken(target, undefined, error)
      await rename(temp, target)
      return
    }
    await unlink(temp)
  } catch (error) {
    throw error instanceof OutputError ? error : outputError(target, error)
  }
}

function outputError(target: string, error: unknown): Error {
  if (error instanceof ArchiveError) return error
  return writeFailed(target, error)
}
