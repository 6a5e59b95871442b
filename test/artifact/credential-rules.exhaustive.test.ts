import {describe, it} from 'node:test'
import {assertAgreesWithEveryRule} from './rules-oracle.js'

describe('the credential rules behind their keyword prefilter, at length', () => {
  it('report what every rule reports on 2,000 random texts made of keyword pieces, secrets and noise', async () => {
    await assertAgreesWithEveryRule(2000)
  })
})
