import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {checkCountersignature, type CountersignedSubject} from '../../src/signing/countersignature.js'
import {tempDir} from '../helpers/cli.js'
import {testNow} from '../signing/pki.js'
import {acceptedFlips} from './countersign-property.js'
import {countersignedPair, subjectOf} from './countersigned.js'

// A seeded sample of the single-bit flips of a real countersignature; countersign-property.exhaustive.test.ts
// flips every bit.

const seed = 0xc0c5
let dir: string
let cleanup: () => Promise<void>
let pair: Awaited<ReturnType<typeof countersignedPair>>
let subject: CountersignedSubject

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-countersign-property-'))
  pair = await countersignedPair(dir)
  subject = await subjectOf(pair.a, pair.pki)
})
after(async () => cleanup())

const context = () => ({trust: pair.pki.trust, now: testNow, revocations: []})

describe('a countersignature file', () => {
  it('holds for its own artifact', () => {
    const result = checkCountersignature(pair.countersig, subject, context())
    assert.ok(!('code' in result))
  })

  it('is refused (store-signature-invalid) after any single-bit flip: a sample of 400 bits', () => {
    const bits = fc.sample(fc.integer({min: 0, max: pair.countersig.length * 8 - 1}), {seed, numRuns: 400})
    assert.deepEqual(acceptedFlips(pair.countersig, bits, subject, context()), [])
  })

  it('never admits another artifact: any other file SHA-256, canonical digest or publisher signature is refused', () => {
    const hex = fc.uint8Array({minLength: 32, maxLength: 32}).map((bytes) => Buffer.from(bytes).toString('hex'))
    const signature = fc.uint8Array({minLength: 64, maxLength: 64}).map((bytes) => Buffer.from(bytes).toString('base64'))
    const other = fc.record({fileSha256: fc.option(hex.map((value) => `sha256:${value}`)), artifactDigest: fc.option(hex), publisherSignature: fc.option(signature)})
    fc.assert(
      fc.property(other, (change) => {
        const b: CountersignedSubject = {
          fileSha256: change.fileSha256 ?? subject.fileSha256,
          artifactDigest: change.artifactDigest ?? subject.artifactDigest,
          publisherSignature: change.publisherSignature ?? subject.publisherSignature,
        }
        fc.pre(b.fileSha256 !== subject.fileSha256 || b.artifactDigest !== subject.artifactDigest || b.publisherSignature !== subject.publisherSignature)
        const result = checkCountersignature(pair.countersig, b, context())
        assert.ok('code' in result && result.code === 'store-signature-invalid')
      }),
      {seed, numRuns: 300},
    )
  })

  it('of artifact A is refused for the real artifact B, another version of the same plugin by the same publisher', async () => {
    const result = checkCountersignature(pair.countersig, await subjectOf(pair.b, pair.pki), context())
    assert.ok('code' in result && result.code === 'store-signature-invalid')
  })
})
