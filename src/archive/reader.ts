import {constants} from 'node:fs'
import type {Readable} from 'node:stream'
import {finished} from 'node:stream/promises'
import yauzl, {type ZipFile} from 'yauzl'
import {isCancellation, onCancel, throwIfCancelled, cancelledError} from '../cancellation.js'
import {readCentralDirectory, type CentralRecord} from './central-directory.js'
import {readEndRecord} from './end-record.js'
import {digestWholeEntry, isSmallEntry, openEntryStream, openWholeEntryStream, streamedFirst} from './entry-stream.js'
import {ArchiveError} from './errors.js'
import {closeFd, FdRangeStream, openFd, statFd} from './fd.js'
import {startFileDigest, type ByteRange, type FileDigest} from './file-digest.js'
import {ArchiveFileReader} from './file-reader.js'
import {checkArchiveSize, checkEntryCount, resolveLimits} from './limits.js'
import {checkLocalHeaders} from './local-headers.js'
import {quoteName} from './path-policy.js'
import type {ArchiveEntry, ArchiveLimits, DigestOptions, EntryDigest, EntryLocation, EntryStream, StrictArchive} from './types.js'
import {formatMiB} from '../quantities.js'

/** Options of {@link openArchive}. */
export interface OpenArchiveOptions {
  /** Overrides of the default limits. */
  limits?: Partial<ArchiveLimits>
  /** Also compute the SHA-256 of the whole file (`fileSha256`), as a store publishes it. */
  fileDigest?: boolean
  /**
   * Cancels the reading: every read after the abort (the next entry, the next chunk of an entry) rejects with
   * the `AbortError` of `src/cancellation.ts`, and the entry streams open at that moment are destroyed with it.
   */
  signal?: AbortSignal
}

// Four entries at a time: some inflate on the thread pool while others are hashed (measured: beyond
// four gains nothing on two cores); at most four whole small entries are in memory at once.
const digestParallelism = 4

/**
 * Opens a `.svcPlugin` archive through every check that can be made before a file entry's byte is
 * inflated: the end record (no prepended or appended bytes, no comment, no ZIP64, one disk), the
 * entry count and archive size, every central-directory record (paths and file types, encryption and
 * flags, methods, extra fields, comments, declared sizes and ratio, duplicate and colliding names),
 * then every local header against its record, the few bytes a deflated directory entry may hold, and
 * the layout (no overlap, no gap). File entry bytes are checked while they stream. Throws an
 * {@link ArchiveError}, or the `AbortError` of a cancelled read (`options.signal`).
 */
export async function openArchive(file: string, options: OpenArchiveOptions = {}): Promise<StrictArchive> {
  const limits = resolveLimits(options.limits)
  const {signal} = options
  throwIfCancelled(signal)
  // Non-blocking: a FIFO given as an artifact must be refused at once (by the type check below), never waited on.
  const fd = await openFd(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)).catch((error: unknown) => {
    throw openError(file, error)
  })
  let zipfile: ZipFile | undefined
  try {
    const stats = await statFd(fd)
    if (!stats.isFile()) throw new ArchiveError('not-an-artifact', `${file} is not a regular file.`, {reason: 'not-a-file'})
    const end = await readEndRecord(fd, stats.size)
    checkArchiveSize(limits, stats.size)
    checkEntryCount(limits, end.entryCount)
    // Hashed through the same descriptor the checks and reads use, so the digest is of the bytes judged.
    const fileSha256 = options.fileDigest === true ? `sha256:${await startFileDigest(fd, stats.size, [], signal).sha256}` : null
    // One descriptor for every read, so the file cannot be swapped between the checks and the reads.
    const reader = new ArchiveFileReader(fd)
    await reader.cacheCentralDirectory(end.centralDirectoryOffset, stats.size)
    zipfile = await yauzl.fromRandomAccessReaderPromise(reader, stats.size, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
      strictFileNames: true,
      decodeStrings: true,
    })
    const records = await readCentralDirectory(zipfile, reader, end, stats.size, limits)
    reader.dropCache()
    const dataStarts = await checkLocalHeaders(fd, records, end)
    throwIfCancelled(signal)
    return new OpenedArchive({path: file, size: stats.size, fileSha256, limits, signal}, fd, zipfile, records, dataStarts)
  } catch (error) {
    // yauzl owns the reader (and so the descriptor) once it returned a ZipFile: its close() closes it.
    if (zipfile === undefined) await closeFd(fd).catch(() => undefined)
    else await closeZipFile(zipfile)
    throw error instanceof ArchiveError || isCancellation(error) ? error : openError(file, error)
  }
}

