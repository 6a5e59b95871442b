import {constants} from 'node:fs'
import type {Readable} from 'node:stream'
import {finished} from 'node:stream/promises'
import yauzl, {type ZipFile} from 'yauzl'
import {isCancellation, onCancel, throwIfCancelled, cancelledError} from '../cancellation.js'
import {readCentralDirectory, type CentralRecord} from './central-directory.js'
import {readEndRecord} from './end-record.js'
import {isSmallEntry, openEntryStream, wholeEntryMaxBytes} from './entry-stream.js'
import {ArchiveError} from './errors.js'
import {closeFd, FdRangeStream, openFd, statFd} from './fd.js'
import {startFileDigest, type ByteRange, type FileDigest} from './file-digest.js'
import {ArchiveFileReader} from './file-reader.js'
import {checkArchiveSize, checkEntryCount, resolveLimits} from './limits.js'
import {checkLocalHeaders} from './local-headers.js'
import {quoteName} from './path-policy.js'
import type {ArchiveEntry, ArchiveLimits, DigestOptions, EntryDigest, EntryLocation, EntryStream, StrictArchive} from './types.js'
import {formatMiB} from '../quantities.js'
import {batchBuffers, digestWholeEntry, openWholeEntryStream, planBatches, readBatch, readBatchRange, verifyWholeEntry, type Batch, type WholeEntry} from './whole-entries.js'
import type {ReusedBuffers} from './fd.js'

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

// Four jobs at a time (an entry that streams, or a batch of small ones): some inflate on the thread pool
// while others are hashed (measured: beyond four gains nothing on two cores).
const digestParallelism = 4
/**
 * A batch digested elsewhere: at most 256 KiB read, smaller than a batch read here so that the threads
 * elsewhere share the work evenly (1 MiB holds up to thousands of entries of a few hundred bytes), and at most
 * 4 MiB declared, since every byte of it may come back at once (entries that compress a thousandfold, each
 * holding a key marker, would otherwise bring back hundreds of MiB in one reply).
 */
