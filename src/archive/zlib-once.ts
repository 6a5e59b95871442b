import zlib from 'node:zlib'

/**
 * One-shot raw inflate of small buffers on this thread, through one zlib stream that is reset between
 * calls. `zlib.inflateRawSync` builds a new stream object for every call, which costs many times the work
 * on an entry of a few KiB (measured on 20,000 entries of 512 bytes: about ten times the CPU of the
 * inflate itself). A reset inflater starts as a new one does (zlib's `inflateReset` forgets the window:
 * a distance reaching before the entry's own output is refused as on a new stream), so the bytes and the
 * verdicts are the same.
 *
 * Deflate is not reused this way: a reset deflater may read bytes an earlier job left past the end of the
 * input while it looks for matches, so its output can depend on that job (seen with a run of one byte
 * after a longer run of it): every deflate gets a new native stream ({@link deflateRawOnce}), without the
 * stream object around it that `zlib.deflateRawSync` builds (for 512 bytes of text, that object cost
 * about as much as the deflate).
 *
 * Both go through a stream's native handle, which Node does not document. When the running Node does not
 * have it, each call falls back to the documented one-shot functions, slower and with the same results (a
 * test compares both on random and damaged input).
 */

/** The native side of a Node zlib stream, as far as the one-shot calls use it. */
interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inputOffset: number, inputLength: number, output: Uint8Array, outputOffset: number, outputLength: number): void
  reset(): void
  close(): void
  onerror: (message: string, errno: number, code?: string) => void
}

/** A zlib stream's handle and its state array (`[output room left, input left]` after each write), or null. */
function nativeOf(stream: zlib.Inflate | zlib.Deflate): {handle: NativeHandle; state: Uint32Array} | null {
  const inner = stream as unknown as {_handle?: Partial<NativeHandle>; _writeState?: unknown}
  const handle = inner._handle
  const state = inner._writeState
  if (handle === undefined || typeof handle.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length !== 2) return null
  return {handle: handle as NativeHandle, state}
}

/** A zlib failure, as Node's one-shot functions report it: zlib's message and its code (`Z_DATA_ERROR`, `Z_BUF_ERROR`…). */
export class ZlibFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message)
  }
}

/** What inflating at most `limit` bytes gave: the bytes, and how many input bytes the stream took. */
export interface Inflated {
  data: Buffer
  /** Input bytes the deflate stream took (it ended there; bytes after it were left). */
  consumed: number
  /** True when the stream holds more than `limit` bytes (`data` then holds only the first `limit` + 1). */
  overflow: boolean
}

/**
 * Runs the whole of `input` through `native` with Z_FINISH into `output`, then into buffers from `more` while
 * zlib fills them, until `more` says stop by returning null; `check` throws a failure zlib reported, after
 * each write. Returns the bytes written to each buffer and the input left unread.
 */
function finish(native: {handle: NativeHandle; state: Uint32Array}, input: Uint8Array, output: Buffer, more: () => Buffer | null, check: () => void): {parts: Buffer[]; inputLeft: number} {
  const parts: Buffer[] = []
  let buffer: Buffer | null = output
  let inputLeft = input.length
  while (buffer !== null) {
    native.handle.writeSync(zlib.constants.Z_FINISH, input, input.length - inputLeft, inputLeft, buffer, 0, buffer.length)
    check()
    const [roomLeft, left] = native.state as unknown as [number, number]
    inputLeft = left
    parts.push(buffer.subarray(0, buffer.length - roomLeft))
    // Room left means zlib finished (or can go no further: a truncated inflate input is a failure above).
    buffer = roomLeft === 0 ? more() : null
  }
  return {parts, inputLeft}
}

/**
 * A zlib stream reused for one-shot jobs, made again after a failure (zlib cannot go on after one). Its
 * handle's error callback is ours: a failure is thrown to the caller, never emitted as a stream error.
 */
class ReusedStream {
  readonly #create: () => zlib.Inflate | zlib.Deflate
  #native: {handle: NativeHandle; state: Uint32Array} | null
  #failure: ZlibFailure | null = null
  /** False when the running Node has no handle to reuse: the caller falls back to the one-shot functions. */
  readonly supported: boolean

  constructor(create: () => zlib.Inflate | zlib.Deflate) {
    this.#create = create
    this.#native = this.#adopt(create())
    this.supported = this.#native !== null
  }

  /**
   * Runs the whole input through a fresh start of the stream with Z_FINISH into `output` (more buffers from
   * `more` while zlib fills them, until `more` says stop by returning null). Returns the bytes written to
   * each buffer and the input left unread.
   */
  run(input: Uint8Array, output: Buffer, more: () => Buffer | null): {parts: Buffer[]; inputLeft: number} {
    const native = this.#open()
    native.handle.reset()
    return finish(native, input, output, more, () => {
      if (this.#failure !== null) this.#fail()
    })
  }

  #open(): {handle: NativeHandle; state: Uint32Array} {
    this.#native ??= this.#adopt(this.#create())
    return this.#native!
  }

