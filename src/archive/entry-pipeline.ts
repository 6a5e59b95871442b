import {createHash} from 'node:crypto'
import {cancelledError, onCancel, throwIfCancelled} from '../cancellation.js'
import {deflateChunkBytes} from './deflate.js'
import {ChunkBuffers, EncodedEntry, byteLength, type EncodeHooks, type EntryFacts, type FileToEncode, type Piece} from './entry-encoder.js'
import {EncodeWorkers, batchBytesMax, batchFilesMax, encodedFileAt, encodesInWorker, worthWorkers, type EncodedBatch} from './encode-workers.js'
import {writing, type OutputFile} from './output-file.js'
import {digestChanged, openSource, sourceSize, type WriterSource} from './source.js'
import {localHeader, localHeaderBytes, zip32Max, zip64, type EntryRecord} from './zip-records.js'

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

/** One entry as written: the size and SHA-256 of the very bytes the archive holds. */
export interface WrittenEntry {
  name: string
  size: number
  /** `sha256:` + 64 lowercase hex digits. */
  sha256: string
}

/** Counts one more entry done (read, or copied into place) and reports the totals; a promise it returns is awaited where reading can wait. */
export type ProgressCounter = (entry: WriterEntry) => void | Promise<void>

// At most this many bytes of entry data are held between being read and being written (chunks
// waiting for deflate, pieces waiting for their turn), and at most this many entries are between
// read and written: neither grows with entry sizes or counts. Measured on the bench tree, 8 MiB
// (eight 1 MiB chunks for four pool threads) packs as fast as 16 MiB and keeps about 15 MB less
// resident. (Batches out on encoding workers count in bytes; their entries are queued once back.)
const bufferedBytesMax = 8 * 1024 * 1024
const bufferedEntriesMax = 256

/**
 * Writes entries, in order, at the end of `file`: sources are read one after the other (each
 * once) while the chunks read so far are deflated in parallel, and each entry's local header and
 * data are written as soon as every entry before it is out. No data descriptors: an entry written
 * before its CRC and sizes are known gets its local header filled in afterwards. Once `signal` is
 * aborted, no further entry or chunk is read and every wait of both sides rejects with its `AbortError`
 * (a chunk still deflating on the thread pool finishes there and is dropped). Encoding workers, when
 * started, run `encodeWorker` (the archive's own by default).
 */
export async function writeEntries(file: OutputFile, entries: readonly WriterEntry[], read: ProgressCounter, options: EntryWriting = {}): Promise<{records: EntryRecord[]; written: WrittenEntry[]}> {
  return new EntryPipeline(file, entries, read, options.signal, options.encodeWorker).run()
}

/** How {@link writeEntries} writes: what cancels it, and the module of its encoding workers. */
export interface EntryWriting {
  signal?: AbortSignal | undefined
  encodeWorker?: URL | undefined
}

/**
 * The two sides of {@link writeEntries}: the reading side starts each entry's encoding in turn (at most
 * {@link bufferedEntriesMax} ahead), the writing side writes the oldest entry as its pieces come, and
 * both wait on {@link Changes} for the other. The memory budget ({@link bufferedBytesMax}) is taken as
 * chunks are read and given back as their pieces are written.
 */
class EntryPipeline {
  readonly #changes = new Changes()
  readonly #buffers = new ChunkBuffers()
  /** Entries being read or waiting for their turn, oldest first from `#head`. */
  #queue: EncodedEntry<WriterEntry>[] = []
  #head = 0
  #buffered = 0
  readonly #records: EntryRecord[] = []
  readonly #written: WrittenEntry[] = []
  readonly #hooks: EncodeHooks

  constructor(
    private readonly file: OutputFile,
    private readonly entries: readonly WriterEntry[],
    private readonly read: ProgressCounter,
    private readonly signal: AbortSignal | undefined,
    private readonly encodeWorker: URL | undefined,
  ) {
    this.#hooks = {
      // One chunk may always go, or an entry larger than the budget would wait forever.
      reserve: (bytes) => {
        if (this.#buffered > 0 && this.#buffered + bytes > bufferedBytesMax) return this.#waitForRoom(bytes)
        this.#buffered += bytes
        return undefined
      },
      changed: () => this.#changes.notify(),
      failed: (error) => this.#changes.fail(error),
      buffers: this.#buffers,
      signal,
    }
  }

