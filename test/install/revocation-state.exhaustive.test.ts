import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {tempDir} from '../helpers/cli.js'
import {installOutcomes, prepareRevocationWorld, probes, runSteps, type ListName, type RevocationWorld, type Step} from './helpers/revocation-world.js'

// revocation-state.test.ts at length (npm run test:exhaustive): every order in which the lists of two
// roots arrive (root A's first list, the one that revokes X or its stale successor, root B's two lists),
// each list given to an install that ends the same way, for every way an install can end; then every
// probe, given no list. Invariant: once recorded, a revocation refuses every later install, activation
// and launch check of what it revokes.

const work = await tempDir('svc-plugin-revocation-state-all-')
after(() => work.cleanup())
let world: RevocationWorld
before(async () => {
  world = await prepareRevocationWorld(work.dir)
})

/** Every order of `items`. */
function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]]
  return items.flatMap((item, index) => permutations([...items.slice(0, index), ...items.slice(index + 1)]).map((rest) => [item, ...rest]))
}

const orders = [...permutations<ListName>(['A1', 'A2', 'B1', 'B2']), ...permutations<ListName>(['A1', 'A3-stale', 'B1', 'B2'])]

describe('the revocation state of a data root, every order of two roots\' lists', () => {
  for (const outcome of installOutcomes) {
    it(`never un-happens when each list is given to an install that ends ${outcome === 'ok' ? 'in success' : `as ${outcome}`} (${orders.length} orders)`, async () => {
      for (const order of orders) {
        const steps: Step[] = [...order.map((list): Step => ({list, outcome})), ...probes.map((probe): Step => ({list: null, probe}))]
        await runSteps(world, path.join(work.dir, 'sequence'), steps)
      }
    })
  }
})