/** What an opened archive knows about itself besides its descriptor and records. */
interface ArchiveFacts {
  path: string
  size: number
  fileSha256: string | null
  limits: ArchiveLimits
  signal: AbortSignal | undefined
}

interface Located {
  entry: ArchiveEntry
  dataStart: number
  location: EntryLocation
}

class OpenedArchive implements StrictArchive {
  readonly path: string
  readonly size: number
  readonly fileSha256: string | null
  readonly limits: ArchiveLimits
  readonly entries: readonly ArchiveEntry[]
  readonly #fd: number
  readonly #zipfile: ZipFile
  readonly #byName = new Map<string, Located>()
  readonly #active = new Map<Readable, {name: string; released: Promise<void>}>()
  readonly #wholeReads = new Set<Promise<void>>()
  readonly #signal: AbortSignal | undefined
  readonly #stopListening: () => void
  readonly #fileDigests = new Set<FileDigest>()
  #closing: Promise<void> | null = null

  constructor(facts: ArchiveFacts, fd: number, zipfile: ZipFile, records: readonly CentralRecord[], dataStarts: readonly number[]) {
    this.path = facts.path
    this.size = facts.size
    this.fileSha256 = facts.fileSha256
    this.limits = Object.freeze({...facts.limits})
    this.#signal = facts.signal
    this.#fd = fd
    this.#zipfile = zipfile
    const entries: ArchiveEntry[] = []
    records.forEach((record, index) => {
      if (record.entry === null) return
      const entry = Object.freeze(record.entry)
      entries.push(entry)
      const dataStart = dataStarts[index]!
      this.#byName.set(entry.name, {entry, dataStart, location: {localHeader: record.localHeaderOffset, data: dataStart, centralRecord: record.offset}})
    })
    this.entries = Object.freeze(entries)
    // An abort destroys the streams being read at once: a consumer waiting for their next chunk is woken.
    this.#stopListening = onCancel(this.#signal, () => this.#destroyActive(() => cancelledError(this.#signal!)))
  }

  /** Destroys every entry stream still open, with the error `why` gives. */
  #destroyActive(why: (name: string) => Error): void {
    for (const [stream, {name}] of this.#active) stream.destroy(why(name))
  }

  /** Our own record of `entry`, for reading it: only that is trusted (a caller's object may carry other sizes). */
  #locate(entry: ArchiveEntry): Located {
    if (this.#closing !== null) throw new Error(`${this.path} is closed.`)
    const located = this.#byName.get(entry.name)
    if (located === undefined) throw new RangeError(`${quoteName(entry.name)} is not an entry of ${this.path}.`)
    return located
  }

  get(name: string): ArchiveEntry | undefined {
    return this.#byName.get(name)?.entry
  }

