import {createHash, hash as hashOnce} from 'node:crypto'
import zlib from 'node:zlib'
import {throwIfCancelled} from '../cancellation.js'
import {deflateChunk, deflateChunkBytes, deflateWhole, dictionaryAfter, probeBytes, storedWithoutTrying} from './deflate.js'
import {ArchiveError, type ArchiveErrorCode, type ArchiveErrorDetails} from './errors.js'
import {digestChanged, expectedDigestHex, inspectWhole, openImmediateSource, openSource, sourceBytes, sourceSize, type CompressedSource, type ImmediateSourceReader, type SourceReader, type WriterSource} from './source.js'

/** What the encoder needs of an entry (the writer's entries carry more). */
export interface EntryToEncode {
  name: string
  /** Store the bytes as they are, whatever deflate would do. */
  store: boolean
  source: WriterSource
}

/** What an entry's bytes turned out to be, once read in full. */
export interface EntryFacts {
  size: number
  crc32: number
  /** `sha256:` + 64 lowercase hex digits of the bytes read, which are the bytes written. */
  sha256: string
}

/** One piece of an entry's data, ready to be written: stored bytes or one chunk's deflate output. */
export interface Piece {
  parts: Buffer[]
  /** Bytes of the writer's budget the piece holds until it is written. */
  reserved: number
  /** Gives the piece's buffers back for reuse; call once its parts are written (copied out). */
  release(): void
}

/** How an encoding entry asks its writer for room and tells it about progress. */
export interface EncodeHooks {
  /**
   * Takes `bytes` more of the memory budget, at once (undefined) or once the promise resolves; the
   * writer gives them back as it writes each piece.
   */
  reserve(bytes: number): Promise<void> | undefined
  /** A piece or the facts became available. */
  changed(): void
  /** A chunk could not be deflated (a read failure rejects {@link EncodedEntry.read} instead). */
  failed(error: unknown): void
  buffers: ChunkBuffers
  /** Cancels the encoding: once aborted, the next chunk is not read and {@link EncodedEntry.read} rejects with its `AbortError`. */
  signal?: AbortSignal | undefined
}

// Chunks at least this large are read into buffers that are reused; smaller ones into buffers of
// their own size. Large allocations freed in quick succession make the C allocator keep what it
// freed (glibc raises its mmap threshold after such a free): measured on the bench tree, reusing
// them keeps about 50 MB of resident memory away.
const reusedBufferMinBytes = 64 * 1024
const reusedBufferBytes = deflateChunkBytes + 1

/** Buffers for the chunks read, with room for the one spare byte a source's last read asks for. */
export class ChunkBuffers {
  readonly #free: Buffer[] = []

  /** Bytes a chunk of `length` holds while it is read, compressed and written. */
  static cost(length: number): number {
    return length + 1 >= reusedBufferMinBytes ? reusedBufferBytes : length + 1
  }

  /** A buffer with room for `length` + 1 bytes. */
  take(length: number): Buffer {
    if (length + 1 < reusedBufferMinBytes) return Buffer.allocUnsafe(length + 1)
    return this.#free.pop() ?? Buffer.allocUnsafe(reusedBufferBytes)
  }

  /** Takes back a buffer from {@link take} once nothing refers to it any more. */
  give(buffer: Buffer): void {
    if (buffer.length === reusedBufferBytes) this.#free.push(buffer)
  }
}

/**
 * One entry's data on its way into an archive: the source is read once, front to back, in chunks
 * of {@link deflateChunkBytes}; each chunk is hashed (SHA-256), CRC-checked and becomes one piece,
 * stored as it is or deflated (on the thread pool when large enough) while later chunks are read.
 *
 * Stored or deflated is decided from the bytes alone, so it never depends on the machine: an entry
 * marked `store` and an empty one are stored; one larger than {@link probeBytes} is stored when
 * its first bytes do not deflate (see {@link storedWithoutTrying}); everything else is deflated, and an
 * entry of one chunk whose deflate is not smaller than it is stored instead. (An entry of several
 * chunks is only known not to shrink once all of them are out; its writer stores it then.)
 */
export class EncodedEntry<Entry extends EntryToEncode = EntryToEncode> {
  /** Number of pieces the entry's data comes in (0 for an empty entry). */
  readonly chunks: number
  /** Settles once the source was read in full and checked (rejects when reading failed). */
  readonly read: Promise<void>
  /** 0 stored, 8 deflated: known once the first chunk was read, final once {@link complete}. */
  method: 0 | 8 = 0
  /** Set once the source was read in full and checked. */
  facts: EntryFacts | null = null
  readonly #pieces: (Piece | null | undefined)[]
  #pending: number

