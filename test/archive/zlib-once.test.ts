import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import zlib from 'node:zlib'
import fc from 'fast-check'
import {ZlibFailure, deflateRawOnce, inflateRawOnce} from '../../src/archive/zlib-once.js'

/** Bytes of every kind deflate meets: runs, text-like repeats, random. */
const bytes = fc.oneof(
  fc.uint8Array({maxLength: 40_000}),
  fc.tuple(fc.uint8Array({minLength: 1, maxLength: 64}), fc.nat({max: 2000})).map(([unit, times]) => Buffer.concat(Array.from({length: times}, () => Buffer.from(unit)))),
  fc.nat({max: 70_000}).map((length) => Buffer.alloc(length, 0x61)),
)

/** What Node's documented one-shot inflate says of `input` with at most `limit` bytes out: the bytes and consumed input, or the failure's code. */
function documentedInflate(input: Uint8Array, limit: number): {data: Buffer; consumed: number} | {overflow: true} | {code: string} {
  try {
    const result = zlib.inflateRawSync(input, {info: true, maxOutputLength: limit + 1} as zlib.ZlibOptions) as unknown as {buffer: Buffer; engine: {bytesWritten: number}}
    if (result.buffer.length > limit) return {overflow: true}
    return {data: result.buffer, consumed: result.engine.bytesWritten}
  } catch (error) {
    const {code} = error as NodeJS.ErrnoException
    return code === 'ERR_BUFFER_TOO_LARGE' ? {overflow: true} : {code: code!}
  }
}

function reusedInflate(input: Uint8Array, limit: number): {data: Buffer; consumed: number} | {overflow: true} | {code: string} {
  try {
    const result = inflateRawOnce(input, limit)
    return result.overflow ? {overflow: true} : {data: result.data, consumed: result.consumed}
  } catch (error) {
    assert.ok(error instanceof ZlibFailure, `a zlib failure, not ${String(error)}`)
    return {code: error.code}
  }
}

describe('one-shot inflate through a reused stream', () => {
  it('inflates as zlib.inflateRawSync does: the same bytes and input consumed, or a refusal (an overflow past the limit, the same failure code)', () => {
    const deflatedThenDamaged = fc
      .tuple(bytes, fc.uint8Array({maxLength: 40}), fc.array(fc.tuple(fc.nat(), fc.integer({min: 1, max: 255})), {maxLength: 3}), fc.option(fc.nat(), {nil: undefined}))
      .map(([input, trailing, flips, cut]) => {
        const deflated = Buffer.concat([zlib.deflateRawSync(input), trailing])
        for (const [at, mask] of flips) if (deflated.length > 0) deflated[at % deflated.length]! ^= mask
        return {input, compressed: cut === undefined ? deflated : deflated.subarray(0, cut % (deflated.length + 1))}
      })
    fc.assert(
      fc.property(deflatedThenDamaged, fc.nat({max: 3}), ({input, compressed}, shrink) => {
        // The limit at, just under, or well under the true size.
        const limit = Math.max(0, input.length - [0, 1, 7, input.length][shrink]!)
        const reused = reusedInflate(compressed, limit)
        const documented = documentedInflate(compressed, limit)
        // A stream both longer than the limit and cut short may be told by either fault, depending on
        // which the engine meets first in its output buffer: each is a refusal. Otherwise the outcome is the same.
        const both = 'overflow' in reused !== 'overflow' in documented && !('data' in reused) && !('data' in documented)
        if (!both) assert.deepEqual(reused, documented)
      }),
      {numRuns: 300},
    )
  })

  it('refuses a distance reaching before the entry, although an earlier entry left those bytes in its window', () => {
    // Deflated with a dictionary, inflated without one: every match reaches before the stream's own output.
    const dictionary = Buffer.alloc(32 * 1024, 0x78)
    const farBack = zlib.deflateRawSync(Buffer.alloc(2000, 0x78), {dictionary})
    const filling = Buffer.alloc(60_000, 0x78)
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(inflateRawOnce(zlib.deflateRawSync(filling), filling.length).data, filling)
      assert.deepEqual(reusedInflate(farBack, 2000), documentedInflate(farBack, 2000))
      assert.deepEqual(reusedInflate(farBack, 2000), {code: 'Z_DATA_ERROR'})
    }
  })

  it('goes on inflating correctly after a failure', () => {
    assert.throws(() => inflateRawOnce(Buffer.from([0xff, 0xff, 0xff]), 10), (error: unknown) => error instanceof ZlibFailure && error.code === 'Z_DATA_ERROR')
    const text = Buffer.from('after a failure, the next call starts afresh\n'.repeat(20))
    const result = inflateRawOnce(zlib.deflateRawSync(text), text.length)
    assert.deepEqual(result.data, text)
    assert.equal(result.overflow, false)
  })
})

describe('one-shot deflate on a new native stream', () => {
  it('gives the bytes zlib.deflateRawSync gives, whatever the settings, and whatever output room it starts with', () => {
    const settings = fc.record({level: fc.integer({min: 1, max: 9}), memLevel: fc.integer({min: 1, max: 9}), windowBits: fc.integer({min: 9, max: 15})})
    fc.assert(
      fc.property(bytes, settings, fc.nat({max: 70_000}), (input, chosen, room) => {
        assert.deepEqual(deflateRawOnce(input, chosen, room), zlib.deflateRawSync(input, chosen))
      }),
      {numRuns: 300},
    )
  })

  it('refuses level 0, whose stored blocks would depend on the output room', () => {
    assert.throws(() => deflateRawOnce(Buffer.alloc(10), {level: 0, memLevel: 9, windowBits: 15}, 64), RangeError)
  })

  it('does not carry one input into the next: a run of one byte after a longer run of it deflates as on its own', () => {
    const settings = {level: 6, memLevel: 9, windowBits: 15}
    const long = Buffer.alloc(60_000, 0x61)
    const short = Buffer.alloc(300, 0x61)
    const alone = zlib.deflateRawSync(short, settings)
    for (let round = 0; round < 3; round++) {
      assert.deepEqual(deflateRawOnce(long, settings, 1024), zlib.deflateRawSync(long, settings))
      assert.deepEqual(deflateRawOnce(short, settings, 64), alone)
    }
  })
})