  async openEntry(entry: ArchiveEntry): Promise<EntryStream> {
    const located = this.#locate(entry)
    throwIfCancelled(this.#signal)
    // A small entry is read whole (its reads are tracked like any whole read), a larger one streams.
    const {stream, released} = isSmallEntry(located.entry)
      ? openWholeEntryStream(() => this.readSmall(located.entry))
      : openEntryStream(this.#fd, located.entry, located.dataStart, this.#signal)
    return this.#track(stream, entry.name, released)
  }

  openCompressed(entry: ArchiveEntry): Readable {
    const {entry: own, dataStart} = this.#locate(entry)
    throwIfCancelled(this.#signal)
    const stream = new FdRangeStream(this.#fd, {start: dataStart, end: dataStart + own.compressedSize})
    return this.#track(stream, entry.name, new Promise<void>((resolve) => stream.once('close', resolve)))
  }

  /** Keeps `stream` in the streams that close() ends and waits for (and an abort destroys). */
  #track<T extends Readable>(stream: T, name: string, released: Promise<void>): T {
    // A stream can fail before its consumer listens (a cancellation, a lie found in the chunks buffered
    // ahead of the first read): the failure stays on the stream (`errored`), where its consumer meets it
    // when it reads, instead of being an 'error' event nobody listens for, which would end the process.
    stream.on('error', () => undefined)
    this.#active.set(stream, {name, released})
    void released.then(() => this.#active.delete(stream))
    return stream
  }

  locate(entry: ArchiveEntry): EntryLocation {
    return {...this.#locate(entry).location}
  }

  digestFile(zeroed: readonly ByteRange[]): Promise<string> {
    if (this.#closing !== null) throw new Error(`${this.path} is closed.`)
    const digest = startFileDigest(this.#fd, this.size, zeroed, this.#signal)
    this.#fileDigests.add(digest)
    return digest.sha256
  }

  async readEntry(entry: ArchiveEntry, maxBytes: number = this.limits.maxManifestBytes): Promise<Buffer> {
    const declared = this.#byName.get(entry.name)?.entry.uncompressedSize ?? entry.uncompressedSize
    if (declared > maxBytes) {
      throw new ArchiveError('limit-exceeded', `Entry ${quoteName(entry.name)} is ${formatMiB(declared)}; at most ${formatMiB(maxBytes)} is read into memory.`, {
        reason: 'read-limit',
        entry: entry.name,
        limit: maxBytes,
        actual: declared,
      })
    }
    const chunks: Buffer[] = []
    for await (const chunk of await this.openEntry(entry)) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }

  async digestEntries(options: DigestOptions = {}): Promise<Map<string, EntryDigest>> {
    const entries = options.skip === undefined ? this.entries : this.entries.filter((entry) => !options.skip!.has(entry.name))
    const digests = new Array<EntryDigest | undefined>(entries.length)
    const order = streamedFirst(entries)
    // Keyed by position in `order`.
    const failures = new Map<number, unknown>()
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < order.length && failures.size === 0) {
        const position = next++
        const index = order[position]!
        try {
          throwIfCancelled(this.#signal)
          digests[index] = await this.#digest(entries[index]!, options.keep)
        } catch (error) {
          failures.set(position, error)
        }
      }
    }
    await Promise.all(Array.from({length: Math.min(digestParallelism, entries.length)}, worker))
    // A cancelled read is cancelled, whatever else failed meanwhile. Otherwise every entry dispatched before
    // the first failure was settled: report the earliest, which is therefore the same one on every run.
    const cancelled = [...failures.values()].find(isCancellation)
    if (cancelled !== undefined) throw cancelled
    if (failures.size > 0) throw failures.get(Math.min(...failures.keys()))
    return new Map(entries.map((entry, index) => [entry.name, digests[index]!]))
  }

  async readSmall(entry: ArchiveEntry): Promise<{data: Buffer; digest: EntryDigest}> {
    const located = this.#locate(entry)
    if (!isSmallEntry(located.entry)) throw new RangeError(`${quoteName(entry.name)} is too large to be read in one piece: stream it.`)
    throwIfCancelled(this.#signal)
    const whole = digestWholeEntry(this.#fd, located.entry, located.dataStart)
    // close() waits for it: the descriptor must outlive every positioned read.
    const settled = whole.then(() => undefined, () => undefined)
    this.#wholeReads.add(settled)
    void settled.then(() => this.#wholeReads.delete(settled))
    return whole
  }

  async #digest(entry: ArchiveEntry, keep: DigestOptions['keep']): Promise<EntryDigest> {
    const located = this.#byName.get(entry.name)!
    if (isSmallEntry(located.entry)) {
      const {digest, data} = await this.readSmall(entry)
      await keep?.(entry, data)
      return digest
    }
    const stream = await this.openEntry(entry)
    await finished(stream.resume())
    return stream.digest!
  }

  close(): Promise<void> {
    this.#closing ??= this.#close()
    return this.#closing
  }

  async #close(): Promise<void> {
    this.#stopListening()
    const pending = [...this.#active]
    this.#destroyActive((name) => new ArchiveError('unreadable', `${this.path} was closed while entry ${quoteName(name)} was read.`, {reason: 'archive-closed', entry: name}))
    // The descriptor is closed only once no positioned read on it is in flight.
    await Promise.all([...pending.map(([, {released}]) => released), ...this.#wholeReads, ...[...this.#fileDigests].map((digest) => digest.stop())])
    await closeZipFile(this.#zipfile)
  }
}

/** Closes yauzl's ZipFile, which closes the descriptor it was given, and waits for that. */
function closeZipFile(zipfile: ZipFile): Promise<void> {
  if (!zipfile.isOpen) return Promise.resolve()
  return new Promise((resolve) => {
    zipfile.once('close', () => resolve())
    zipfile.once('error', () => resolve())
    zipfile.close()
  })
}

function openError(file: string, error: unknown): ArchiveError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ArchiveError('file-not-found', `${file} does not exist.`, {reason: 'missing', path: file}, {cause: error})
  }
  if (code === 'EISDIR') {
    return new ArchiveError('not-an-artifact', `${file} is a directory, not a .svcPlugin archive.`, {reason: 'not-a-file', path: file}, {cause: error})
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ArchiveError('unreadable', `${file} cannot be read: ${message}`, {reason: 'io-error', path: file}, {cause: error})
}
