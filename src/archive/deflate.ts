import {isUtf8} from 'node:buffer'
import zlib from 'node:zlib'
import {deflateRawOnce} from './zlib-once.js'

/**
 * Raw deflate for archive entries, one fixed-size chunk at a time so that the chunks of one entry
 * compress in parallel on the thread pool (the pigz technique): each chunk is deflated on its own,
 * primed with the 32 KiB of input before it as dictionary, and ends with a sync flush (an empty
 * stored block that byte-aligns the output) except the entry's last, which finishes the stream.
 * Concatenated in order, the chunks form one valid raw deflate stream. Every piece depends only on
 * the entry's bytes, never on the number of cores or on timing, so the output is deterministic.
 * See docs/artifact-format.md, "Stored or deflated".
 */

/** Compression level of every deflated entry. */
const deflateLevel = 6

// zlib's largest hash table and block buffer: measured on the bench tree's compressible files,
// about 10 % less CPU than its default (8) and 0.1 % smaller output. The probe gains as much.
const memLevel = 9
/** zlib's largest window (32 KiB), the most a back-reference can reach. */
const windowBits = 15

/**
 * The window for deflating `length` bytes in one go: the smallest that still holds all of them, up to
 * zlib's largest. A back-reference reaches back the window less 262 bytes, so with at least the input
 * that far nothing of the input is out of reach, and nothing else of what deflate does depends on the
 * window (the hash table and the block buffer come from `memLevel`): the output is the same bytes as
 * with the largest window. What shrinks is the memory zlib sets up and clears for each stream: a
 * tiny file no longer pays for 64 KiB of window and as much of match chains (measured on 20,000 files
 * of 0.5 KiB: deflate about a third faster). Depends on the length alone, so never on the machine.
 */
export function windowBitsFor(length: number): number {
  const reach = length + 262
  return Math.min(windowBits, Math.max(9, 32 - Math.clz32(reach - 1)))
}

/**
 * Input bytes per chunk. It must never depend on the machine (the output would). Measured on the
 * bench tree: 1 MiB chunks cost about 0.01 % of compressed size against one stream per entry
 * (128 KiB: up to 0.1 %), and keep the per-job overhead of the thread pool negligible.
 */
export const deflateChunkBytes = 1024 * 1024

/** A deflate window: the most input a back-reference can reach, so the most dictionary that helps. */
const dictionaryBytes = 32 * 1024

/** Bytes at the start of an entry that decide whether deflating it is worth trying. */
export const probeBytes = 16 * 1024

// Deflate output comes in parts of this size. zlib's default 16 KiB would cost a round trip between
// the thread pool and this thread per 16 KiB of output; parts kept apart (never concatenated) are
// allocations of one size, which the allocator recycles well.
const outputPartBytes = 64 * 1024

/**
 * Room for all the raw deflate output of `length` bytes in one buffer (zlib's bound, with a margin
 * for the flush): a small input's output then fits one allocation of about its own size.
 */
export function outputBound(length: number): number {
  return length + (length >> 10) + 64
}

// See deflatesAtOnce.
const inlineDeflateMaxBytes = 16 * 1024

/**
 * Deflates one chunk of an entry. `dictionary` is the input that precedes the chunk in its entry
 * (null for the first chunk); `last` finishes the stream. The output comes in parts, in order. It
 * is identical whichever thread computes it: a chunk small enough ({@link deflatesAtOnce}) is
 * deflated on the calling thread before this returns, a larger one on the thread pool.
 */
export function deflateChunk(chunk: Buffer, dictionary: Buffer | null, last: boolean): Buffer[] | Promise<Buffer[]> {
  if (deflatesAtOnce(chunk.length)) return [dictionary === null && last ? deflateWhole(chunk) : zlib.deflateRawSync(chunk, deflateOptions(chunk.length, dictionary, last))]
  const options = deflateOptions(chunk.length, dictionary, last)
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    const deflater = zlib.createDeflateRaw(options)
    deflater.on('data', (part: Buffer) => parts.push(part))
    deflater.on('end', () => resolve(parts))
    deflater.on('error', reject)
    deflater.end(chunk)
  })
}

/**
 * Deflates an entry of one chunk whole on the calling thread, whatever its size: the bytes
 * `deflateChunk(bytes, null, true)` gives, for a thread of its own (an encoding worker).
 */
export function deflateWhole(bytes: Buffer): Buffer {
  return deflateRawOnce(bytes, {level: deflateLevel, memLevel, windowBits: windowBitsFor(bytes.length)}, outputBound(bytes.length))
}

function deflateOptions(length: number, dictionary: Buffer | null, last: boolean): zlib.ZlibOptions {
  return {
    level: deflateLevel,
    memLevel,
    // A chunk primed with a dictionary reaches back into it: the whole window.
    windowBits: dictionary === null && last ? windowBitsFor(length) : windowBits,
    finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
    chunkSize: Math.min(outputPartBytes, outputBound(length)),
    ...(dictionary === null ? {} : {dictionary}),
  }
}

/**
 * True for a chunk so small that it is deflated on the calling thread: a trip through the thread
 * pool (a zlib context set up, two thread hand-offs) costs more than the work.
 */
function deflatesAtOnce(length: number): boolean {
  return length <= inlineDeflateMaxBytes
}

/** The dictionary for the chunk after `chunk`: a copy of its last 32 KiB (a copy, so the chunk itself can be freed). */
export function dictionaryAfter(chunk: Buffer): Buffer {
  return Buffer.from(chunk.subarray(Math.max(0, chunk.length - dictionaryBytes)))
}

/**
 * The cheap test that keeps incompressible data (already compressed, encrypted or random) from
 * being deflated whole: true when raw deflate at level 1 of `head`, an entry's first
 * {@link probeBytes}, is not smaller than it.
 */
function probeSaysStore(head: Buffer): boolean {
  return zlib.deflateRawSync(head, {level: 1, memLevel, chunkSize: outputBound(head.length)}).length >= head.length
}

/**
 * True when an entry of `size` bytes whose first chunk is `chunk` is stored without trying deflate: it is
 * larger than {@link probeBytes} and its first bytes do not deflate (see {@link probeSaysStore}). First bytes
 * that are UTF-8 text are not probed: text always deflates, and what the probe is for (compressed or
 * encrypted data) is not UTF-8 over 16 KiB. (Measured on 1,000 JavaScript modules of 50 KiB: the probes cost
 * about 15 % of the deflating; the check costs a microsecond an entry.)
 */
export function storedWithoutTrying(size: number, chunk: Buffer): boolean {
  if (size <= probeBytes) return false
  const head = chunk.subarray(0, probeBytes)
  return !isUtf8(wholeCharacters(head)) && probeSaysStore(head)
}

/** `bytes` without the character that a cut at their end may have split (at most its first 3 bytes). */
function wholeCharacters(bytes: Buffer): Buffer {
  for (let back = 1; back <= 3 && back <= bytes.length; back++) {
    const byte = bytes[bytes.length - back] as number
    // A continuation byte: its character began further back.
    if ((byte & 0xc0) === 0x80) continue
    // The first byte of a character of several bytes: the character is left out, whole or cut.
    return byte >= 0xc0 ? bytes.subarray(0, bytes.length - back) : bytes
  }
  return bytes
}