  /** The stream's handle, its failures reported to us; null (the stream closed) when there is none to reuse. */
  #adopt(stream: zlib.Inflate | zlib.Deflate): {handle: NativeHandle; state: Uint32Array} | null {
    const native = nativeOf(stream)
    if (native === null) {
      stream.close()
      return null
    }
    native.handle.onerror = (message, errno, code) => {
      this.#failure = new ZlibFailure(message, code ?? String(errno))
    }
    return native
  }

  /** Drops the stream after a failure and throws it. */
  #fail(): never {
    const failure = this.#failure!
    this.#failure = null
    this.#native?.handle.close()
    this.#native = null
    throw failure
  }
}

let inflater: ReusedStream | null = null

/**
 * Inflates the raw deflate stream at the start of `input`, producing at most `limit` bytes (one more tells
 * that there are more: `overflow`). Throws a {@link ZlibFailure} for a stream that is not valid deflate
 * (`Z_DATA_ERROR`) or ends before it is complete (`Z_BUF_ERROR`). With `into` (at least `limit` + 1 bytes,
 * reused by the caller), the bytes are inflated into it: `data` is then a view of it.
 */
export function inflateRawOnce(input: Uint8Array, limit: number, into?: Buffer): Inflated {
  inflater ??= new ReusedStream(() => zlib.createInflateRaw())
  if (!inflater.supported) return inflateRawPublic(input, limit)
  const output = into !== undefined && into.length > limit ? into.subarray(0, limit + 1) : Buffer.allocUnsafe(limit + 1)
  const {parts, inputLeft} = inflater.run(input, output, () => null)
  const data = parts[0]!
  return {data, consumed: input.length - inputLeft, overflow: data.length > limit}
}

/** {@link inflateRawOnce} with the documented one-shot function. */
function inflateRawPublic(input: Uint8Array, limit: number): Inflated {
  try {
    const options = {info: true, maxOutputLength: limit + 1, chunkSize: Math.max(limit + 1, zlib.constants.Z_MIN_CHUNK)}
    const result = zlib.inflateRawSync(input, options as zlib.ZlibOptions) as unknown as {buffer: Buffer; engine: {bytesWritten: number}}
    return {data: result.buffer, consumed: result.engine.bytesWritten, overflow: result.buffer.length > limit}
  } catch (error) {
    const {code, message} = error as NodeJS.ErrnoException
    if (code === 'ERR_BUFFER_TOO_LARGE') return {data: Buffer.alloc(0), consumed: 0, overflow: true}
    throw new ZlibFailure(message, code ?? 'Z_DATA_ERROR')
  }
}

/** The native stream class behind Node's zlib streams, with what {@link deflateRawOnce} calls on it; null when the running Node has none. */
interface NativeDeflate extends NativeHandle {
  init(windowBits: number, level: number, memLevel: number, strategy: number, state: Uint32Array, processCallback: () => void, dictionary: undefined): void
}
type NativeDeflateClass = new (mode: number) => NativeDeflate

let nativeDeflate: NativeDeflateClass | null | undefined

function nativeDeflateClass(): NativeDeflateClass | null {
  if (nativeDeflate !== undefined) return nativeDeflate
  const template = zlib.createDeflateRaw()
  const handle = (template as unknown as {_handle?: Partial<NativeDeflate>})._handle
  const usable = nativeOf(template) !== null && typeof handle?.init === 'function' && typeof handle.constructor === 'function'
  nativeDeflate = usable ? (handle!.constructor as NativeDeflateClass) : null
  template.close()
  return nativeDeflate
}

/** Settings of {@link deflateRawOnce}, as zlib takes them. */
export interface DeflateSettings {
  /** 1 to 9. Not 0: zlib cuts stored blocks to the output room it is given, so they would depend on `room`. */
  level: number
  memLevel: number
  windowBits: number
}

// Where each native stream reports what is left after a write: [output room, input].
const deflateState = new Uint32Array(2)

/**
 * Raw deflate of all of `input` in one go, finished (Z_FINISH, no dictionary), on a new native stream:
 * the bytes `zlib.deflateRawSync(input, settings)` gives (a test holds them to it). `room` is the output
 * expected at most (more is taken as needed).
 */
export function deflateRawOnce(input: Uint8Array, settings: DeflateSettings, room: number): Buffer {
  if (!(settings.level >= 1 && settings.level <= 9)) throw new RangeError(`deflateRawOnce takes levels 1 to 9, not ${settings.level}.`)
  const Native = nativeDeflateClass()
  if (Native === null) return zlib.deflateRawSync(input, {...settings, chunkSize: Math.max(room, zlib.constants.Z_MIN_CHUNK)})
  const handle = new Native(zlib.constants.DEFLATERAW)
  let failure: ZlibFailure | null = null
  handle.onerror = (message, errno, code) => {
    failure = new ZlibFailure(message, code ?? String(errno))
  }
  try {
    handle.init(settings.windowBits, settings.level, settings.memLevel, zlib.constants.Z_DEFAULT_STRATEGY, deflateState, noCallback, undefined)
    const buffer = (): Buffer => Buffer.allocUnsafe(Math.max(room, 64))
    const {parts} = finish({handle, state: deflateState}, input, buffer(), buffer, () => {
      if (failure !== null) throw failure
    })
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
  } finally {
    handle.close()
  }
}

function noCallback(): void {}
