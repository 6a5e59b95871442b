import {close, fstat, open, read, readSync, type Stats} from 'node:fs'
import {Readable} from 'node:stream'
import {promisify} from 'node:util'

const readAsync = promisify(read)
const fstatAsync = promisify(fstat)
const openAsync = promisify(open)
const closeAsync = promisify(close)

/** Opens `file` read-only and returns its descriptor. */
export function openFd(file: string, flags: number | string = 'r'): Promise<number> {
  return openAsync(file, flags)
}

/** Closes a descriptor opened by {@link openFd}. */
export function closeFd(fd: number): Promise<void> {
  return closeAsync(fd)
}

/** The descriptor's file status. */
export function statFd(fd: number): Promise<Stats> {
  return fstatAsync(fd)
}

/** Reads up to `length` bytes at `position`; the result is shorter only at the end of the file. */
export function readAt(fd: number, length: number, position: number): Promise<Buffer> {
  return readAtInto(fd, Buffer.allocUnsafe(length), length, position)
}

/** {@link readAt} into `buffer` (at least `length` bytes long); returns the part of it that was filled. */
export async function readAtInto(fd: number, buffer: Buffer, length: number, position: number): Promise<Buffer> {
  let filled = 0
  while (filled < length) {
    const {bytesRead} = await readAsync(fd, buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled === length ? buffer : buffer.subarray(0, filled)
}

/** {@link readAt} with synchronous reads (for a few KiB, cheaper than a trip to the thread pool); failures reject the promise. */
export async function readAtSync(fd: number, length: number, position: number): Promise<Buffer> {
  const buffer = Buffer.allocUnsafe(length)
  let filled = 0
  while (filled < length) {
    const bytesRead = readSync(fd, buffer, filled, length - filled, position + filled)
    if (bytesRead === 0) break
    filled += bytesRead
  }
  return filled === length ? buffer : buffer.subarray(0, filled)
}

/** Options of {@link FdRangeStream}. */
export interface FdRangeOptions {
  start: number
  /** First byte not to read; `Infinity` reads to the end of the file. */
  end: number
  chunkSize?: number
  /** Close the descriptor when the stream ends or is destroyed. */
  ownsFd?: boolean
}

/** The error a {@link FdRangeStream} emits when the file ends before its range does. */
export class UnexpectedEndOfFile extends Error {
  constructor(readonly position: number) {
    super(`The file ended at byte ${position}, before the range it was read for.`)
  }
}

/**
 * Streams a byte range of an open descriptor with positioned reads, so that several ranges of one
 * file can stream at once. Unlike fs.ReadStream it never closes a descriptor it does not own, and a
 * destroy waits for the read in flight, so the owner can close the descriptor once every stream closed.
 */
export class FdRangeStream extends Readable {
  readonly #fd: number
  readonly #end: number
  readonly #chunkSize: number
  readonly #ownsFd: boolean
  #position: number
  #reading = false
  #afterRead: (() => void) | null = null

  constructor(fd: number, options: FdRangeOptions) {
    const chunkSize = options.chunkSize ?? 512 * 1024
    super({highWaterMark: chunkSize})
    this.#fd = fd
    this.#position = options.start
    this.#end = options.end
    this.#chunkSize = chunkSize
    this.#ownsFd = options.ownsFd === true
  }

  override _read(): void {
    const length = Math.min(this.#chunkSize, this.#end - this.#position)
    if (length <= 0) {
      this.push(null)
      return
    }
    const buffer = Buffer.allocUnsafe(length)
    this.#reading = true
    read(this.#fd, buffer, 0, length, this.#position, (error, bytesRead) => {
      this.#reading = false
      const afterRead = this.#afterRead
      if (afterRead !== null) {
        this.#afterRead = null
        afterRead()
        return
      }
      if (error) {
        this.destroy(error)
      } else if (bytesRead === 0) {
        if (this.#end === Infinity) this.push(null)
        else this.destroy(new UnexpectedEndOfFile(this.#position))
      } else {
        this.#position += bytesRead
        this.push(bytesRead === length ? buffer : buffer.subarray(0, bytesRead))
      }
    })
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const finish = (): void => {
      if (!this.#ownsFd) return callback(error)
      close(this.#fd, (closeError) => callback(error ?? closeError))
    }
    if (this.#reading) this.#afterRead = finish
    else finish()
  }
}

/**
 * Buffers of one size for reads that come and go, given back once nothing refers to them. A read into a
 * fresh buffer of a MiB each time makes memory grow: such buffers outlive a young-generation collection
 * while their bytes are checked and wait for a full one to be freed.
 */
export class ReusedBuffers {
  readonly #free: Buffer[] = []

  constructor(readonly size: number) {}

  /** A buffer of at least `length` bytes: a reused one when `length` fits {@link size}. */
  take(length: number): Buffer {
    if (length > this.size) return Buffer.allocUnsafe(length)
    return this.#free.pop() ?? Buffer.allocUnsafe(this.size)
  }

  /** Takes back a buffer from {@link take}. */
  give(buffer: Buffer): void {
    if (buffer.length === this.size) this.#free.push(buffer)
  }
}
