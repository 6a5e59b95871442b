import {after, describe, it} from 'node:test'

import {tempDir} from '../helpers/cli.js'
import {checkLockRounds, sampleRounds} from './helpers/lock-race.js'

// Invariant: two operations never hold one plugin's lock at the same time, whatever delays come between
// judging a lock stale and breaking it, and between every other step of taking and giving up a lock. A
// delay is injected before every change to disk (the hook of src/fs/mutations.ts) and while the lock is
// held; each round starts from a lock left by a killed owner (of this library's format or an earlier
// one's) or from none. The seed fixes every delay; lock-race.exhaustive.test.ts runs ten times as many rounds.

const work = await tempDir('svc-plugin-lock-race-')
after(() => work.cleanup())

describe('breaking a stale plugin lock', () => {
  it(`never lets two operations hold one lock at once, over ${sampleRounds} seeded rounds with delays before every step`, async () => {
    await checkLockRounds(work.dir, sampleRounds, 0x10c4)
  })
})
