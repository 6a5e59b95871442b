import {after, before, describe, it} from 'node:test'
import {scratch} from '../pack/support.js'
import {assertHostileFoldersJudgedAlike} from './source-judgement.js'

describe('validate --level package judges a folder as pack does, at length', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  before(async () => {
    work = await scratch('source-judgement-long')
  })
  after(async () => work.cleanup())

  it('judges 400 random hostile folders alike', async () => {
    await assertHostileFoldersJudgedAlike(work.dir, 400)
  })
})
