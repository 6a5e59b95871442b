import assert from 'node:assert/strict'
import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {CancelledError} from '../../src/cancellation.js'
import {acquireLock} from '../../src/fs/lock.js'
import {install} from '../../src/install/install.js'
import {pluginPaths} from '../../src/install/layout.js'
import {countingSignal} from '../helpers/abort-points.js'
import {tempDir} from '../helpers/cli.js'
import {createSigner, snapshotTree, writeArtifact} from '../install/helpers/artifacts.js'

let dir: string
let cleanup: () => Promise<void>
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-lock-wait-'))
})
after(async () => cleanup())

function isCancelled(error: unknown): boolean {
  assert.ok(error instanceof CancelledError, String(error))
  assert.equal(error.name, 'AbortError')
  return true
}

describe('a wait for a lock another operation holds', () => {
  it('ends at the abort point it is cancelled at (each poll is one), leaving the holder its lock and no temporary directory', async () => {
    const file = path.join(dir, 'polls', '.lock')
    const held = await acquireLock(file)
    // The lock directory and its owner's marker, as the holder made them.
    const holder = await snapshotTree(path.dirname(file))
    try {
      for (let at = 1; at <= 6; at++) {
        const signal = countingSignal(at)
        await assert.rejects(acquireLock(file, {signal: signal.signal}), isCancelled)
        assert.equal(signal.checks(), at)
        assert.deepEqual(await snapshotTree(path.dirname(file)), holder)
      }
    } finally {
      await held.release()
    }
    assert.deepEqual(await readdir(path.dirname(file)), [])
  })

  it('of an install ends when the install is cancelled (it would wait ten minutes), with the data root as it was', async () => {
    const signer = createSigner()
    const dataRoot = path.join(dir, 'data-root')
    const artifact = await writeArtifact(path.join(dir, 'locked.svcPlugin'), {id: 'com.example.locked', signer})
    const held = await acquireLock(pluginPaths(dataRoot, 'com.example.locked').lock)
    const before = await snapshotTree(dataRoot)
    try {
      const controller = new AbortController()
      const installing = install(artifact, {
        dataRoot,
        trust: signer.trust,
        now: signer.now,
        hostRid: 'linux-x64',
        signal: controller.signal,
        // Judged, it goes for the lock, which it cannot get: the abort finds it waiting (or about to).
        onProgress: ({step}) => void (step === 'judged' && setImmediate(() => controller.abort())),
      })
      await assert.rejects(installing, isCancelled)
      assert.deepEqual(await snapshotTree(dataRoot), before)
    } finally {
      await held.release()
    }
  })
})
