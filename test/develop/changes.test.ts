import assert from 'node:assert/strict'
import {describe, it, mock} from 'node:test'
import fc from 'fast-check'
import {ChangeQueue} from '../../src/develop/changes.js'

const quietMs = 150

/** Lets the promise callbacks that are due run (setImmediate is not among the mocked timers). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('ChangeQueue', () => {
  it('gives one round per burst: every path changed since the last round, once the folder was quiet for the period', async () => {
    // Steps: wait `gap` ms on the mocked clock, then a change to one of a few paths.
    const step = fc.record({gap: fc.oneof(fc.integer({min: 0, max: quietMs - 1}), fc.integer({min: quietMs, max: 3 * quietMs})), path: fc.constantFrom('manifest.json', 'a.txt', 'b/c.txt', 'd')})
    await fc.assert(
      fc.asyncProperty(fc.array(step, {maxLength: 30}), async (steps) => {
        mock.timers.enable({apis: ['setTimeout']})
        try {
          const controller = new AbortController()
          const queue = new ChangeQueue(quietMs, controller.signal)
          const rounds: string[][] = []
          const consumer = (async () => {
            for (let changed = await queue.next(); changed !== null; changed = await queue.next()) rounds.push(changed)
          })()
          const expected: Set<string>[] = []
          for (const [index, {gap, path}] of steps.entries()) {
            mock.timers.tick(gap)
            await settle()
            // A change after a quiet period (or the first one) starts a new burst.
            if (index === 0 || gap >= quietMs) expected.push(new Set())
            expected.at(-1)!.add(path)
            queue.add(path)
          }
          mock.timers.tick(quietMs)
          await settle()
          controller.abort()
          await consumer
          assert.deepEqual(rounds, expected.map((paths) => [...paths].sort()))
        } finally {
          mock.timers.reset()
        }
      }),
      {numRuns: 200},
    )
  })

  it('keeps the changes made while a round runs for the next one, which starts at once when they are already quiet', async () => {
    mock.timers.enable({apis: ['setTimeout']})
    try {
      const queue = new ChangeQueue(quietMs, undefined)
      queue.add('a')
      mock.timers.tick(quietMs)
      assert.deepEqual(await queue.next(), ['a'])
      // The round runs; meanwhile two changes, quiet before the loop asks again.
      queue.add('c')
      queue.add('b')
      mock.timers.tick(quietMs)
      assert.deepEqual(await queue.next(), ['b', 'c'])
    } finally {
      mock.timers.reset()
    }
  })

  it('answers null once aborted, even with changes pending', async () => {
    const controller = new AbortController()
    const queue = new ChangeQueue(quietMs, controller.signal)
    queue.add('a')
    const next = queue.next()
    controller.abort()
    assert.equal(await next, null)
  })
})
