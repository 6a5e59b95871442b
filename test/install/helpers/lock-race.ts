import assert from 'node:assert/strict'
import {mkdir, rm, writeFile} from 'node:fs/promises'
import {hostname} from 'node:os'
import path from 'node:path'
import {setImmediate as nextTick, setTimeout as sleep} from 'node:timers/promises'
import fc from 'fast-check'

import {acquireLock} from '../../../src/fs/lock.js'
import {setMutationHook} from '../../../src/fs/mutations.js'

/** A pid no process can have: above the pid limit of every system (Linux allows at most 2^22). */
export const nonexistentPid = 2 ** 31 - 1

/** What stands at the lock's name when a round starts: nothing, or a lock whose owner is gone. */
export type StaleLock = 'none' | 'abandoned-directory' | 'abandoned-file'

/** One round: the stale lock left by a killed owner, the contenders, and the seed of every delay. */
export interface LockRound {
  stale: StaleLock
  contenders: number
  /** Seeds the delays injected before every change to disk and while a contender holds the lock. */
  seed: number
}

/** What a round observed. */
export interface LockRoundOutcome {
  /** The most operations that held the lock at one instant. */
  mostHolders: number
  /** How many contenders got the lock (each once). */
  acquired: number
}

/** A small deterministic generator (mulberry32): the same seed gives the same delays. */
function generator(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** No delay, a few turns of the event loop (each lets file-system calls of others complete), or a millisecond. */
async function delay(random: () => number): Promise<void> {
  const pick = Math.floor(random() * 10)
  if (pick <= 3) return
  if (pick === 9) return sleep(1)
  for (let turn = 0; turn < pick - 3; turn++) await nextTick()
}

/**
 * Plants the stale lock a killed owner leaves: the directory this library makes (its owner's marker inside)
 * or the single file an earlier version of the library made.
 */
async function plantStale(file: string, stale: StaleLock): Promise<void> {
  if (stale === 'none') return
  const owner = {pid: nonexistentPid, host: hostname(), token: 'a1b2c3d4e5f6a1b2c3d4e5f6'}
  if (stale === 'abandoned-file') {
    await writeFile(file, `${JSON.stringify(owner)}\n`)
    return
  }
  await mkdir(file)
  await writeFile(path.join(file, `owner-${owner.token}.json`), `${JSON.stringify(owner)}\n`)
}

/**
 * Runs one round in `dir`: plants the stale lock, then `contenders` operations take the lock, hold it a
 * while and release it, with a delay injected before every change to disk any of them makes (judging a
 * lock stale and breaking it included). Counts how many held it at once.
 */
export async function runLockRound(dir: string, round: LockRound): Promise<LockRoundOutcome> {
  await rm(dir, {recursive: true, force: true})
  await mkdir(dir, {recursive: true})
  const file = path.join(dir, '.lock')
  await plantStale(file, round.stale)
  const random = generator(round.seed)
  let holders = 0
  let mostHolders = 0
  let acquired = 0
  setMutationHook(() => delay(random))
  try {
    const runs = await Promise.allSettled(
      Array.from({length: round.contenders}, async () => {
        const lock = await acquireLock(file)
        holders += 1
        acquired += 1
        mostHolders = Math.max(mostHolders, holders)
        await delay(random)
        holders -= 1
        await lock.release()
      }),
    )
    // Every contender has finished before a failure is reported: none is left running into the next round.
    for (const run of runs) if (run.status === 'rejected') throw run.reason
  } finally {
    setMutationHook(null)
  }
  return {mostHolders, acquired}
}

/** Rounds in the everyday suite; the exhaustive suite runs {@link exhaustiveRounds}. */
export const sampleRounds = 300
/** Rounds of lock-race.exhaustive.test.ts. */
export const exhaustiveRounds = 3000

/** The property over `rounds` seeded rounds. */
export async function checkLockRounds(dir: string, rounds: number, seed: number): Promise<void> {
  const round = fc.record({
    stale: fc.constantFrom<StaleLock>('none', 'abandoned-directory', 'abandoned-file'),
    contenders: fc.integer({min: 2, max: 4}),
    seed: fc.integer({min: 0, max: 0xffffffff}),
  })
  await fc.assert(
    fc.asyncProperty(round, async (plan) => {
      const outcome = await runLockRound(path.join(dir, 'round'), plan)
      assert.deepEqual(outcome, {mostHolders: 1, acquired: plan.contenders})
    }),
    {numRuns: rounds, seed, endOnFailure: true},
  )
}