  /**
   * Starts reading and encoding `entry`; or, with `encoded`, takes what an encoding worker made of it
   * ({@link encodeWholeFile}; the entry is a file of one chunk, and `reserved` bytes of the budget
   * were taken for it): the entry is then complete at once, or the constructor throws what reading it met.
   */
  constructor(
    readonly entry: Entry,
    private readonly hooks: EncodeHooks,
    encoded?: {file: EncodedFile; reserved: number},
  ) {
    this.chunks = Math.ceil(sourceBytes(entry.source) / deflateChunkBytes)
    this.#pieces = new Array(this.chunks)
    this.#pending = this.chunks
    if (encoded === undefined) {
      this.read = entry.source.kind === 'compressed' ? this.#copy(entry.source) : this.#encode()
    } else {
      this.#accept(encoded.file, encoded.reserved)
      this.read = alreadyRead
    }
  }

  /** True once the facts are known and every piece is ready. */
  get complete(): boolean {
    return this.facts !== null && this.#pending === 0
  }

  /** True when piece `index` is ready to be taken. */
  hasPiece(index: number): boolean {
    return this.#pieces[index] !== undefined && this.#pieces[index] !== null
  }

  /** Hands out piece `index` (once). */
  takePiece(index: number): Piece {
    const piece = this.#pieces[index]
    if (piece === undefined || piece === null) throw new Error(`Piece ${index} of ${this.entry.name} is not ready.`)
    this.#pieces[index] = null
    return piece
  }

  #ready(index: number, piece: Piece): void {
    this.#pieces[index] = piece
    this.#pending -= 1
    this.hooks.changed()
  }

  /** Takes a file of one chunk as a worker encoded it: its bytes are shown to the source's `inspect` here. */
  #accept(file: EncodedFile, reserved: number): void {
    if (!file.ok) throw new ArchiveError(file.code, file.message, file.details)
    if (file.bytes !== null) inspectWhole(this.entry.source, file.bytes)
    const expected = expectedDigestHex(this.entry.name, this.entry.source)
    if (expected !== null && file.sha256 !== expected) throw digestChanged(this.entry.name)
    this.method = file.method
    this.facts = {size: sourceSize(this.entry.source), crc32: file.crc32, sha256: `sha256:${file.sha256}`}
    this.#ready(0, {parts: [file.data], reserved, release: () => undefined})
  }

  /** Copies already-compressed data as it is, chunk by chunk; the facts are the ones the source declares. */
  async #copy(source: CompressedSource): Promise<void> {
    const {buffers} = this.hooks
    this.method = source.method
    const reader = await openSource(this.entry.name, source)
    try {
      for (let index = 0, offset = 0; offset < source.compressedSize; index++) {
        const length = Math.min(deflateChunkBytes, source.compressedSize - offset)
        const reserved = ChunkBuffers.cost(length)
        await this.hooks.reserve(reserved)
        const buffer = buffers.take(length)
        const chunk = await reader.read(buffer, length).catch((error: unknown) => {
          buffers.give(buffer)
          throw error
        })
        offset += length
        this.#ready(index, {parts: [chunk], reserved, release: () => buffers.give(buffer)})
      }
      await reader.finish()
    } finally {
      reader.close()
    }
    this.facts = {size: source.size, crc32: source.crc32 >>> 0, sha256: source.sha256}
    this.hooks.changed()
  }

  /**
   * Reads, checks and encodes the entry. Nothing here waits unless it must (memory budget, a
   * stream source, a chunk on the thread pool): a small file is read, hashed and deflated before
   * the constructor returns, which keeps an archive of many small files from paying for a promise
   * per step.
   */
  async #encode(): Promise<void> {
    const {entry} = this
    const {buffers} = this.hooks
    const size = sourceSize(entry.source)
    const single = this.chunks <= 1
    const hash = single ? null : createHash('sha256')
    let sha256 = single && size === 0 ? hashOnce('sha256', '') : ''
    let crc = 0
    let dictionary: Buffer | null = null
    let reader: ImmediateSourceReader | SourceReader | null = null
    try {
      reader = entry.source.kind === 'stream' || entry.source.kind === 'compressed' ? await openSource(entry.name, entry.source) : openImmediateSource(entry.name, entry.source)
      for (let index = 0, offset = 0; offset < size; index++) {
        throwIfCancelled(this.hooks.signal)
        const length = Math.min(deflateChunkBytes, size - offset)
        const reserved = ChunkBuffers.cost(length)
        const room = this.hooks.reserve(reserved)
        if (room !== undefined) await room
        const buffer = buffers.take(length)
        let chunk: Buffer
        try {
          const read = reader.read(buffer, length)
          chunk = read instanceof Promise ? await read : read
        } catch (error) {
          buffers.give(buffer)
          throw error
        }
        if (hash === null) {
          sha256 = hashOnce('sha256', chunk)
          inspectWhole(entry.source, chunk)
        } else hash.update(chunk)
        crc = zlib.crc32(chunk, crc)
        offset += length
        const stored: Piece = {parts: [chunk], reserved, release: () => buffers.give(buffer)}
        if (index === 0) this.method = entry.store || storedWithoutTrying(size, chunk) ? 0 : 8
        if (this.method === 0) {
          this.#ready(index, stored)
          continue
        }
        const last = offset === size
        const deflated = deflateChunk(chunk, dictionary, last)
        dictionary = last ? null : dictionaryAfter(chunk)
        const settle = (parts: Buffer[]): void => {
          if (single && byteLength(parts) >= length) {
            // Deflate did not make it smaller: store it.
            this.method = 0
            this.#ready(index, stored)
          } else {
            buffers.give(buffer)
            this.#ready(index, {parts, reserved, release: () => undefined})
          }
        }
        if (deflated instanceof Promise) deflated.then(settle, (error: unknown) => this.hooks.failed(error))
        else settle(deflated)
      }
      const finished = reader.finish()
      if (finished instanceof Promise) await finished
    } finally {
      reader?.close()
    }
    if (hash !== null) sha256 = hash.digest('hex')
    const expected = expectedDigestHex(entry.name, entry.source)
    if (expected !== null && sha256 !== expected) throw digestChanged(entry.name)
    this.facts = {size, crc32: crc >>> 0, sha256: `sha256:${sha256}`}
    this.hooks.changed()
  }
}