  async run(): Promise<{records: EntryRecord[]; written: WrittenEntry[]}> {
    const fail = (error: unknown) => this.#changes.fail(error)
    // An abort wakes both sides at once, whatever they wait for.
    const stopListening = onCancel(this.signal, () => fail(cancelledError(this.signal!)))
    try {
      await Promise.all([this.#readAll().catch(fail), this.#writeAll().catch(fail)])
    } finally {
      stopListening()
    }
    this.#changes.throwIfFailed()
    return {records: this.#records, written: this.#written}
  }

  async #waitForRoom(bytes: number): Promise<void> {
    while (this.#buffered > 0 && this.#buffered + bytes > bufferedBytesMax) await this.#changes.wait()
    this.#buffered += bytes
  }

  async #readAll(): Promise<void> {
    const taken = this.entries.filter((entry) => encodesInWorker(entry.source)).map((entry) => sourceSize(entry.source))
    const workers = worthWorkers(taken, this.entries.reduce((sum, entry) => sum + sourceSize(entry.source), 0)) ? new EncodeWorkers(this.encodeWorker) : null
    try {
      await this.#readEntries(workers)
    } finally {
      await workers?.close()
    }
  }

  /**
   * Starts each entry's encoding in order: a run of files a worker can take goes to the workers in batches
   * (at most {@link EncodeWorkers.depth} batches out at once), anything else is read here. Progress is
   * counted entry by entry, in order, as each is read.
   */
  async #readEntries(workers: EncodeWorkers | null): Promise<void> {
    const out: SentBatch[] = []
    for (let index = 0; index < this.entries.length; ) {
      throwIfCancelled(this.signal)
      const batch = workers === null ? [] : this.#batchAt(index)
      if (batch.length > 0) {
        out.push(await this.#send(workers!, batch))
        if (out.length >= workers!.depth) await this.#receive(out.shift()!)
        index += batch.length
        continue
      }
      while (out.length > 0) await this.#receive(out.shift()!)
      await this.#roomFor(1)
      const entry = this.entries[index++]!
      const encoded = this.#started(new EncodedEntry(entry, this.#hooks))
      // A small file is usually complete already: no need to wait a turn.
      if (!encoded.complete) await encoded.read
      const waiting = this.read(entry)
      if (waiting !== undefined) await waiting
    }
    while (out.length > 0) await this.#receive(out.shift()!)
  }

  /** The entries from `index` on that go to a worker together (none when the entry at `index` cannot). */
  #batchAt(index: number): WriterEntry[] {
    const batch: WriterEntry[] = []
    let bytes = 0
    for (let next = index; next < this.entries.length && batch.length < batchFilesMax; next++) {
      const entry = this.entries[next]!
      if (!encodesInWorker(entry.source) || (batch.length > 0 && bytes + sourceSize(entry.source) > batchBytesMax)) break
      batch.push(entry)
      bytes += sourceSize(entry.source)
    }
    return batch
  }

  /** Sends `batch` to a worker once the memory budget has room for it. */
  async #send(workers: EncodeWorkers, batch: readonly WriterEntry[]): Promise<SentBatch> {
    const reserved = batch.reduce((sum, entry) => sum + sourceSize(entry.source), 0)
    const room = this.#hooks.reserve(reserved)
    if (room !== undefined) await room
    const files = batch.map((entry): FileToEncode => {
      const source = entry.source as Extract<WriterSource, {kind: 'file'}>
      return {name: entry.name, path: source.path, size: source.size, store: entry.store, wantBytes: source.inspect !== undefined, exactPath: source.exactPath === true}
    })
    const results = workers.encode(files)
    // Awaited in order later; a failure must not count as unhandled before then.
    results.catch(() => undefined)
    return {entries: batch, results}
  }

