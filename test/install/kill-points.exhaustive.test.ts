import path from 'node:path'
import {after, describe, it} from 'node:test'

import {tempDir} from '../helpers/cli.js'
import {describeMutation, killAndRecover, prepareScenarios, recordMutations} from './helpers/kill-points.js'

// Kills each operation before every one of its changes to disk, in a child process (SIGKILL), and checks
// the data root it leaves and that running the operation again completes it. Slow: run it with
// `npm run test:exhaustive`; kill-points.test.ts runs a sample in the regular suite.

const work = await tempDir('svc-plugin-kill-points-all-')
after(() => work.cleanup())
const scenarios = await prepareScenarios(work.dir)

// Every uninterrupted run is recorded before any test starts: the hook that records is process-wide.
const recorded = []
for (const [index, scenario] of scenarios.entries()) {
  const countRoot = path.join(work.dir, 'uninterrupted', String(index))
  recorded.push({index, scenario, countRoot, mutations: await recordMutations(scenario, countRoot)})
}

for (const {index, scenario, countRoot, mutations} of recorded) {

  describe(`${scenario.name}, killed before each of its ${mutations.length} changes to disk`, {concurrency: 2}, () => {
    for (const [at, mutation] of mutations.entries()) {
      const ordinal = at + 1
      it(`keeps the data root consistent when killed before change ${ordinal} (${describeMutation(mutation, countRoot)}), and a retry completes`, async () => {
        await killAndRecover(scenario, ordinal, path.join(work.dir, 'killed', `${index}-${ordinal}`))
      })
    }
  })
}
