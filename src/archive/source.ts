import {createHash} from 'node:crypto'
import {closeSync, constants, fstatSync, openSync, readSync} from 'node:fs'
import type {Readable} from 'node:stream'
import {isCancellation, throwIfCancelled} from '../cancellation.js'
import {openedElsewhere} from '../fs/opened-path.js'
import {ArchiveError} from './errors.js'
import {quoteName} from './path-policy.js'

/** Where the writer takes an entry's bytes from. */
export type WriterSource =
  /** Bytes already in memory (the manifest, a certificate). */
  | {kind: 'buffer'; data: Buffer}
  /**
   * A regular file of `size` bytes (as the caller found it), read once. With `sha256` the bytes
   * must also have that digest; without, the writer reports the digest of what it wrote. With
   * `inspect`, a file that is read in one piece (at most 1 MiB, one deflate chunk) is shown to it
   * whole, during that one read; the bytes are only valid during the call. With `exactPath`, `path` is the
   * file's own path, free of links (as a walk from a folder's real path lists it), and the file opened must
   * be there: one reached through a folder on the way that became a link meanwhile is `source-changed`
   * (checked where the system tells an open file's path, as Linux does in `/proc/self/fd`).
   */
  | {kind: 'file'; path: string; size: number; sha256?: string; inspect?: (bytes: Buffer) => void; exactPath?: boolean}
  /** Bytes from a stream the caller opens on demand (e.g. another archive's entry), held to the same size and, when given, digest. */
  | {kind: 'stream'; open: () => Readable | Promise<Readable>; size: number; sha256?: string}
  | CompressedSource

/**
 * An entry's data exactly as another archive holds it, copied without inflating: `compressedSize` bytes
 * from a stream the caller opens on demand, written with the given method, CRC-32 and sizes. The writer
 * checks only the length; the caller vouches for the rest (the signer verifies the archive it wrote).
 */
export interface CompressedSource {
  kind: 'compressed'
  open: () => Readable | Promise<Readable>
  method: 0 | 8
  compressedSize: number
  crc32: number
  /** The uncompressed size. */
  size: number
  /** `sha256:` + hex of the uncompressed bytes, reported as the written entry's digest. */
  sha256: string
}

/** The declared (uncompressed) size of a source. */
export function sourceSize(source: WriterSource): number {
  return source.kind === 'buffer' ? source.data.length : source.size
}

/** How many bytes the writer reads from a source: its size, or a compressed source's compressed size. */
export function sourceBytes(source: WriterSource): number {
  return source.kind === 'compressed' ? source.compressedSize : sourceSize(source)
}

/**
 * Refuses a compressed source that no reader would accept as it is declared (a RangeError: the caller's
 * bug): another method than stored or deflate, stored sizes that differ, a CRC-32 that is not 32 bits.
 */
export function checkCompressedSource(name: string, source: CompressedSource): void {
  const {method, compressedSize, size, crc32} = source
  const sizesFit = Number.isSafeInteger(compressedSize) && compressedSize >= 0 && (method === 8 || compressedSize === size)
  if ((method !== 0 && method !== 8) || !sizesFit || !Number.isInteger(crc32) || crc32 < 0 || crc32 > 0xffffffff) {
    throw new RangeError(`Entry ${quoteName(name)} declares compressed data that no reader accepts (method ${method}, ${compressedSize} of ${size} bytes, CRC-32 ${crc32}).`)
  }
}

/** The digest a caller expects of a source, as 64 lowercase hex digits, or null when it gave none. */
export function expectedDigestHex(name: string, source: WriterSource): string | null {
  return source.kind === 'buffer' || source.sha256 === undefined ? null : digestHex(source.sha256, name)
}

/** The 64 lowercase hex digits of a `sha256:<hex>` (or bare hex) digest; throws a RangeError otherwise. */
function digestHex(digest: string, name: string): string {
  const match = /^(?:sha256:)?([0-9a-f]{64})$/i.exec(digest)
  if (match === null) throw new RangeError(`The digest given for ${quoteName(name)} is not a SHA-256 digest: ${JSON.stringify(digest)}.`)
  return match[1]!.toLowerCase()
}

/**
 * A source being read front to back in pieces of the caller's choosing. Every way the source can
 * differ from what was declared is an ArchiveError `source-changed`: it ends early, holds more, is
 * no longer a regular file, or is gone.
 */
export interface SourceReader {
  /**
   * Reads the next `length` bytes into `target`, which must have room for one byte more (a file's
   * last read also asks for one byte past its end), and returns them as a view of `target`. The
   * source ending before them is `source-changed` (size-changed).
   */
  read(target: Buffer, length: number): Promise<Buffer>
  /** Proves the source holds nothing more (`source-changed` when it does) and releases it. */
  finish(): Promise<void>
  /** Releases the source after a failure; safe to call more than once. */
  close(): void
}

