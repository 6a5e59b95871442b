import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {tempDir} from '../helpers/cli.js'
import {testNow} from '../signing/pki.js'
import {acceptedFlips} from './countersign-property.js'
import {countersignedPair, subjectOf} from './countersigned.js'

// Every single-bit flip of a real countersignature (about 1.4 KB, so about 11,000 checks of two Ed25519
// signatures at most each): the everyday suite runs the sample of countersign-property.test.ts instead.

let dir: string
let cleanup: () => Promise<void>
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-countersign-exhaustive-'))
})
after(async () => cleanup())

describe('every single-bit flip of a countersignature file', () => {
  it('is refused with store-signature-invalid: no bit of the file is free', async () => {
    const pair = await countersignedPair(dir)
    const subject = await subjectOf(pair.a, pair.pki)
    const bits = Array.from({length: pair.countersig.length * 8}, (_, bit) => bit)
    assert.deepEqual(acceptedFlips(pair.countersig, bits, subject, {trust: pair.pki.trust, now: testNow, revocations: []}), [])
  })
})
