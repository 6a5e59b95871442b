import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'

import {forEachConcurrently} from '../../src/fs/concurrently.js'

// Invariant: forEachConcurrently starts the items in their order, never runs more than `concurrency` at
// once, starts at most one item per other worker after a failure (none once the pool has seen it), settles every running item before it throws the first failure;
// without a failure every item ran exactly once. Items finish in any order (each waits a random number of
// turns of the event loop), so every interleaving the pool can meet is drawn.

const turns = async (count: number) => {
  for (let turn = 0; turn < count; turn++) await new Promise<void>((resolve) => setImmediate(resolve))
}

describe('forEachConcurrently', () => {
  it('keeps the bound and the order, stops starting after a failure, and throws it once all have settled', async () => {
    const item = fc.record({turns: fc.nat(6), fails: fc.boolean()})
    await fc.assert(
      fc.asyncProperty(fc.array(item, {maxLength: 40}), fc.integer({min: 1, max: 8}), async (items, concurrency) => {
        const started: number[] = []
        let running = 0
        let peak = 0
        let settledAfterFailure = true
        let firstFailure: number | null = null
        let startedBeforeFailure = 0
        const outcome = await forEachConcurrently(items.map((_, index) => index), concurrency, async (index) => {
          started.push(index)
          running += 1
          peak = Math.max(peak, running)
          try {
            await turns(items[index]!.turns)
            if (items[index]!.fails) {
              if (firstFailure === null) {
                firstFailure = index
                startedBeforeFailure = started.length
              }
              throw new Error(`item ${index}`)
            }
          } finally {
            running -= 1
          }
        }).then(
          () => null,
          (error: Error) => {
            settledAfterFailure = running === 0
            return error.message
          },
        )
        assert.ok(peak <= concurrency, `${peak} ran at once`)
        assert.deepEqual(started, started.slice().sort((a, b) => a - b), 'started in order')
        if (firstFailure === null) {
          assert.equal(outcome, null)
          assert.deepEqual(started, items.map((_, index) => index))
        } else {
          assert.equal(outcome, `item ${firstFailure}`)
          assert.ok(settledAfterFailure, 'threw while an item still ran')
          // The pool sees a failure when its rejection reaches the worker: by then each other worker may have
          // started one more item, and none starts another.
          assert.ok(started.length - startedBeforeFailure <= concurrency - 1, `${started.length - startedBeforeFailure} started after the failure`)
        }
      }),
      {numRuns: 300, seed: 0xf1a5},
    )
  })
})