  /** Takes a batch back from its worker: queues its entries, complete, in order, and counts each as read. */
  async #receive({entries, results}: SentBatch): Promise<void> {
    const batch = await results
    for (let position = 0; position < entries.length; position++) {
      const entry = entries[position]!
      await this.#roomFor(1)
      this.#started(new EncodedEntry(entry, this.#hooks, {file: encodedFileAt(batch, position), reserved: sourceSize(entry.source)}))
      const waiting = this.read(entry)
      if (waiting !== undefined) await waiting
    }
  }

  /** Waits until `count` more entries fit between read and written. */
  async #roomFor(count: number): Promise<void> {
    while (this.#queue.length - this.#head + count > bufferedEntriesMax) await this.#changes.wait()
  }

  /** Queues an entry whose encoding started, for the writing side. */
  #started(encoded: EncodedEntry<WriterEntry>): EncodedEntry<WriterEntry> {
    this.#queue.push(encoded)
    this.#changes.notify()
    return encoded
  }

  async #writeAll(): Promise<void> {
    for (let count = 0; count < this.entries.length; count++) {
      while (this.#queue.length === this.#head) await this.#changes.wait()
      const encoded = this.#queue[this.#head]!
      if (encoded.chunks > 1) {
        await this.#writeStreamed(encoded)
      } else {
        while (!encoded.complete) await this.#changes.wait()
        this.#writeWhole(encoded)
      }
      this.#head += 1
      if (this.#head >= bufferedEntriesMax) {
        this.#queue = this.#queue.slice(this.#head)
        this.#head = 0
      }
      this.#changes.notify()
    }
    this.#write(() => this.file.flush())
  }

  /** Writes an entry that is complete: its header, then its data. */
  #writeWhole(encoded: EncodedEntry<WriterEntry>): void {
    const pieces: Piece[] = []
    for (let index = 0; index < encoded.chunks; index++) pieces.push(encoded.takePiece(index))
    const facts = encoded.facts!
    const compressedSize = pieces.reduce((sum, piece) => sum + byteLength(piece.parts), 0)
    const record = this.#recordOf(encoded.entry, encoded.method, facts, compressedSize, this.file.length)
    this.#write(() => this.file.append(localHeader(record)))
    for (const piece of pieces) this.#writePiece(piece)
    this.#finished(encoded.entry, record, facts)
  }

  /** Writes an entry of several chunks as they come, then fills in its header. */
  async #writeStreamed(encoded: EncodedEntry<WriterEntry>): Promise<void> {
    const {entry} = encoded
    const offset = this.file.length
    const headerBytes = localHeaderBytes + Buffer.byteLength(entry.name, 'utf8')
    this.#write(() => this.file.append(Buffer.alloc(headerBytes)))
    let compressedSize = 0
    for (let index = 0; index < encoded.chunks; index++) {
      while (!encoded.hasPiece(index)) await this.#changes.wait()
      const piece = encoded.takePiece(index)
      compressedSize += byteLength(piece.parts)
      this.#writePiece(piece)
      this.#changes.notify()
    }
    while (!encoded.complete) await this.#changes.wait()
    const facts = encoded.facts!
    let method = encoded.method
    if (method === 8 && compressedSize >= facts.size && entry.source.kind !== 'compressed') {
      // Deflate did not make it smaller: store it, read again and held to the digest just taken.
      this.#write(() => this.file.truncate(offset + headerBytes))
      await storeAgain(this.file, entry, facts.sha256, this.#buffers, this.signal)
      method = 0
      compressedSize = facts.size
    }
    const record = this.#recordOf(entry, method, facts, compressedSize, offset)
    this.#write(() => this.file.patch(localHeader(record), offset))
    this.#finished(entry, record, facts)
  }

  /** Writes a piece's parts and gives its memory back. */
  #writePiece(piece: Piece): void {
    for (const part of piece.parts) this.#write(() => this.file.append(part))
    piece.release()
    this.#buffered -= piece.reserved
  }

  #recordOf(entry: WriterEntry, method: 0 | 8, facts: EntryFacts, compressedSize: number, offset: number): EntryRecord {
    const nameBytes = Buffer.byteLength(entry.name, 'utf8')
    if (offset + localHeaderBytes + nameBytes + compressedSize > zip32Max) throw zip64('the archive would reach 4 GiB')
    return {name: entry.name, nameBytes, mode: entry.mode, method, crc32: facts.crc32, compressedSize, size: facts.size, offset}
  }

  #finished(entry: WriterEntry, record: EntryRecord, facts: EntryFacts): void {
    this.#records.push(record)
    this.#written.push({name: entry.name, size: facts.size, sha256: facts.sha256})
  }

  #write(run: () => void): void {
    writing(this.file.target, run)
  }
}

/** Writes an entry's source stored, reading it again: it must still have the digest taken the first time. */
async function storeAgain(file: OutputFile, entry: WriterEntry, sha256: string, buffers: ChunkBuffers, signal: AbortSignal | undefined): Promise<void> {
  const hash = createHash('sha256')
  const reader = await openSource(entry.name, entry.source)
  const buffer = buffers.take(deflateChunkBytes)
  try {
    const size = sourceSize(entry.source)
    for (let offset = 0; offset < size; offset += deflateChunkBytes) {
      throwIfCancelled(signal)
      const chunk = await reader.read(buffer, Math.min(deflateChunkBytes, size - offset))
      hash.update(chunk)
      writing(file.target, () => file.append(chunk))
    }
    await reader.finish()
  } finally {
    reader.close()
    buffers.give(buffer)
  }
  if (`sha256:${hash.digest('hex')}` !== sha256) throw digestChanged(entry.name)
}

/** A batch of entries out on an encoding worker. */
interface SentBatch {
  entries: readonly WriterEntry[]
  results: Promise<EncodedBatch>
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
