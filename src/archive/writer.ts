import {randomBytes} from 'node:crypto'
import {once} from 'node:events'
import {link, lstat, rename, unlink} from 'node:fs/promises'
import path from 'node:path'
import type {PassThrough, Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import yazl, {type Options as YazlOptions} from 'yazl'
import {trackTemporaryFile} from '../fs/temporary-files.js'
import {ArchiveError} from './errors.js'
import {SizeTally, checkArchiveSize, checkCompressionRatio, checkEntryCount, manifestEntryName, resolveLimits} from './limits.js'
import {EntryNameRegistry, compareEntryNames} from './names.js'
import {OutputFile} from './output-file.js'
import {checkEntryPath, describeEntryPathProblem, quoteName} from './path-policy.js'
import {digestHex, readSource, sourceSize, streamSource, type WriterSource} from './source.js'
import type {ArchiveLimits} from './types.js'

export type {WriterSource} from './source.js'

/** One file of the archive to write. */
export interface WriterEntry {
  /** The archive path; it must pass the entry-path policy. */
  name: string
  /** 0o755 for a declared entrypoint executable, 0o644 for everything else (DESIGN §5.4). */
  mode: 0o644 | 0o755
  /** Store the bytes instead of deflating them (the caller decides where deflate does not shrink). */
  store: boolean
  source: WriterSource
}

/** Options of {@link writeArchive}. */
export interface WriteArchiveOptions {
  /** Overrides of the limits of DESIGN §5.2; nothing is written that a reader with these limits would refuse. */
  limits?: Partial<ArchiveLimits>
  /** Replace an existing file at the output path; without it an existing output is `output-exists`. */
  overwrite?: boolean
  /** Called each time an entry's source has been read in full. */
  onProgress?: (progress: WriteProgress) => void
}

/** How far a {@link writeArchive} call has read its sources. */
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

const deflateLevel = 6
// Files up to this size are read whole and handed to yazl's addBuffer, which deflates them on the
// libuv thread pool at once: several compress in parallel, on every core.
const bufferedEntryMax = 8 * 1024 * 1024
// Raw bytes per batch; two batches are in flight (one compressing, one waiting to be written). Measured on
// a 300 MB, 2,000-file tree: 4 MiB keeps the thread pool busy with a peak RSS near 120 MB, 8 MiB near
// 145 MB, 32 MiB near 230 MB (V8 frees Buffers late, so garbage adds to what is live).
const batchBytes = 4 * 1024 * 1024
const parallelReads = 4
// yazl's Entry state once an entry's bytes are written (yazl 3.x index.js, Entry.FILE_DATA_DONE).
const yazlEntryWritten = 3

/**
 * Writes a deterministic `.svcPlugin` archive (DESIGN §5.4) with yazl: entries in the order given
 * (`manifest.json` first, then the rest sorted with {@link compareEntryNames}: out of order is a
 * RangeError), fixed date 1980-01-01 00:00, mode `0o100000 | mode`, deflate level 6 unless stored,
 * no extra fields, no comments, UTF-8 names. File sources are hashed again as they are read
 * (`source-changed` when they no longer match). The archive is written to `<output>.<random>.tmp`
 * beside the output and renamed; on any failure nothing is left behind. Throws an {@link ArchiveError}.
 */
export async function writeArchive(output: string, entries: readonly WriterEntry[], options: WriteArchiveOptions = {}): Promise<WrittenArchive> {
  const limits = resolveLimits(options.limits)
  const target = path.resolve(output)
  const plan = planArchive(entries, limits)
  const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`
  const forget = trackTemporaryFile(temp)
  try {
    const {bytes, sha256} = await new ArchiveWriter(temp, entries, plan, options.onProgress).run()
    // Never leave an archive that the readers would refuse.
    checkArchiveSize(limits, bytes)
    checkCompressionRatio(limits, plan.totalBytes, bytes)
    await moveIntoPlace(temp, target, options.overwrite === true)
    return {path: target, bytes, sha256, entries: entries.length}
  } catch (error) {
    await unlink(temp).catch(() => undefined)
    throw error
  } finally {
    forget()
  }
}

interface Plan {
  totalBytes: number
  /** Entry indexes, in order, cut where about {@link batchBytes} of buffered bytes were read. */
  batches: number[][]
}

/** Refuses, before anything is written, what no reader would accept or what is not deterministic. */
function planArchive(entries: readonly WriterEntry[], limits: ArchiveLimits): Plan {
  checkEntryCount(limits, entries.length)
  const names = new EntryNameRegistry()
  const sizes = new SizeTally(limits)
  const batches: number[][] = []
  let batch: number[] = []
  let batchSize = 0
  entries.forEach((entry, index) => {
    const {name} = entry
    const problem = checkEntryPath(name)
    if (problem !== null) throw new ArchiveError('unsafe-entry', describeEntryPathProblem(name, problem), {reason: problem, entry: name})
    names.add(name)
    if (entry.mode !== 0o644 && entry.mode !== 0o755) throw new RangeError(`Entry ${quoteName(name)} has mode 0o${Number(entry.mode).toString(8)}; only 0o644 and 0o755 are written.`)
    const previous = entries[index - 1]
    if (name === manifestEntryName ? index !== 0 : previous !== undefined && previous.name !== manifestEntryName && compareEntryNames(previous.name, name) >= 0) {
      throw new RangeError(`Entry ${quoteName(name)} is out of order: ${manifestEntryName} comes first, then names sorted by their UTF-8 bytes.`)
    }
    const size = sourceSize(entry.source)
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`Entry ${quoteName(name)} has an invalid size ${size}.`)
    if (entry.source.kind !== 'buffer') digestHex(entry.source.sha256, name)
    sizes.add(name, size)

    const buffered = size <= bufferedEntryMax ? size : 0
    if (batch.length > 0 && batchSize + buffered > batchBytes) {
      batches.push(batch)
      batch = []
      batchSize = 0
    }
    batch.push(index)
    batchSize += buffered
  })
  if (batch.length > 0) batches.push(batch)
  return {totalBytes: sizes.total, batches}
}

/** A one-shot signal; the writer opens every gate when it fails, so no wait outlives a failure. */
class Gate {
  #open!: () => void
  readonly opened = new Promise<void>((resolve) => (this.#open = resolve))

  open(): void {
    this.#open()
  }
}

/** One run of yazl over a plan, feeding it in bounded batches. */
class ArchiveWriter {
  readonly #zip = new yazl.ZipFile()
  readonly #output = this.#zip.outputStream as PassThrough
  readonly #abort = new AbortController()
  readonly #sources = new Set<Readable>()
  readonly #gates = new Set<Gate>()
  /** Index of the first yazl entry whose bytes may still be referenced. */
  #released = 0
  // DESIGN §5.4: every entry carries 1980-01-01 00:00. yazl encodes the local-time fields of the Date
  // it is given, so a Date built from local fields encodes the same DOS bytes in every time zone.
  readonly #dosEpoch = new Date(1980, 0, 1, 0, 0, 0, 0)
  #failure: unknown = null
  #readEntries = 0
  #readBytes = 0

  constructor(
    private readonly temp: string,
    private readonly entries: readonly WriterEntry[],
    private readonly plan: Plan,
    private readonly onProgress: ((progress: WriteProgress) => void) | undefined,
  ) {}

  async run(): Promise<{bytes: number; sha256: string}> {
    const file = new OutputFile(this.temp)
    this.#zip.on('error', (error: Error) => this.#fail(new ArchiveError('write-failed', `The archive could not be assembled: ${error.message}`, {reason: 'output-io'}, {cause: error})))
    const written = pipeline(this.#output, file).catch((error: unknown) => {
      this.#fail(new ArchiveError('write-failed', `${this.temp} could not be written: ${(error as Error).message}`, {reason: 'output-io', path: this.temp}, {cause: error}))
    })
    const fed = this.#feed().catch((error: unknown) => this.#fail(error))
    await Promise.all([written, fed])
    // The temporary file may be removed (or renamed) only once its descriptor is closed.
    if (!file.closed) await once(file, 'close').catch(() => undefined)
    if (this.#failure !== null) throw this.#failure
    return {bytes: file.bytes, sha256: file.digest()}
  }

  #fail(error: unknown): void {
    if (this.#failure !== null) return
    this.#failure = error
    this.#abort.abort()
    for (const gate of this.#gates) gate.open()
    for (const source of this.#sources) source.destroy()
    this.#output.destroy(error instanceof Error ? error : new Error(String(error)))
  }

  get #failed(): boolean {
    return this.#failure !== null
  }

  /**
   * Adds entries batch by batch. The first entry of each later batch goes in through
   * addReadStreamLazy: yazl asks for its stream only once every earlier entry has been written out,
   * which is the signal that the batch before it no longer holds memory. Batch k is read only when
   * batch k-2 is out, so about two batches are in flight.
   */
  async #feed(): Promise<void> {
    const {batches} = this.plan
    const started: Gate[] = []
    for (let k = 0; k < batches.length; k++) {
      if (k >= 2) await started[k - 1]!.opened
      if (this.#failed) return
      const batch = batches[k]!
      const bufferedIndexes = batch.filter((index, position) => !(position === 0 && k > 0) && !this.#isStreamed(index))
      const reads = this.#readAhead(bufferedIndexes)
      let nextRead = 0
      for (const [position, index] of batch.entries()) {
        const entry = this.entries[index]!
        if (position === 0 && k > 0) {
          started[k] = this.#addStreamed(entry)
        } else if (this.#isStreamed(index)) {
          this.#addStreamed(entry)
        } else {
          const data = await reads(nextRead++)
          if (this.#failed) return
          this.#zip.addBuffer(data, entry.name, this.#options(entry))
          this.#progress(data.length)
        }
      }
    }
    if (!this.#failed) this.#zip.end()
  }

  #isStreamed(index: number): boolean {
    return sourceSize(this.entries[index]!.source) > bufferedEntryMax
  }

  /** Reads the given entries' sources with a few reads in flight; `read(i)` resolves the i-th, in order. */
  #readAhead(indexes: readonly number[]): (i: number) => Promise<Buffer> {
    const promises: Promise<Buffer>[] = []
    const startUpTo = (count: number): void => {
      while (promises.length < Math.min(count, indexes.length)) {
        const entry = this.entries[indexes[promises.length]!]!
        const promise = readSource(entry.name, entry.source)
        // A read ahead may fail before it is awaited; the failure is reported when it is.
        promise.catch(() => undefined)
        promises.push(promise)
      }
    }
    return (i) => {
      startUpTo(i + parallelReads)
      return promises[i]!
    }
  }

  /** Adds an entry whose bytes yazl pulls from a checked stream once every earlier entry is written. */
  #addStreamed(entry: WriterEntry): Gate {
    const gate = new Gate()
    this.#gates.add(gate)
    const size = sourceSize(entry.source)
    this.#zip.addReadStreamLazy(entry.name, {...this.#options(entry), size}, (callback) => {
      if (this.#failed) return
      this.#releaseWritten()
      void this.#drained()
        .then(async () => {
          gate.open()
          this.#gates.delete(gate)
          if (this.#failed) return
          const stream = await streamSource(entry.name, entry.source)
          this.#sources.add(stream)
          stream.on('error', (error) => this.#fail(error))
          stream.on('end', () => this.#progress(size))
          stream.on('close', () => this.#sources.delete(stream))
          if (this.#failed) stream.destroy()
          else callback(null, stream)
        })
        .catch((error: unknown) => this.#fail(error))
    })
    return gate
  }

  /**
   * yazl 3.x keeps each buffered entry's compressed bytes referenced from the entry's pump function
   * after writing them (addBuffer's closure, never cleared), so memory would grow with the archive.
   * Drop that reference from every entry yazl has written; entries are written in order, so the
   * written ones are a prefix. Only objects of yazl 3.x's shape are touched.
   */
  #releaseWritten(): void {
    const entries = (this.#zip as unknown as {entries?: unknown}).entries
    if (!Array.isArray(entries)) return
    for (; this.#released < entries.length; this.#released++) {
      const entry = entries[this.#released] as {state?: unknown; doFileDataPump?: unknown}
      if (entry.state !== yazlEntryWritten) break
      entry.doFileDataPump = undefined
    }
  }

  /** Resolves once yazl's output has been handed on to the file (or the write was aborted). */
  async #drained(): Promise<void> {
    if (!this.#output.writableNeedDrain) return
    await once(this.#output, 'drain', {signal: this.#abort.signal}).catch(() => undefined)
  }

  #options(entry: WriterEntry): Partial<YazlOptions> {
    return {
      mtime: this.#dosEpoch,
      // No extra field: without this yazl adds an Info-ZIP timestamp to every central record.
      forceDosTimestamp: true,
      mode: 0o100000 | entry.mode,
      compress: !entry.store,
      compressionLevel: entry.store ? 0 : deflateLevel,
    }
  }

  #progress(bytes: number): void {
    this.#readEntries++
    this.#readBytes += bytes
    this.onProgress?.({entries: this.#readEntries, totalEntries: this.entries.length, bytes: this.#readBytes, totalBytes: this.plan.totalBytes})
  }
}

/** Renames the finished archive onto `target`; without `overwrite`, never replaces an existing file. */
async function moveIntoPlace(temp: string, target: string, overwrite: boolean): Promise<void> {
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
      if (code === 'EEXIST') throw outputExists(target, error)
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'EXDEV' && code !== 'ENOSYS') throw error
      // A file system without hard links: check, then rename.
      if (await lstat(target).then(() => true, () => false)) throw outputExists(target, error)
      await rename(temp, target)
      return
    }
    await unlink(temp)
  } catch (error) {
    if (error instanceof ArchiveError) throw error
    throw new ArchiveError('write-failed', `${target} could not be written: ${(error as Error).message}`, {reason: 'output-io', path: target}, {cause: error})
  }
}

function outputExists(target: string, cause: unknown): ArchiveError {
  return new ArchiveError('output-exists', `${target} already exists.`, {reason: 'output-exists', path: target}, {cause})
}
