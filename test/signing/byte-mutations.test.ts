import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {append, checkMutations, flip, insert, type Mutation, type SignedOriginal, signedOriginal} from './byte-mutations.js'
import {checkSealedMutations, remove, sealedOriginal, type SealedOriginal} from './sealed-mutations.js'

// A seeded sample of the mutants of one real signed artifact: one byte of every header field of
// every record (and of every name and every entry's data), flipped; insertions at random offsets;
// bytes appended. byte-mutations.exhaustive.test.ts runs every offset.

const seed = 0x5eed

let original: SignedOriginal
before(async () => {
  original = await signedOriginal()
})
after(async () => {
  await original.remove()
})

/** One offset of each run of bytes that belong to the same field, chosen with the seed. */
function onePerField(fields: readonly string[]): number[] {
  const runs: [number, number][] = []
  fields.forEach((field, offset) => {
    if (offset > 0 && fields[offset - 1] === field) runs[runs.length - 1]![1] = offset + 1
    else runs.push([offset, offset + 1])
  })
  const picks = fc.sample(fc.double({min: 0, max: 1, maxExcluded: true, noNaN: true}), {seed, numRuns: runs.length})
  return runs.map(([start, end], index) => start + Math.floor(picks[index]! * (end - start)))
}

describe('every byte of a signed artifact is signed, checked or a fixed-size header field', () => {
  it('starts from an artifact of a few KB', () => {
    assert.ok(original.bytes.length > 1000 && original.bytes.length < 8000, `${original.bytes.length} bytes`)
  })

  it('refuses a flip of one byte in each field, or verifies it Trusted with the same digest when the field is free', async () => {
    const offsets = onePerField(original.fields)
    const masks = fc.sample(fc.constantFrom(0xff, 0x01), {seed, numRuns: offsets.length})
    const report = await checkMutations(original, offsets.map((offset, index) => flip(offset, masks[index]!)))
    assert.deepEqual(report.violations, [])
    assert.ok(offsets.length > 200, `${offsets.length} fields`)
  })

  it('refuses every inserted or appended byte', async () => {
    const offsets = fc.sample(fc.integer({min: 0, max: original.bytes.length}), {seed, numRuns: 100})
    const mutations: Mutation[] = [
      ...offsets.map((offset, index) => insert(offset, index & 0xff)),
      append(Buffer.from([0])),
      append(Buffer.from('appended payload')),
      // An empty end record behind the real one: a reader that takes the last one sees an empty archive.
      append(Buffer.from('504b0506000000000000000000000000000000000000', 'hex')),
    ]
    const report = await checkMutations(original, mutations)
    assert.deepEqual(report.violations, [])
    assert.equal(report.trusted, 0)
  })
})

describe('no byte of an artifact carrying containerDigest can change and still be accepted (a seeded sample)', () => {
  let sealed: SealedOriginal
  before(async () => {
    sealed = await sealedOriginal()
  })
  after(async () => sealed.remove())

  // 100 of the fields (of about 280), one bit flipped in each; 25 bytes inserted, 25 deleted: about 5 s.
  it('refuses, in verifyArtifact, verifyUpload and install, a flipped bit in a hundred fields, and inserted and deleted bytes', async () => {
    const [offsets] = fc.sample(fc.shuffledSubarray(onePerField(sealed.fields), {minLength: 100, maxLength: 100}), {seed, numRuns: 1}) as [number[]]
    const bits = fc.sample(fc.integer({min: 0, max: 7}), {seed, numRuns: offsets.length})
    const places = fc.sample(fc.integer({min: 0, max: sealed.bytes.length - 1}), {seed: seed + 1, numRuns: 25})
    const mutations: Mutation[] = [
      ...offsets.map((offset, index) => flip(offset, 1 << bits[index]!)),
      ...places.map((offset, index) => insert(offset, (index * 37) & 0xff)),
      ...places.map((offset) => remove(offset)),
    ]
    const report = await checkSealedMutations(sealed, mutations)
    assert.deepEqual(report.violations, [])
    assert.deepEqual(report.refused, {verifyArtifact: 150, verifyUpload: 150, install: 150})
  })
})
