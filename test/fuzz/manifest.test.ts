import assert from 'node:assert/strict'
import {after, before, describe, it} from 'node:test'
import {tempDir} from '../helpers/cli.js'
import {families} from './families.js'
import {unexpectedFindings} from './known-defects.js'
import {caseSeedOf, describeFinding, prepareSeeds, runFamily} from './runner.js'

/** The seed of the sample `npm test` runs; `npm run fuzz` draws a fresh one each time. */
const seed = 20300601
/** The documents the sample generates: the same ones on every run, whatever the machine's load (`npm run fuzz` runs by time). */
const cases = 150
/** Documents of several MiB take seconds each to validate at every level: `npm run fuzz` runs them. */
const maxInputBytes = 1024 * 1024
/** Only a real hang fails the suite, not a call slowed down by a busy machine. */
const timeoutMs = 30_000

describe('fuzzing manifest documents', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  before(async () => {
    work = await tempDir('svc-plugin-fuzz-')
  })
  after(() => work.cleanup())

  it('every document gets a typed report at every level, from readManifest and in every format (seeded sample)', async (t) => {
    const seeds = (await prepareSeeds(['manifest'], work.dir)).get(families.manifest.seedsKey)
    const run = await runFamily('manifest', seeds, work.dir, {seed, cases, maxInputBytes, timeoutMs})
    t.diagnostic(`${run.iterations} documents (${run.skipped} larger ones left out), ${run.findings.length} findings of open defects`)
    assert.equal(run.iterations + run.skipped, cases)
    assert.ok(run.iterations > run.skipped)
    assert.deepEqual(unexpectedFindings(run.findings).map(describeFinding), [])
  })

  it('regenerates a case from the seed and its index alone', async () => {
    const seeds = (await prepareSeeds(['manifest'], work.dir)).get(families.manifest.seedsKey)
    for (const index of [0, 7, 1234]) {
      const {caseSeed, unbiased} = caseSeedOf(seed, 'manifest', index)
      const first = families.manifest.generate(seeds, caseSeed, unbiased)
      const again = families.manifest.generate(seeds, caseSeed, unbiased)
      assert.equal(again.label, first.label)
      assert.deepEqual(again.input, first.input)
    }
  })
})
