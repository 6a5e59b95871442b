import {closeSync, ftruncateSync, openSync, read, readSync, write, writeSync} from 'node:fs'
import {writeFailed} from '../fs/output.js'
import {ArchiveError} from './errors.js'

// Appends are gathered into writes of about this size: an archive is written in many small pieces
// (headers, small entries), and one system call per piece costs more than the copy it saves. A
// piece at least this large is written as it is.
const coalesceBytes = 1024 * 1024

/**
 * A file the writer creates (exclusively: `wx`, never an existing file) and fills front to back with
 * coalesced, positioned, synchronous writes (the thread pool is kept for deflate; see source.ts),
 * or with reads and writes on the thread pool once no deflate is queued there (`readLater`,
 * `appendLater`). Small appends are copied into one buffer of its own, large ones written at once:
 * a caller's buffer is never kept once `append` returned. Bytes already appended can be
 * overwritten (`patch`), cut off (`truncate`) and read back. I/O errors are thrown as they are;
 * {@link writing} turns them into `write-failed`.
 */
export class OutputFile {
  #fd: number | null
  readonly #buffer = Buffer.allocUnsafe(coalesceBytes)
  #buffered = 0
  /** Bytes appended so far: the file's length once flushed. */
  length = 0

  /**
   * Creates `path`; `target` is the file the user asked for, which `path` (a temporary file beside it)
   * becomes, and which errors name.
   */
  constructor(
    readonly path: string,
    readonly target: string = path,
  ) {
    this.#fd = openSync(path, 'wx+', 0o666)
  }

  /** Creates `path` (see the constructor); a failure is `write-failed` naming `target`. */
  static create(path: string, target: string): OutputFile {
    return writing(target, () => new OutputFile(path, target))
  }

  /** Appends bytes at the end. */
  append(data: Buffer): void {
    if (data.length >= coalesceBytes) {
      this.flush()
      this.#writeAt(data, this.length)
    } else {
      if (this.#buffered + data.length > coalesceBytes) this.flush()
      data.copy(this.#buffer, this.#buffered)
      this.#buffered += data.length
    }
    this.length += data.length
  }

  /** Overwrites bytes already appended, at `position`. */
  patch(data: Buffer, position: number): void {
    if (position + data.length > this.length) throw new RangeError(`A patch at ${position} of ${data.length} bytes runs past the ${this.length} bytes written.`)
    this.flush()
    this.#writeAt(data, position)
  }

  /** Cuts the file at `length` (bytes appended after it are dropped); appends continue from there. */
  truncate(length: number): void {
    this.flush()
    ftruncateSync(this.#open(), length)
    this.length = length
  }

  /** Reads up to `target.length` bytes at `position` of what was written into `target`; returns the bytes read. */
  read(target: Buffer, position: number): Buffer {
    this.flush()
    let filled = 0
    while (filled < target.length) {
      const bytes = readSync(this.#open(), target, filled, target.length - filled, position + filled)
      if (bytes === 0) break
      filled += bytes
    }
    return target.subarray(0, filled)
  }

  /**
   * Reads like {@link read}, on the thread pool: for copying a whole file while this thread hashes,
   * when no deflate is queued there. Nothing appended may still be pending.
   */
  readLater(target: Buffer, position: number): Promise<Buffer> {
    if (this.#buffered > 0) throw new Error(`${this.path} has bytes not yet written.`)
    const fd = this.#open()
    return new Promise((resolve, reject) => {
      const next = (filled: number): void => {
        if (filled === target.length) return resolve(target)
        read(fd, target, filled, target.length - filled, position + filled, (error, bytes) => {
          if (error) reject(error)
          else if (bytes === 0) resolve(target.subarray(0, filled))
          else next(filled + bytes)
        })
      }
      next(0)
    })
  }

  /**
   * Appends bytes with a write on the thread pool (see {@link readLater}); `data` must not change
   * until the returned promise settles, and the file must not be finished before it has.
   */
  appendLater(data: Buffer): Promise<void> {
    this.flush()
    const fd = this.#open()
    const position = this.length
    this.length += data.length
    return new Promise((resolve, reject) => {
      const next = (done: number): void => {
        if (done === data.length) return resolve()
        write(fd, data, done, data.length - done, position + done, (error, bytes) => {
          if (error) reject(error)
          else if (bytes === 0) reject(new Error(`Wrote nothing at offset ${position + done} of ${this.path}.`))
          else next(done + bytes)
        })
      }
      next(0)
    })
  }

  /** Writes out every appended byte. */
  flush(): void {
    if (this.#buffered === 0) return
    const pending = this.#buffer.subarray(0, this.#buffered)
    this.#buffered = 0
    this.#writeAt(pending, this.length - pending.length)
  }

  /** Writes out what is pending and closes the file. */
  finish(): void {
    this.flush()
    this.close()
  }

  /** Closes the file without writing what is pending (after a failure); safe to call more than once. */
  close(): void {
    const fd = this.#fd
    this.#fd = null
    this.#buffered = 0
    if (fd !== null) closeSync(fd)
  }

  #writeAt(data: Buffer, position: number): void {
    const fd = this.#open()
    // A write may stop short; go on from where it stopped.
    for (let done = 0; done < data.length; ) {
      const bytes = writeSync(fd, data, done, data.length - done, position + done)
      if (bytes === 0) throw new Error(`Wrote nothing at offset ${position + done} of ${this.path}.`)
      done += bytes
    }
  }

  #open(): number {
    if (this.#fd === null) throw new Error(`${this.path} is closed.`)
    return this.#fd
  }
}

/** Runs a write (or read) of an output file, turning an I/O error into `write-failed` naming `target`. */
export function writing<T>(target: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw outputFailure(target, error)
  }
}

/** What a failure writing `target` is: an ArchiveError as it is, anything else `write-failed` naming it. */
export function outputFailure(target: string, error: unknown): Error {
  if (error instanceof ArchiveError) return error
  return writeFailed(target, error)
}
