import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {CancelledError} from '../../src/cancellation.js'

/**
 * Abort points: every check the library makes of an AbortSignal reads its `aborted`, so a signal whose
 * `aborted` counts its reads knows how many points an operation passes, and one that aborts itself at the
 * Nth read cancels the operation exactly there (its abort listeners run at that moment too).
 */
export interface CountingSignal {
  readonly signal: AbortSignal
  /** The reads of `aborted` so far: the abort points passed. */
  checks(): number
  /** True once the signal aborted itself. */
  fired(): boolean
  /** The reason it aborted with. */
  readonly reason: Error
}

const abortedOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, 'aborted')!.get!

/** A signal that aborts itself at its `at`th check (never, for Infinity) and counts every check. */
export function countingSignal(at: number): CountingSignal {
  const controller = new AbortController()
  const {signal} = controller
  const reason = new Error(`abort point ${at}`)
  let checks = 0
  Object.defineProperty(signal, 'aborted', {
    get(): boolean {
      checks += 1
      if (checks === at) controller.abort(reason)
      return abortedOf.call(signal) as boolean
    },
  })
  return {signal, checks: () => checks, fired: () => abortedOf.call(signal) as boolean, reason}
}

/** One operation under the abort-point property. */
export interface AbortCase<T> {
  /** Runs the operation once, from the same state every time. */
  run(signal: AbortSignal): Promise<T>
  /** Asserts that a cancelled run left everything as it was (no output, a data root unchanged). */
  unchanged(): Promise<void>
  /** Asserts that a completed run's result is whole. */
  whole(result: T): Promise<void>
  /** Puts the state back for the next run (removes a completed run's output). */
  reset(): Promise<void>
}

/** What {@link checkAbortPoints} saw. */
export interface AbortPointsSeen {
  /** The checks an uncancelled run made. */
  points: number
  cancelled: number
  completed: number
}

/**
 * The property, over every abort point N of `points` (all of 1..P+1 for an uncancelled run's P checks, or
 * that many spread over them, the first and last included): a run whose signal aborted at its Nth check
 * rejects with the library's AbortError (name `AbortError`, code `cancelled`, the reason as `cause`) and
 * leaves everything unchanged, with no file descriptor left open; a run that passed fewer than N checks
 * completed and its result is whole.
 */
export async function checkAbortPoints<T>(kase: AbortCase<T>, points: 'all' | number): Promise<AbortPointsSeen> {
  const counting = countingSignal(Number.POSITIVE_INFINITY)
  await kase.whole(await kase.run(counting.signal))
  await kase.reset()
  const total = counting.checks()
  assert.ok(total > 0, 'the operation never checks its signal')
  const seen: AbortPointsSeen = {points: total, cancelled: 0, completed: 0}
  const descriptors = openDescriptors()
  for (const at of abortPoints(total + 1, points)) {
    const signal = countingSignal(at)
    const outcome = await kase.run(signal.signal).then(
      (result) => ({result}),
      (error: unknown) => ({error}),
    )
    if ('error' in outcome) {
      const error = outcome.error as CancelledError
      assert.ok(signal.fired(), `abort point ${at}: failed without being cancelled: ${String(error?.stack ?? error)}`)
      assert.ok(error instanceof CancelledError, `abort point ${at}: ${String(error?.stack ?? error)}`)
      assert.equal(error.name, 'AbortError')
      assert.equal(error.code, 'cancelled')
      assert.equal(error.cause, signal.reason)
      await kase.unchanged()
      seen.cancelled += 1
    } else {
      assert.ok(!signal.fired(), `abort point ${at}: the signal aborted at check ${at} of ${signal.checks()}, yet the operation completed`)
      await kase.whole(outcome.result)
      seen.completed += 1
    }
    await kase.reset()
    assert.equal(openDescriptors(), descriptors, `abort point ${at}: a file descriptor was left open`)
  }
  return seen
}

/**
 * The same property with real deadlines: a run given `AbortSignal.timeout(ms)` for each of `deadlines`
 * either rejects with the library's AbortError (its `cause` the signal's TimeoutError) and leaves
 * everything unchanged, or completed whole. Which of the two happens depends on the machine's speed, and
 * nothing here asserts which.
 */
export async function checkDeadlines<T>(kase: AbortCase<T>, deadlines: readonly number[]): Promise<void> {
  for (const ms of deadlines) {
    const outcome = await kase.run(AbortSignal.timeout(ms)).then(
      (result) => ({result}),
      (error: unknown) => ({error}),
    )
    if ('error' in outcome) {
      const error = outcome.error as CancelledError
      assert.ok(error instanceof CancelledError, `deadline ${ms} ms: ${String(error?.stack ?? error)}`)
      assert.equal(error.name, 'AbortError')
      assert.equal((error.cause as Error).name, 'TimeoutError')
      await kase.unchanged()
    } else {
      await kase.whole(outcome.result)
    }
    await kase.reset()
  }
}

/** 1..last, or `count` of them spread evenly with both ends. */
export function abortPoints(last: number, points: 'all' | number): number[] {
  const all = Array.from({length: last}, (_, index) => index + 1)
  if (points === 'all' || points >= last) return all
  const picked = new Set<number>()
  for (let index = 0; index < points; index++) picked.add(all[Math.round((index * (last - 1)) / (points - 1))]!)
  return [...picked].sort((a, b) => a - b)
}

/** How many file descriptors this process holds open (-1 where the system does not tell). */
function openDescriptors(): number {
  try {
    return readdirSync('/proc/self/fd').length
  } catch {
    return -1
  }
}