/** A {@link SourceReader} that never waits: a buffer, or a file read with synchronous calls. */
export interface ImmediateSourceReader {
  read(target: Buffer, length: number): Buffer
  finish(): void
  close(): void
}

/**
 * Opens a source for one front-to-back read. Files are read with synchronous calls: the thread
 * pool is kept for deflate, whose jobs it runs first in, first out, so an asynchronous read would
 * wait behind every queued chunk and leave the pool idle until it is served; a read of a cached
 * file costs far less than that trip. A file is opened without following a symlink swapped in
 * since it was listed, and must still be a regular file of the declared size.
 */
export async function openSource(name: string, source: WriterSource): Promise<SourceReader> {
  if (source.kind !== 'stream' && source.kind !== 'compressed') {
    const reader = openImmediateSource(name, source)
    return {read: async (target, length) => reader.read(target, length), finish: async () => reader.finish(), close: () => reader.close()}
  }
  try {
    return new StreamReader(name, await source.open(), sourceBytes(source))
  } catch (error) {
    throw sourceError(name, null, error)
  }
}

/** Opens a buffer or file source for reading without waiting (see {@link openSource}). */
export function openImmediateSource(name: string, source: Exclude<WriterSource, {kind: 'stream' | 'compressed'}>): ImmediateSourceReader {
  switch (source.kind) {
    case 'buffer':
      return new BufferReader(name, source.data)
    case 'file':
      return new FileReader(name, source.path, source.size, source.exactPath === true)
    default:
      throw new RangeError(`Entry ${quoteName(name)} has a source of unknown kind ${JSON.stringify((source as {kind: unknown}).kind)}.`)
  }
}

/**
 * Reads a source once and returns its size and SHA-256 (`sha256:` + hex), checked like any read; once
 * `signal` is aborted, the next chunk rejects with its `AbortError`.
 */
export async function digestSource(name: string, source: WriterSource, chunkBytes: number, signal?: AbortSignal): Promise<{size: number; sha256: string}> {
  if (source.kind === 'compressed') throw new RangeError(`Entry ${quoteName(name)} is already compressed: its bytes are not its content.`)
  const reader = await openSource(name, source)
  try {
    const hash = createHash('sha256')
    const size = sourceSize(source)
    const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, size) + 1)
    for (let offset = 0; offset < size; offset += chunkBytes) {
      throwIfCancelled(signal)
      const chunk = await reader.read(buffer, Math.min(chunkBytes, size - offset))
      hash.update(chunk)
      if (size <= chunkBytes) inspectWhole(source, chunk)
    }
    await reader.finish()
    return {size, sha256: `sha256:${hash.digest('hex')}`}
  } finally {
    reader.close()
  }
}

/** Shows a file source's whole content to its `inspect` hook, when it has one. */
export function inspectWhole(source: WriterSource, bytes: Buffer): void {
  if (source.kind === 'file') source.inspect?.(bytes)
}

class BufferReader implements ImmediateSourceReader {
  #offset = 0

  constructor(
    private readonly name: string,
    private readonly data: Buffer,
  ) {}

