import {close, read} from 'node:fs'
import type {Readable} from 'node:stream'
import yauzl from 'yauzl'
import {FdRangeStream, readAt} from './fd.js'

// A central directory up to this size is read in one call and served to yauzl from memory; yauzl
// reads each record with two small reads, which would otherwise be two trips to the thread pool.
const cachedDirectoryMax = 16 * 1024 * 1024

/** yauzl's view of the archive: positioned reads on our descriptor, the central directory from memory. */
export class ArchiveFileReader extends yauzl.RandomAccessReader {
  readonly #fd: number
  #cache: Buffer = Buffer.alloc(0)
  #cacheStart = 0

  constructor(fd: number) {
    super()
    this.#fd = fd
  }

  /** Reads [start, end) of the file (the central directory and end record) into memory when small enough. */
  async cacheCentralDirectory(start: number, end: number): Promise<void> {
    if (end - start > cachedDirectoryMax) return
    this.#cache = await readAt(this.#fd, end - start, start)
    this.#cacheStart = start
  }

  /** `length` bytes at `position` (fewer at the end of the file), from the cached central directory when they lie in it. */
  async bytesAt(position: number, length: number): Promise<Buffer> {
    const from = position - this.#cacheStart
    if (from >= 0 && from + length <= this.#cache.length) return this.#cache.subarray(from, from + length)
    return readAt(this.#fd, length, position)
  }

  /** Releases the cached central directory once yauzl has read it. */
  dropCache(): void {
    this.#cache = Buffer.alloc(0)
  }

  override read(buffer: Buffer, offset: number, length: number, position: number, callback: (error: Error | null) => void): void {
    const done = callback as (error: Error | null, bytesRead?: number) => void
    const from = position - this.#cacheStart
    if (from >= 0 && from + length <= this.#cache.length) {
      this.#cache.copy(buffer, offset, from, from + length)
      process.nextTick(done, null, length)
      return
    }
    read(this.#fd, buffer, offset, length, position, (error, bytesRead) => done(error, bytesRead))
  }

  override _readStreamForRange(start: number, end: number): Readable {
    return new FdRangeStream(this.#fd, {start, end})
  }

  override close(callback: (error: Error | null) => void): void {
    close(this.#fd, (error) => callback(error))
  }
}
