import {after, describe, it} from 'node:test'

import {tempDir} from '../helpers/cli.js'
import {checkLockRounds, exhaustiveRounds} from './helpers/lock-race.js'

// lock-race.test.ts with ten times as many rounds, under another seed (npm run test:exhaustive).

const work = await tempDir('svc-plugin-lock-race-all-')
after(() => work.cleanup())

describe('breaking a stale plugin lock, at length', () => {
  it(`never lets two operations hold one lock at once, over ${exhaustiveRounds} seeded rounds with delays before every step`, async () => {
    await checkLockRounds(work.dir, exhaustiveRounds, 0x10c5)
  })
})
