import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {append, checkMutations, flip, freeFields, insert, type Mutation, type SignedOriginal, signedOriginal} from './byte-mutations.js'
import {checkSealedMutations, remove, sealedOriginal, type SealedOriginal} from './sealed-mutations.js'

// Every mutant of one real signed artifact (about 2 KB): each byte xor 0xff and xor 0x01, one byte
// inserted at every offset, bytes appended. About 6,000 verifications: about 20 s on two cores, which is
// why the everyday suite runs the seeded sample of byte-mutations.test.ts instead.

let original: SignedOriginal
before(async () => {
  original = await signedOriginal()
})
after(async () => {
  await original.remove()
})

describe('every mutant of a signed artifact', () => {
  it('is refused, or verifies Trusted with the same digest after a change inside a free header field', async () => {
    const mutations: Mutation[] = []
    for (let offset = 0; offset < original.bytes.length; offset++) mutations.push(flip(offset, 0xff), flip(offset, 0x01))
    const report = await checkMutations(original, mutations)
    assert.deepEqual(report.violations, [])
    // What stays free is exactly the fixed-size fields named in byte-mutations.ts (entry data may or may not show).
    assert.deepEqual([...report.freeFields].filter((field) => field !== 'entry data').sort(), [...freeFields].filter((field) => field !== 'entry data').sort())
  })

  it('is refused whenever a byte is inserted or appended', async () => {
    const mutations: Mutation[] = []
    for (let offset = 0; offset <= original.bytes.length; offset++) mutations.push(insert(offset, offset & 0xff))
    mutations.push(append(Buffer.from([0])), append(Buffer.alloc(100, 0x41)))
    const report = await checkMutations(original, mutations)
    assert.deepEqual(report.violations, [])
    assert.equal(report.trusted, 0)
  })
})

// An artifact carrying containerDigest (about 3 KB): every single-bit change, every inserted byte and every
// deleted byte, each judged by verifyArtifact, verifyUpload and install. No field is free any more.
describe('every mutant of an artifact carrying containerDigest', () => {
  let sealed: SealedOriginal
  before(async () => {
    sealed = await sealedOriginal()
  })
  after(async () => sealed.remove())

  it('is refused by verifyArtifact, verifyUpload and install: every bit flipped', async (t) => {
    const mutations: Mutation[] = []
    for (let offset = 0; offset < sealed.bytes.length; offset++) for (let bit = 0; bit < 8; bit++) mutations.push(flip(offset, 1 << bit))
    const report = await checkSealedMutations(sealed, mutations)
    t.diagnostic(`bit flips of a ${sealed.bytes.length}-byte artifact: ${report.tried} tried, refused ${JSON.stringify(report.refused)}`)
    assert.deepEqual(report.violations, [])
    assert.equal(report.tried, sealed.bytes.length * 8)
  })

  it('is refused by verifyArtifact, verifyUpload and install: every byte inserted, every byte deleted', async (t) => {
    const mutations: Mutation[] = []
    for (let offset = 0; offset <= sealed.bytes.length; offset++) mutations.push(insert(offset, offset & 0xff))
    for (let offset = 0; offset < sealed.bytes.length; offset++) mutations.push(remove(offset))
    const report = await checkSealedMutations(sealed, mutations)
    t.diagnostic(`insertions and deletions: ${report.tried} tried, refused ${JSON.stringify(report.refused)}`)
    assert.deepEqual(report.violations, [])
    assert.equal(report.tried, sealed.bytes.length * 2 + 1)
  })
})