/** The {@link EncodedEntry.read} of an entry complete from the start. */
const alreadyRead = Promise.resolve()

/** Total length of some buffers. */
export function byteLength(parts: readonly Buffer[]): number {
  return parts.reduce((sum, part) => sum + part.length, 0)
}

/**
 * What {@link encodeWholeFile} made of a file: its digest (hex), CRC-32, method and the data to write,
 * with its bytes when asked for them; or the {@link ArchiveError} reading it met, as plain data.
 */
export type EncodedFile =
  | {ok: true; sha256: string; crc32: number; method: 0 | 8; data: Buffer; bytes: Buffer | null}
  | {ok: false; code: ArchiveErrorCode; message: string; details: ArchiveErrorDetails}

/** A file for {@link encodeWholeFile}: a file source of one chunk (1 to {@link deflateChunkBytes} bytes). */
export interface FileToEncode {
  name: string
  path: string
  size: number
  store: boolean
  /** Return the file's bytes too (its source has an `inspect` hook). */
  wantBytes: boolean
  /** The source's `exactPath`: the file opened must be at `path` itself. */
  exactPath: boolean
}

/**
 * Reads, checks and encodes a file of one chunk on the calling thread, as {@link EncodedEntry} does on the
 * main thread (the same checks, the same stored-or-deflated choice, the same deflate bytes): what an
 * encoding worker runs. A failure to read it is returned, not thrown. The file is read into `scratch` (at
 * least one byte larger than the file) when given: the bytes and data returned are then valid only until
 * the next call.
 */
export function encodeWholeFile(file: FileToEncode, scratch?: Buffer): EncodedFile {
  let bytes: Buffer
  try {
    const reader = openImmediateSource(file.name, {kind: 'file', path: file.path, size: file.size, exactPath: file.exactPath})
    try {
      bytes = reader.read(scratch ?? Buffer.allocUnsafe(file.size + 1), file.size)
      reader.finish()
    } finally {
      reader.close()
    }
  } catch (error) {
    if (error instanceof ArchiveError) return {ok: false, code: error.code, message: error.message, details: {...error.details}}
    throw error
  }
  const sha256 = hashOnce('sha256', bytes)
  const crc32 = zlib.crc32(bytes) >>> 0
  let method: 0 | 8 = file.store || storedWithoutTrying(file.size, bytes) ? 0 : 8
  let data = bytes
  if (method === 8) {
    const deflated = deflateWhole(bytes)
    // Deflate did not make it smaller: store it.
    if (deflated.length >= bytes.length) method = 0
    else data = deflated
  }
  return {ok: true, sha256, crc32, method, data, bytes: file.wantBytes ? bytes : null}
}
