import {mkdir} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {tempDir} from '../helpers/cli.js'
import {checkOutputPlans} from './output-support.js'

describe('the outputs of one operation, on many plans', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let counter = 0
  before(async () => {
    scratch = await tempDir('svc-plugin-output-plans-')
  })
  after(() => scratch.cleanup())

  it('keeps every output when the operation succeeds, and leaves the tree exactly as it was when it fails at any step', async () => {
    await checkOutputPlans(async () => {
      const dir = path.join(scratch.dir, `p${counter++}`)
      await mkdir(dir)
      return dir
    }, 2000)
  })
})
