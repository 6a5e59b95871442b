import {createHash} from 'node:crypto'
import {close, open, writev} from 'node:fs'
import {Writable} from 'node:stream'

// Output is gathered into writes of about this size: yazl emits many small pieces (headers, 16 KiB
// deflate chunks), and one system call per piece costs more than the copy it saves.
const coalesceBytes = 1024 * 1024

/**
 * The archive's temporary file: created exclusively (`wx`), written with positioned, coalesced
 * `writev` calls, hashed (SHA-256) and counted as the bytes pass, closed when the stream ends or
 * is destroyed.
 */
export class OutputFile extends Writable {
  readonly #hash = createHash('sha256')
  #fd: number | null = null
  #position = 0
  #pending: Buffer[] = []
  #pendingBytes = 0
  /** Bytes accepted so far. */
  bytes = 0

  constructor(readonly path: string) {
    super({highWaterMark: coalesceBytes})
  }

  /** SHA-256 of every byte written, as 64 lowercase hex digits; call once, after `finish`. */
  digest(): string {
    return this.#hash.digest('hex')
  }

  override _construct(callback: (error?: Error | null) => void): void {
    open(this.path, 'wx', 0o666, (error, fd) => {
      if (error) return callback(error)
      this.#fd = fd
      callback()
    })
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#add(chunk)
    if (this.#pendingBytes >= coalesceBytes) this.#flush(callback)
    else callback()
  }

  override _writev(chunks: {chunk: Buffer}[], callback: (error?: Error | null) => void): void {
    for (const {chunk} of chunks) this.#add(chunk)
    if (this.#pendingBytes >= coalesceBytes) this.#flush(callback)
    else callback()
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#flush(callback)
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const fd = this.#fd
    this.#fd = null
    if (fd === null) return callback(error)
    close(fd, (closeError) => callback(error ?? closeError))
  }

  #add(chunk: Buffer): void {
    this.#hash.update(chunk)
    this.bytes += chunk.length
    this.#pending.push(chunk)
    this.#pendingBytes += chunk.length
  }

  #flush(callback: (error?: Error | null) => void): void {
    const chunks = this.#pending
    const length = this.#pendingBytes
    if (length === 0 || this.#fd === null) return callback()
    this.#pending = []
    this.#pendingBytes = 0
    const position = this.#position
    this.#position += length
    writev(this.#fd, chunks, position, (error, written) => {
      if (error) return callback(error)
      // libuv loops over partial writes itself; anything short is an error, never silently a hole.
      if (written !== length) return callback(new Error(`Wrote ${written} of ${length} bytes at offset ${position}.`))
      callback()
    })
  }
}
