import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {CancelledError} from '../../src/cancellation.js'
import {isTemporarySiblingOf} from '../../src/fs/durable.js'
import {setMutationHook, type Mutation} from '../../src/fs/mutations.js'
import {pluginPaths} from '../../src/install/layout.js'
import {abortPoints, type AbortCase} from '../helpers/abort-points.js'
import {dataRootInputs, installCase, installDataRoot, pluginId, setCaseSize, type CaseSize, type DataRootInputs} from './cases.js'

/** What {@link checkMutationAborts} saw. */
export interface MutationAbortsSeen {
  /** The disk mutations of an uncancelled run. */
  mutations: number
  /** The ordinal of the journal's first mutation: the commit point. */
  journal: number
  cancelled: number
  completed: number
}

/** True for a mutation of the install journal `<plugin>/.transaction.json` (or of its temporary sibling). */
export function journalMutation(pluginDirectory: string): (mutation: Mutation) => boolean {
  return ({path: changed}) => {
    const name = path.basename(changed)
    return path.dirname(changed) === pluginDirectory && (name === '.transaction.json' || isTemporarySiblingOf(name, '.transaction.json'))
  }
}

/** Runs `kase` with the mutation hook set to `hook`, and always takes the hook away. */
async function withHook<T>(hook: (mutation: Mutation, ordinal: number) => void, run: () => Promise<T>): Promise<{result: T} | {error: unknown}> {
  setMutationHook(hook)
  try {
    return await run().then(
      (result) => ({result}),
      (error: unknown) => ({error}),
    )
  } finally {
    setMutationHook(null)
  }
}

/**
 * The property over the disk: a host's AbortController aborted just before the Nth change an install makes
 * to the disk (a directory or file of the staging tree created, a chunk written, a mode set, a rename), for
 * every N of `points` (all of them, or that many spread over them). An abort before the journal's first
 * change rejects with the library's AbortError (the reason as `cause`) and leaves the data root as it was;
 * one from then on finds the install carried to its end, whole. No timing decides which: the mutation is
 * where the abort happens.
 */
export async function checkMutationAborts<T>(kase: AbortCase<T>, isJournal: (mutation: Mutation) => boolean, points: 'all' | number): Promise<MutationAbortsSeen> {
  const mutations: Mutation[] = []
  const first = await withHook((mutation) => void mutations.push(mutation), () => kase.run(new AbortController().signal))
  assert.ok('result' in first, `an uncancelled run failed: ${String((first as {error: unknown}).error)}`)
  await kase.whole(first.result)
  await kase.reset()
  const journal = mutations.findIndex(isJournal) + 1
  assert.ok(journal > 1, `no mutation before the journal's (of ${mutations.length})`)
  const seen: MutationAbortsSeen = {mutations: mutations.length, journal, cancelled: 0, completed: 0}
  for (const at of abortPoints(mutations.length, points)) {
    const controller = new AbortController()
    const reason = new Error(`aborted before mutation ${at}`)
    const outcome = await withHook((_, ordinal) => void (ordinal === at && controller.abort(reason)), () => kase.run(controller.signal))
    const where = `mutation ${at} (${mutations[at - 1]?.kind} ${mutations[at - 1]?.path}), the journal's is ${journal}`
    if (at < journal) {
      assert.ok('error' in outcome, `${where}: the install completed`)
      const error = outcome.error as CancelledError
      assert.ok(error instanceof CancelledError, `${where}: ${String(error?.stack ?? error)}`)
      assert.deepEqual([error.name, error.code, error.cause], ['AbortError', 'cancelled', reason])
      await kase.unchanged()
      seen.cancelled += 1
    } else {
      assert.ok('result' in outcome, `${where}: ${String((outcome as {error: Error}).error?.stack)}`)
      await kase.whole(outcome.result)
      seen.completed += 1
    }
    await kase.reset()
  }
  return seen
}

/**
 * The suite of {@link checkMutationAborts} over an install of 1.1.0 over 1.0.0 and into an empty data root, at
 * `points` of its changes to the disk, with the plugin's files of `size`.
 */
export function installMutationSuite(points: 'all' | number, size: CaseSize): void {
  let dir: string
  let inputs: DataRootInputs
  before(async () => {
    setCaseSize(size)
    dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-cancel-mutations-'))
    inputs = await dataRootInputs(await mkdtemp(path.join(dir, 'inputs-')))
  })
  after(() => rm(dir, {recursive: true, force: true}))

  const which = points === 'all' ? 'at every one' : `at a fixed sample of ${points} of them, spread over all`
  describe(`an install whose signal is aborted just before one of its changes to the disk, ${which}`, () => {
    for (const from of ['update', 'first'] as const) {
      it(`${from === 'update' ? 'over an older version' : 'into an empty data root'}: rejects with AbortError and leaves the data root as it was (no staging, no lock) before the journal, and completes whole from it on`, async () => {
        const work = await mkdtemp(path.join(dir, `${from}-`))
        const pluginDirectory = path.dirname(pluginPaths(installDataRoot(work), pluginId).transaction)
        const seen = await checkMutationAborts(installCase(work, inputs, from), journalMutation(pluginDirectory), points)
        assert.ok(seen.cancelled > 0 && seen.completed > 0, JSON.stringify(seen))
      })
    }
  })
}
