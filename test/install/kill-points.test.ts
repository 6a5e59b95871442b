import assert from 'node:assert/strict'
import {readFile, readdir} from 'node:fs/promises'
import path from 'node:path'
import {after, describe, it} from 'node:test'

import {repoRoot, tempDir} from '../helpers/cli.js'
import {describeMutation, id, killAndRecover, prepareScenarios, recordMutations, samplePoints} from './helpers/kill-points.js'

// Every change the installer makes to disk goes through one module that can call a hook before it. Here a
// child process kills itself (SIGKILL) right before chosen changes of each operation: the commit point,
// the promotion of the staged tree, the switch of current.json, every removal from the plugin directory
// and the layout step. At each, a reader resolves the active version to a complete directory, and the next
// operation leaves the layout at rest. kill-points.exhaustive.test.ts (npm run test:exhaustive) kills
// before every single change.

const work = await tempDir('svc-plugin-kill-points-')
after(() => work.cleanup())
const scenarios = await prepareScenarios(work.dir)

// Every uninterrupted run is recorded before any test starts: the hook that records is process-wide.
const recorded = []
for (const [index, scenario] of scenarios.entries()) {
  const countRoot = path.join(work.dir, 'uninterrupted', String(index))
  recorded.push({index, scenario, countRoot, mutations: await recordMutations(scenario, countRoot)})
}

for (const {index, scenario, countRoot, mutations} of recorded) {
  const points = samplePoints(mutations, countRoot)

  describe(`${scenario.name} killed with SIGKILL`, {concurrency: 2}, () => {
    it(`is sampled at its commit point and its switch (${points.size} of ${mutations.length} changes to disk)`, async () => {
      const labels = [...points.keys()]
      if (scenario.operation(countRoot).kind === 'install') {
        assert.ok(labels.includes('the commit point (the journal)'), labels.join('; '))
        assert.ok(labels.some((label) => label.startsWith('the promotion to ')), labels.join('; '))
      }
      // Whenever the run changed which directory is active, the instant it switched is among the samples.
      const currentOf = (dataRoot: string) => readFile(path.join(dataRoot, 'plugins', id, 'current.json'), 'utf8').catch(() => null)
      const [before, afterwards] = [await currentOf(scenario.template), await currentOf(countRoot)]
      if (afterwards !== null && afterwards !== before) assert.ok(labels.includes('the switch of current.json'), labels.join('; '))
      if (afterwards === null && before !== null) assert.ok(labels.includes('the removal of current.json'), labels.join('; '))
      // A forced reinstall passes through <version>_<n>: the move back to <version> is among the samples too.
      if (scenario.name.startsWith('a forced reinstall')) assert.ok(labels.includes('the layout step'), labels.join('; '))
    })

    for (const [label, ordinal] of points) {
      const mutation = mutations[ordinal - 1]
      it(`keeps the data root consistent when killed before ${label} (change ${ordinal}: ${mutation === undefined ? '?' : describeMutation(mutation, countRoot)}), and a retry completes`, async () => {
        await killAndRecover(scenario, ordinal, path.join(work.dir, 'killed', `${index}-${ordinal}`))
      })
    }
  })
}

describe('the installer', () => {
  it('changes the disk only through src/fs/mutations.ts, so that a kill point exists before every change', async () => {
    // Calls of node:fs that create, write, rename, link, change or remove something.
    const mutating = /\b(mkdir|mkdtemp|rename|rm|rmdir|unlink|writeFile|appendFile|copyFile|cp|link|symlink|chmod|chown|truncate|utimes|open)(Sync)?\b/
    const modules = [...(await readdir(path.join(repoRoot, 'src', 'install'))).map((name) => `src/install/${name}`), 'src/fs/durable.ts', 'src/fs/lock.ts']
    const offenders: string[] = []
    for (const module of modules) {
      const source = await readFile(path.join(repoRoot, module), 'utf8')
      for (const [statement, names] of source.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'node:fs(?:\/promises)?'/gm)) {
        // fsyncDirectory opens a directory read-only to flush it: the one open allowed.
        const found = (names as string).split(',').map((name) => name.trim()).filter((name) => mutating.test(name) && !(module === 'src/fs/durable.ts' && name === 'open'))
        if (found.length > 0) offenders.push(`${module}: ${statement}`)
      }
      if (/from 'node:fs(\/promises)?'/.test(source) && /import\s+\*\s+as/.test(source)) offenders.push(`${module}: imports node:fs whole`)
    }
    assert.deepEqual(offenders, [])
  })
})
