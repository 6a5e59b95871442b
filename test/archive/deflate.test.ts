import assert from 'node:assert/strict'
import {isUtf8} from 'node:buffer'
import {describe, it} from 'node:test'
import {deflateRawSync, inflateRawSync} from 'node:zlib'
import {deflateChunk, deflateWhole, probeBytes, storedWithoutTrying, windowBitsFor} from '../../src/archive/deflate.js'

/** A seeded generator, so that every run checks the same inputs. */
function seeded(seed: number): () => number {
  let state = seed
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0
    return state / 2 ** 32
  }
}

const words = 'const let function return import export from await async class extends this null undefined true false if else for while'.split(' ')

/** Inputs of the shapes packs meet: random bytes, source text, short repeats, and a low-entropy mix (long hash chains). */
function input(kind: 'random' | 'text' | 'repeat' | 'mixed', length: number, random: () => number): Buffer {
  const bytes = Buffer.alloc(length)
  if (kind === 'text') {
    let text = ''
    while (text.length < length) text += words[Math.floor(random() * words.length)]! + (random() < 0.1 ? ';\n' : ' ')
    bytes.write(text.slice(0, length), 'latin1')
    return bytes
  }
  for (let index = 0; index < length; index++) {
    if (kind === 'random') bytes[index] = Math.floor(random() * 256)
    else if (kind === 'repeat') bytes[index] = index % 7
    else bytes[index] = random() < 0.7 ? 97 + Math.floor(random() * 3) : Math.floor(random() * 256)
  }
  return bytes
}

describe('deflate window of a small entry', () => {
  it('holds every input byte within reach, and is zlib\'s largest above 32 KiB', () => {
    for (let length = 1; length <= 70_000; length += length < 2048 ? 1 : 97) {
      const bits = windowBitsFor(length)
      assert.ok(bits >= 9 && bits <= 15, `${length}: ${bits}`)
      // A back-reference reaches the window less 262 bytes back.
      if (bits < 15) assert.ok(2 ** bits - 262 >= length, `${length}: a ${bits}-bit window leaves part of the input out of reach`)
      // The smallest such window: one bit less would not do.
      if (bits > 9) assert.ok(2 ** (bits - 1) - 262 < length, `${length}: ${bits} bits where ${bits - 1} would do`)
      if (length > 32 * 1024 - 262) assert.equal(bits, 15)
    }
  })

  it('gives the very bytes zlib\'s largest window gives, for every shape and size around each boundary', async () => {
    const random = seeded(23)
    const boundaries = [1, 2, 3, 250, 251, 512 - 262, 512, 1024 - 262, 1024, 2048, 4096 - 262, 4096, 8192, 16384 - 262, 16384, 32768 - 262, 32768]
    const lengths = [...boundaries.flatMap((length) => [length - 1, length, length + 1]).filter((length) => length > 0), ...Array.from({length: 24}, () => 1 + Math.floor(random() * 40_000))]
    let compared = 0
    for (const kind of ['random', 'text', 'repeat', 'mixed'] as const) {
      for (const length of lengths) {
        const bytes = input(kind, length, random)
        const largest = deflateRawSync(bytes, {level: 6, memLevel: 9, windowBits: 15})
        const whole = deflateWhole(bytes)
        assert.ok(whole.equals(largest), `${kind} ${length}: ${whole.length} bytes, not the ${largest.length} of the largest window`)
        // The main thread's way (on the thread pool above 16 KiB) gives the same bytes as a worker's.
        assert.ok(Buffer.concat(await deflateChunk(bytes, null, true)).equals(largest), `${kind} ${length}: the main thread's deflate differs`)
        assert.ok(inflateRawSync(whole).equals(bytes), `${kind} ${length}: does not inflate back`)
        compared += 1
      }
    }
    assert.equal(compared, 4 * lengths.length)
  })
})

describe('which entries are stored without trying deflate', () => {
  /** The rule before text skipped the probe: larger than 16 KiB and the level-1 probe of the first 16 KiB not smaller. */
  const probed = (size: number, chunk: Buffer) => size > probeBytes && deflateRawSync(chunk.subarray(0, probeBytes), {level: 1, memLevel: 9}).length >= probeBytes

  it('decides as the probe does on every kind of input, and never probes UTF-8 text, which the probe always deflates', () => {
    const random = seeded(7)
    const texts = [
      Buffer.from('export const x = 1\n'.repeat(3000)),
      Buffer.from('é€𝄞 données ünïcödé 日本語のテキスト\n'.repeat(1500)),
      Buffer.from(Array.from({length: 40000}, () => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[Math.floor(random() * 64)]).join('')),
    ]
    // The second text's 16 KiB end inside a character: the cut character does not make it binary.
    assert.equal(isUtf8(texts[1]!.subarray(0, probeBytes)), false)
    for (const text of texts) {
      assert.equal(probed(text.length, text), false, 'the probe would have deflated this text too')
      assert.equal(storedWithoutTrying(text.length, text), false)
    }
    for (const kind of ['random', 'text', 'repeat', 'mixed'] as const) {
      for (const length of [probeBytes - 1, probeBytes, probeBytes + 1, 50_000, 200_000]) {
        const bytes = input(kind, length, random)
        assert.equal(storedWithoutTrying(length, bytes), probed(length, bytes), `${kind} of ${length} bytes`)
      }
    }
    // Compressed data, which is what the probe is for: never UTF-8, stored without trying.
    const compressed = deflateRawSync(input('random', 100_000, random))
    assert.equal(isUtf8(compressed.subarray(0, probeBytes)), false)
    assert.equal(storedWithoutTrying(compressed.length, compressed), true)
  })
})
