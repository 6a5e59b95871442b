import {createHash, type Hash} from 'node:crypto'
import {rmSync} from 'node:fs'
import {unlink} from 'node:fs/promises'
import path from 'node:path'
import {throwIfCancelled} from '../cancellation.js'
import {temporarySibling} from '../fs/durable.js'
import {placeFile} from '../fs/output.js'
import {trackTemporaryFile} from '../fs/temporary-files.js'
import {copyBody, hashWritten} from './body-copier.js'
import {writeEntries, type EntryWriting, type ProgressCounter, type WriterEntry, type WrittenEntry} from './entry-pipeline.js'
import {ArchiveError} from './errors.js'
import {SizeTally, checkArchiveSize, checkCompressionRatio, checkEntryCount, manifestEntryName, resolveLimits} from './limits.js'
import {EntryNameRegistry, compareEntryNames} from './names.js'
import {OutputFile, writing} from './output-file.js'
import {checkEntryPath, describeEntryPathProblem, quoteName} from './path-policy.js'
import {checkCompressedSource, expectedDigestHex, sourceSize} from './source.js'
import type {ArchiveLimits} from './types.js'
import {centralDirectory, dataEnd, endRecord, zip16Max, zip32Max, zip64, type EntryRecord} from './zip-records.js'

export type {WriterSource} from './source.js'
export type {WriterEntry, WrittenEntry} from './entry-pipeline.js'