  read(target: Buffer, length: number): Buffer {
    const end = this.#offset + length
    if (end > this.data.length) throw sizeChanged(this.name, end, this.data.length)
    this.data.copy(target, 0, this.#offset, end)
    this.#offset = end
    return target.subarray(0, length)
  }

  finish(): void {
    if (this.#offset !== this.data.length) throw sizeChanged(this.name, this.#offset, this.data.length)
  }

  close(): void {}
}

// Refuse to follow a symlink swapped in since the file was listed, and never block opening a FIFO swapped in.
const openFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

class FileReader implements ImmediateSourceReader {
  #fd: number | null
  #position = 0
  /** True once the last read also proved that nothing follows. */
  #endChecked = false

  constructor(
    private readonly name: string,
    private readonly path: string,
    private readonly size: number,
    exactPath: boolean,
  ) {
    this.#fd = this.#call(() => openSync(path, openFlags))
    try {
      const stats = this.#call(() => fstatSync(this.#fd!))
      if (!stats.isFile()) {
        throw new ArchiveError('source-changed', `${path} (entry ${quoteName(name)}) is no longer a regular file.`, {reason: 'source-not-regular', entry: name, path})
      }
      if (exactPath && openedElsewhere(this.#fd!, path)) {
        throw new ArchiveError('source-changed', `${path} (entry ${quoteName(name)}) was reached through a link: a folder on its way was replaced since it was listed.`, {reason: 'source-moved', entry: name, path})
      }
      if (stats.size !== size) throw sizeChanged(name, size, stats.size)
    } catch (error) {
      this.close()
      throw error
    }
  }

  read(target: Buffer, length: number): Buffer {
    const fd = this.#fd
    if (fd === null) throw new Error(`${this.path} is closed.`)
    // The last read asks for one byte more: a file that grew is caught by the same call, and one that gives
    // exactly its size to that call has ended (a read of a regular file stops short only at its end), so a
    // small file costs one read, not a second one that finds nothing.
    const last = this.#position + length === this.size
    const wanted = last ? length + 1 : length
    if (target.length < wanted) throw new RangeError(`A read of ${wanted} bytes needs a larger buffer than ${target.length} bytes.`)
    let filled = 0
    while (filled < wanted) {
      const bytes = this.#call(() => readSync(fd, target, filled, wanted - filled, this.#position + filled))
      if (bytes === 0) break
      filled += bytes
      if (last && filled === length) break
    }
    if (filled !== length) throw sizeChanged(this.name, this.size, this.#position + filled)
    this.#position += length
    this.#endChecked = last
    return target.subarray(0, length)
  }

  finish(): void {
    if (!this.#endChecked && this.#fd !== null) {
      const fd = this.#fd
      const probe = this.#call(() => readSync(fd, Buffer.alloc(1), 0, 1, this.#position))
      if (probe > 0 || this.#position !== this.size) throw sizeChanged(this.name, this.size, this.#position + probe)
    }
    this.close()
  }

  close(): void {
    const fd = this.#fd
    this.#fd = null
    if (fd !== null) closeSync(fd)
  }

  #call<T>(syscall: () => T): T {
    try {
      return syscall()
    } catch (error) {
      throw sourceError(this.name, {path: this.path}, error)
    }
  }
}

class StreamReader implements SourceReader {
  readonly #chunks: AsyncIterator<Buffer>
  #pending: Buffer = Buffer.alloc(0)
  #position = 0

  constructor(
    private readonly name: string,
    private readonly stream: Readable,
    private readonly size: number,
  ) {
    this.#chunks = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
  }

  async read(target: Buffer, length: number): Promise<Buffer> {
    let have = 0
    while (have < length) {
      if (this.#pending.length === 0) {
        const next = await this.#next()
        if (next === null) throw sizeChanged(this.name, this.size, this.#position + have)
        this.#pending = next
      }
      const copied = this.#pending.copy(target, have, 0, length - have)
      this.#pending = this.#pending.subarray(copied)
      have += copied
    }
    this.#position += length
    return target.subarray(0, length)
  }

  async finish(): Promise<void> {
    let extra = this.#pending.length
    for (let next = await this.#next(); next !== null && extra === 0; next = await this.#next()) extra += next.length
    if (extra > 0 || this.#position !== this.size) throw sizeChanged(this.name, this.size, this.#position + extra)
    this.close()
  }

  close(): void {
    this.stream.destroy()
  }

  async #next(): Promise<Buffer | null> {
    try {
      const {done, value} = await this.#chunks.next()
      return done ? null : (value as Buffer)
    } catch (error) {
      throw sourceError(this.name, null, error)
    }
  }
}

function sizeChanged(name: string, expected: number, actual: number): ArchiveError {
  return new ArchiveError('source-changed', `The source of entry ${quoteName(name)} is now ${actual > expected ? 'larger than' : `${actual} bytes, not`} the ${expected} bytes it had when it was listed.`, {
    reason: 'size-changed',
    entry: name,
    expected,
    actual,
  })
}

/** The error for a source whose bytes do not have the digest its caller gave. */
export function digestChanged(name: string): ArchiveError {
  return new ArchiveError('source-changed', `The source of entry ${quoteName(name)} changed since it was hashed: its SHA-256 differs.`, {reason: 'digest-changed', entry: name})
}

/**
 * What a failure to read entry `name`'s source is: `source-changed` when it went away or became a link since it
 * was listed, `unreadable` otherwise; cancellations and archive errors unchanged.
 */
export function sourceError(name: string, source: {path: string} | null, error: unknown): unknown {
  // A stream source cancelled with the operation (another archive's entry) is a cancellation, not a broken source.
  if (error instanceof ArchiveError || isCancellation(error)) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const where = source === null ? `The source of entry ${quoteName(name)}` : `${source.path} (entry ${quoteName(name)})`
  const path = source === null ? {} : {path: source.path}
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ArchiveError('source-changed', `${where} disappeared since it was listed.`, {reason: 'source-missing', entry: name, ...path}, {cause: error})
  }
  if (code === 'ELOOP') {
    return new ArchiveError('source-changed', `${where} became a symbolic link since it was listed.`, {reason: 'source-not-regular', entry: name, ...path}, {cause: error})
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ArchiveError('unreadable', `${where} cannot be read: ${message}`, {reason: 'source-io', entry: name, ...path}, {cause: error})
}
