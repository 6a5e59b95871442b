import assert from 'node:assert/strict'
import path from 'node:path'
import {writeFile} from 'node:fs/promises'
import {after, before, describe, it} from 'node:test'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {tempDir} from '../helpers/cli.js'
import {families} from './families.js'
import {unexpectedFindings} from './known-defects.js'
import {caseSeedOf, describeFinding, prepareSeeds, runFamily} from './runner.js'
import type {ArchiveSeeds} from './seeds.js'

/** The seed of the sample `npm test` runs; `npm run fuzz` draws a fresh one each time. */
const seed = 20300601
/** Only a real hang fails the suite, not a call slowed down by a busy machine. */
const timeoutMs = 30_000
/** Cases per family: the same mutants on every run, whatever the machine's load (`npm run fuzz` runs by time). */
const cases = {archive: 60, install: 60}

describe('fuzzing archives', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let seeds: ArchiveSeeds

  before(async () => {
    work = await tempDir('svc-plugin-fuzz-')
    // archive and install share one preparation.
    seeds = (await prepareSeeds(['archive', 'install'], work.dir)).get(families.archive.seedsKey) as ArchiveSeeds
  })
  after(() => work.cleanup())

  it('starts from signed seeds that verify Trusted, so that a Trusted mutant means something', async () => {
    const signed = seeds.seeds.filter((item) => item.signed !== null)
    assert.deepEqual(signed.map((item) => item.name), ['example-signed', 'example-large-signed'])
    for (const item of signed) {
      const file = path.join(work.dir, `${item.name}.svcPlugin`)
      await writeFile(file, item.bytes)
      assert.equal((await verifyArtifact(file, {trust: seeds.trust, now: seeds.now})).verdict, 'Trusted', item.name)
      assert.equal(item.signed?.freeFormBytes, 0, item.name)
    }
    assert.ok(seeds.seeds.filter((item) => item.name.startsWith('hostile:')).length >= 40, 'the hostile corpus is among the seeds')
  })

  it('every mutant gets a typed result or refusal from every reader, and no Trusted verdict without the signed bytes (seeded sample)', async (t) => {
    const run = await runFamily('archive', seeds, work.dir, {seed, cases: cases.archive, timeoutMs})
    t.diagnostic(`${run.iterations} archives, ${run.findings.length} findings of open defects`)
    assert.equal(run.iterations, cases.archive)
    assert.deepEqual(unexpectedFindings(run.findings).map(describeFinding), [])
  })

  it('every mutant installs or is refused with a typed error, leaving no version behind (seeded sample)', async (t) => {
    const run = await runFamily('install', seeds, work.dir, {seed, cases: cases.install, timeoutMs})
    t.diagnostic(`${run.iterations} archives, ${run.findings.length} findings of open defects`)
    assert.equal(run.iterations, cases.install)
    assert.deepEqual(unexpectedFindings(run.findings).map(describeFinding), [])
  })

  it('regenerates a case from the seed and its index alone', () => {
    for (const index of [0, 7, 1234]) {
      const {caseSeed, unbiased} = caseSeedOf(seed, 'archive', index)
      const first = families.archive.generate(seeds, caseSeed, unbiased)
      const again = families.archive.generate(seeds, caseSeed, unbiased)
      assert.equal(again.label, first.label)
      assert.deepEqual(again.input, first.input)
    }
  })
})
