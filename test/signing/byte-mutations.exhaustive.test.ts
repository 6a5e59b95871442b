import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {append, checkMutations, flip, freeFields, insert, type Mutation, type SignedOriginal, signedOriginal} from './byte-mutations.js'

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
