import {randomBytes} from 'node:crypto'
import {once} from 'node:events'
import {link, lstat, rename, unlink} from 'node:fs/promises'
import path from 'node:path'
import type {PassThrough, Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import yazl, {type Options as YazlOptions} from 'yazl'
import {ArchiveError} from './errors.js'
import {SizeTally, checkArchiveSize, checkCompressionRatio, checkEntryCount, manifestEntryName, resolveLimits} from './limits.js'
import {EntryNameRegistry} from './names.js'
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
// libuv thread pool: several compress in parallel, on every core, big files included (a streamed
// entry deflates on one thread while nothing after it can be written). Larger files are streamed.
const bufferedEntryMax = 48 * 1024 * 1024
// Raw bytes of buffered entries read but not yet written out by yazl. While a big entry compresses,
// the entries after it are read and compressed until this budget is spent. Measured on a 300 MB,
// 2,000-file tree (three 40 MB files): 64 MiB keeps both cores busy with a peak RSS near <RSS>.
const inFlightBytes = 64 * 1024 * 1024
const parallelReads = 4
// yazl's Entry state once an entry's bytes are written (yazl 3.x index.js, Entry.FILE_DATA_DONE).
const yazlEntryWritten = 3

/**
 * Compares entry names by the UTF-8 bytes of the path (DESIGN §5.4), which is code-point order:
 * UTF-16 code-unit order differs for characters above U+FFFF.
 */
export function compareEntryNames(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate encodes a code point above U+FFFF, which sorts after every other BMP character.
    const xSurrogate = x >= 0xd800 && x <= 0xdfff
    const ySurrogate = y >= 0xd800 && y <= 0xdfff
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1
    return x < y ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

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
  }
}

interface Plan {
  totalBytes: number
}

/** Refuses, before anything is written, what no reader would accept or what is not deterministic. */
function planArchive(entries: readonly WriterEntry[], limits: ArchiveLimits): Plan {
  checkEntryCount(limits, entries.length)
  const names = new EntryNameRegistry()
  const sizes = new SizeTally(limits)
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
  })
  return {totalBytes: sizes.total}
}

/** One run of yazl over a plan, feeding it under a budget of raw bytes in flight. */
class ArchiveWriter {
  readonly #zip = new yazl.ZipFile()
  readonly #output = this.#zip.outputStream as PassThrough
  readonly #abort = new AbortController()
  readonly #sources = new Set<Readable>()
  /** Index of the first yazl entry whose bytes may still be referenced. */
  #released = 0
  /** Raw size of each buffered entry, by yazl entry index (0 for streamed entries). */
  readonly #rawSizes: number[] = []
  /** Raw bytes of buffered entries read (or being read) and not yet written out. */
  #inFlight = 0
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
    for (const source of this.#sources) source.destroy()
    this.#output.destroy(error instanceof Error ? error : new Error(String(error)))
  }

  get #failed(): boolean {
    return this.#failure !== null
  }

  /**
   * Adds every entry in order. Buffered entries are read a few at a time, each once its raw size
   * fits in {@link inFlightBytes} (or nothing else is in flight), so the thread pool always has the
   * next entries to deflate while yazl writes in order; an entry's bytes leave the budget once yazl
   * has written it out. Streamed entries hold no budget: yazl pulls them when their turn comes.
   */
  async #feed(): Promise<void> {
    const count = this.entries.length
    const reads: {index: number; data: Promise<Buffer> | null}[] = []
    let nextRead = 0
    let nextAdd = 0
    while (nextAdd < count) {
      if (this.#failed) return
      this.#releaseWritten()
      while (nextRead < count && reads.length < parallelReads) {
        const entry = this.entries[nextRead]!
        const size = sourceSize(entry.source)
        if (size > bufferedEntryMax) {
          reads.push({index: nextRead++, data: null})
          continue
        }
        if (this.#inFlight > 0 && this.#inFlight + size > inFlightBytes) break
        this.#inFlight += size
        const data = readSource(entry.name, entry.source)
        // A read ahead may fail before it is awaited; the failure is reported when it is.
        data.catch(() => undefined)
        reads.push({index: nextRead++, data})
      }
      const next = reads.shift()
      if (next === undefined) {
        await this.#someWritten()
        continue
      }
      const entry = this.entries[next.index]!
      nextAdd++
      if (next.data === null) {
        this.#rawSizes.push(0)
        this.#addStreamed(entry)
        continue
      }
      const data = await next.data
      if (this.#failed) return
      this.#rawSizes.push(data.length)
      this.#zip.addBuffer(data, entry.name, this.#options(entry))
      this.#progress(data.length)
    }
    if (!this.#failed) this.#zip.end()
  }

  /** Resolves once yazl has written out at least one more entry (or the write failed). */
  async #someWritten(): Promise<void> {
    const before = this.#released
    while (!this.#failed && this.#releaseWritten() === before) {
      await once(this.#output, 'data', {signal: this.#abort.signal}).catch(() => undefined)
      // yazl marks an entry written right after handing its last bytes to the output.
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
  }

  /** Adds an entry whose bytes yazl pulls from a checked stream once every earlier entry is written. */
  #addStreamed(entry: WriterEntry): void {
    const size = sourceSize(entry.source)
    this.#zip.addReadStreamLazy(entry.name, {...this.#options(entry), size}, (callback) => {
      if (this.#failed) return
      this.#releaseWritten()
      void this.#drained()
        .then(async () => {
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
  }

  /**
   * yazl 3.x keeps each buffered entry's compressed bytes referenced from the entry's pump function
   * after writing them (addBuffer's closure, never cleared), so memory would grow with the archive.
   * Drop that reference from every entry yazl has written; entries are written in order, so the
   * written ones are a prefix, and their raw bytes leave the in-flight budget. Only objects of
   * yazl 3.x's shape are touched. Returns how many entries are written.
   */
  #releaseWritten(): number {
    const entries = (this.#zip as unknown as {entries?: unknown}).entries
    if (!Array.isArray(entries)) return this.#released
    for (; this.#released < entries.length; this.#released++) {
      const entry = entries[this.#released] as {state?: unknown; doFileDataPump?: unknown}
      if (entry.state !== yazlEntryWritten) break
      entry.doFileDataPump = undefined
      this.#inFlight -= this.#rawSizes[this.#released] ?? 0
    }
    return this.#released
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
