import {describe, it} from 'node:test'
import {checkReproduceProperty} from './reproduce-property.js'

describe('reproduce: a random single change of a random tree (fixed-size sample)', () => {
  it('names the changed entry or member as the first difference, and reproduces an unchanged tree', async () => {
    await checkReproduceProperty(12)
  })
})
