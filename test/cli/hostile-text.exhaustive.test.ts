import {after, before, describe, it} from 'node:test'
import {tempDir} from '../helpers/cli.js'
import {assertHostileManifestsContained} from './hostile-text-property.js'

// The generated half of test/cli/hostile-text.test.ts, over many more manifests.

let scratch: {dir: string; cleanup: () => Promise<void>}
before(async () => {
  scratch = await tempDir('svc-plugin-hostile-text-exhaustive-')
})
after(() => scratch.cleanup())

describe('generated hostile manifests (exhaustive)', () => {
  it('through inspect and validate hold nothing raw', async () => {
    await assertHostileManifestsContained(scratch.dir, 500)
  })
})
