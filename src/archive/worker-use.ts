import {availableParallelism} from 'node:os'

/**
 * When the worker pools (`worker-pool.ts`) are started, apart from the pools themselves, so that a command
 * that decides not to start one never loads them.
 */

/**
 * When workers are started: when they pay (`auto`), or `always` and `never`, which the tests use to prove
 * that every result, and every refusal, is the same either way.
 */
export const workerUse: {when: 'auto' | 'always' | 'never'} = {when: 'auto'}

/** Whether work that would pay for workers (`worth`, judged by the caller) gets them, as {@link workerUse} says. */
export function useWorkers(worth: boolean, any: boolean): boolean {
  if (workerUse.when !== 'auto') return workerUse.when === 'always' && any
  return worth
}

/** One worker per core, at most four. */
export function defaultWorkerCount(): number {
  return Math.max(1, Math.min(4, availableParallelism()))
}