const elsewhereBatch = {bytes: 256 * 1024, inflated: 4 * 1024 * 1024}

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
  /** Where entries declined by `digestBatch` are inflated, made on the first. */
  #scratch: Buffer | undefined

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
    const digests = new Map<string, EntryDigest>()
    const jobs = this.#digestJobs(entries, digests, options)
    // Keyed by position in `jobs`.
    const failures = new Map<number, unknown>()
    let next = 0
    const worker = async (): Promise<void> => {
      while (next < jobs.length && failures.size === 0) {
        const position = next++
        try {
          throwIfCancelled(this.#signal)
          await jobs[position]!()
        } catch (error) {
          failures.set(position, error)
        }
      }
    }
    await Promise.all(Array.from({length: Math.min(digestParallelism, jobs.length)}, worker))
    // A cancelled read is cancelled, whatever else failed meanwhile. Otherwise every job dispatched before
    // the first failure was settled: report the earliest, which is therefore the same one on every run (a
    // batch stops at its first failing entry).
    const cancelled = [...failures.values()].find(isCancellation)
    if (cancelled !== undefined) throw cancelled
    if (failures.size > 0) throw failures.get(Math.min(...failures.keys()))
    return new Map(entries.map((entry) => [entry.name, digests.get(entry.name)!]))
  }

  /**
   * The jobs that digest `entries` into `digests`: each entry that streams on its own, largest first (a large
   * entry left for the end would stream alone while the other readers idle), then the small ones in batches
   * of entries that lie together in the file, each batch one read.
   */
  #digestJobs(entries: readonly ArchiveEntry[], digests: Map<string, EntryDigest>, options: DigestOptions): (() => Promise<void>)[] {
    const streamed: Located[] = []
    const small: Located[] = []
    for (const entry of entries) {
      const located = this.#locate(entry)
      ;(isSmallEntry(located.entry) ? small : streamed).push(located)
    }
    streamed.sort((a, b) => b.entry.compressedSize - a.entry.compressedSize || a.dataStart - b.dataStart)
    const jobs = streamed.map((located) => async () => {
      const stream = await this.openEntry(located.entry)
      await finished(stream.resume())
      digests.set(located.entry.name, stream.digest!)
    })
    const buffers = batchBuffers()
    if (options.digestBatch === undefined) for (const batch of planBatches(small)) jobs.push(() => this.#digestBatch(batch, buffers, digests, options.keep))
    else for (const batch of planBatches(small, elsewhereBatch)) jobs.push(() => this.#digestBatchElsewhere(batch, digests, options))
    return jobs
  }

  /** Reads a batch of small entries with one read, then checks and hashes each, handing its bytes to `keep`. */
  async #digestBatch(batch: Batch<Located>, buffers: ReusedBuffers, digests: Map<string, EntryDigest>, keep: DigestOptions['keep']): Promise<void> {
    await this.#tracked(readBatch(this.#fd, batch, buffers, (located, compressed) => this.#digestHere(located.entry, compressed, digests, keep)))
  }

  /**
   * Checks and hashes one small entry from its compressed bytes on this thread, then hands its bytes to
   * `keep`; with `scratch`, inflated into it at once whatever its size (see verifyWholeEntry).
   */
  #digestHere(entry: ArchiveEntry, compressed: Buffer, digests: Map<string, EntryDigest>, keep: DigestOptions['keep'], scratch?: Buffer): void | Promise<void> {
    throwIfCancelled(this.#signal)
    const accept = (whole: WholeEntry): void | Promise<void> => {
      digests.set(entry.name, whole.digest)
      return keep?.(entry, whole.data)
    }
    const whole = verifyWholeEntry(entry, compressed, scratch)
    return whole instanceof Promise ? whole.then(accept) : accept(whole)
  }

  /**
   * Reads a batch of small entries with one read into a buffer of its own and has `options.digestBatch`
   * check and hash them, or, when it declines, does so here; a member the file ends before is refused after
   * those before it, as {@link readBatch} does.
   */
  async #digestBatchElsewhere(batch: Batch<Located>, digests: Map<string, EntryDigest>, options: DigestOptions): Promise<void> {
    const buffer = Buffer.allocUnsafeSlow(batch.length)
    const {bytes, whole, ended} = await this.#tracked(readBatchRange(this.#fd, batch, buffer))
    throwIfCancelled(this.#signal)
    const members = whole.map((member) => ({entry: member.entry, offset: member.dataStart - batch.start}))
    // `bytes` is read only if the batch is declined: otherwise its buffer is moved to the thread that takes it.
    const elsewhere = members.length === 0 ? null : options.digestBatch!(members, buffer)
    if (elsewhere === null) {
      // Declined while threads elsewhere work: this thread inflates at once, without a trip to the thread
      // pool. The bytes `keep` is handed are a view of the scratch buffer, which it reads at once or copies.
      this.#scratch ??= Buffer.allocUnsafeSlow(wholeEntryMaxBytes + 1)
      for (const {entry, offset} of members) {
        const done = this.#digestHere(entry, bytes.subarray(offset, offset + entry.compressedSize), digests, options.keep, this.#scratch)
        if (done !== undefined) await done
      }
    } else {
      for (const [position, {digest, bytes: kept}] of (await elsewhere).entries()) {
        const {entry} = members[position]!
        digests.set(entry.name, digest)
        const done = options.keep?.(entry, kept)
        if (done !== undefined) await done
      }
    }
    if (ended !== null) throw ended
  }

  async readSmall(entry: ArchiveEntry): Promise<WholeEntry> {
    const located = this.#locate(entry)
    if (!isSmallEntry(located.entry)) throw new RangeError(`${quoteName(entry.name)} is too large to be read in one piece: stream it.`)
    throwIfCancelled(this.#signal)
    return this.#tracked(digestWholeEntry(this.#fd, located.entry, located.dataStart))
  }

  /** `work`, which reads the descriptor: close() waits for it to settle before closing the descriptor. */
  #tracked<T>(work: Promise<T>): Promise<T> {
    const settled = work.then(() => undefined, () => undefined)
    this.#wholeReads.add(settled)
    void settled.then(() => this.#wholeReads.delete(settled))
    return work
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