/** Options of {@link writeArchive}. */
export interface WriteArchiveOptions {
  /** Overrides of the archive limits; nothing is written that a reader with these limits would refuse. */
  limits?: Partial<ArchiveLimits>
  /** Replace an existing file at the output path; without it an existing output is `output-exists`. */
  overwrite?: boolean
  /** Called each time an entry's source has been read in full. */
  onProgress?: (progress: WriteProgress) => void
  /** Cancels the write: it rejects with the `AbortError` of `src/cancellation.ts` and leaves nothing behind. */
  signal?: AbortSignal
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

/** Options of {@link writeArchiveBody}. */
export interface WriteArchiveBodyOptions {
  /** Overrides of the archive limits, applied to the body now and to the whole archive when finished. */
  limits?: Partial<ArchiveLimits>
  /**
   * Called each time an entry's source has been read in full. When it returns a promise, the next source
   * is read once it settles (a consumer of what was read, such as a scan, can catch up).
   */
  onProgress?: (progress: WriteProgress) => void | Promise<void>
  /**
   * Cancels the write, the body's and then its {@link ArchiveBody.finish}'s: either rejects with the
   * `AbortError` of `src/cancellation.ts` and leaves no archive behind.
   */
  signal?: AbortSignal
  /**
   * The module of the encoding workers, when files are many and small enough to start them (see
   * `encode-workers.ts`): by default the archive's own, which hands back the bytes of every file whose source
   * has an `inspect` hook. Another (built on `serveEncodeBatches`) may judge on its thread which bytes to hand
   * back: a file whose bytes do not come back is not shown to its hook. The archive is the same either way.
   */
  encodeWorker?: URL
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
   * Writes the archive: `first`, then the body, the central directory and the end record, into a hidden
   * temporary beside it (`.<output>.<pid>.<random>.tmp`), then moves it onto the output. Refuses what the
   * whole archive would break (the first entry's name, order and size; the archive size and compression ratio).
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
 * written beside the output and renamed; on any failure, and on a cancellation (`signal`), nothing is
 * left behind. Throws an {@link ArchiveError}.
 */
export async function writeArchive(output: string, entries: readonly WriterEntry[], options: WriteArchiveOptions = {}): Promise<WrittenArchive> {
  const limits = resolveLimits(options.limits)
  const plan = new ArchivePlan(limits, entries.length)
  entries.forEach((entry, position) => plan.add(entry, position))
  const [first, ...rest] = entries
  const read = progressOf(entries, options.onProgress)
  const body = await Body.write(path.resolve(output), rest, plan, read, {signal: options.signal})
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
  const body = await Body.write(path.resolve(output), entries, plan, progressOf(entries, options.onProgress), {signal: options.signal, encodeWorker: options.encodeWorker})
  return {
    entries: body.written,
    finish: async (first, finishOptions = {}) => {
      plan.add(first, 0)
      return body.finish(first, {overwrite: finishOptions.overwrite === true, copied: progressOf([first, ...entries], finishOptions.onProgress)})
    },
    discard: () => body.discard(),
  }
}

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

function progressOf(entries: readonly WriterEntry[], onProgress: ((progress: WriteProgress) => void | Promise<void>) | undefined): ProgressCounter {
  const totalBytes = entries.reduce((sum, entry) => sum + sourceSize(entry.source), 0)
  const progress: WriteProgress = {entries: 0, totalEntries: entries.length, bytes: 0, totalBytes}
  return (entry) => {
    progress.entries += 1
    progress.bytes += sourceSize(entry.source)
    return onProgress?.({...progress})
  }
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
    private readonly signal: AbortSignal | undefined,
  ) {
    this.#forget = trackTemporaryFile(temporary)
    try {
      this.#file = OutputFile.create(temporary, target)
    } catch (error) {
      this.#forget()
      throw error
    }
  }

  /** Writes `entries` into a new body file beside `target`; the caller must `discard()` it. `signal` cancels this and {@link finish}. */
  static async write(target: string, entries: readonly WriterEntry[], plan: ArchivePlan, read: ProgressCounter, options: EntryWriting): Promise<Body> {
    const {signal} = options
    throwIfCancelled(signal)
    const body = new Body(target, temporarySibling(`${target}.body`), entries, plan, signal)
    try {
      const {records, written} = await writeEntries(body.#file, entries, read, options)
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
    const temporary = temporarySibling(this.target)
    const forget = trackTemporaryFile(temporary)
    let file: OutputFile | null = null
    try {
      file = OutputFile.create(temporary, this.target)
      // The archive's digest, computed over its bytes in order as they are put in place.
      const hash = createHash('sha256')
      const records: {record: EntryRecord; offset: number}[] = []
      if (first !== null) {
        const head = await writeEntries(file, [first], options.read ?? (() => undefined), {signal: this.signal})
        hashWritten(file, hash)
        records.push({record: head.records[0]!, offset: 0})
        options.copied?.(first)
      }
      const shift = file.length
      let next = 0
      await copyBody(this.#file, file, hash, (offset) => {
        // An entry counts as copied once all its data is in place.
        for (; next < this.records.length && dataEnd(this.records[next]!) <= offset; next++) options.copied?.(this.entries[next]!)
      }, this.signal)
      for (const record of this.records) records.push({record, offset: record.offset + shift})
      const bytes = writeDirectory(file, records, hash)
      // Never leave an archive that the readers would refuse.
      checkArchiveSize(this.plan.limits, bytes)
      checkCompressionRatio(this.plan.limits, this.plan.totalBytes, bytes)
      // The last moment a cancellation stops the write: once in place, the archive is whole.
      throwIfCancelled(this.signal)
      await placeFile(temporary, this.target, options.overwrite)
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

/** Appends the central directory of `records` and the end record to `file`, hashed; returns the archive's size. */
function writeDirectory(file: OutputFile, records: readonly {record: EntryRecord; offset: number}[], hash: Hash): number {
  const directoryOffset = file.length
  const directory = centralDirectory(records)
  if (directoryOffset + directory.length > zip32Max) throw zip64('the archive would reach 4 GiB')
  const end = endRecord(records.length, directory.length, directoryOffset)
  writing(file.target, () => {
    file.append(directory)
    file.append(end)
    file.finish()
  })
  hash.update(directory)
  hash.update(end)
  return directoryOffset + directory.length + end.length
}
