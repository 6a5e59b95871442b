import assert from 'node:assert/strict'
import {mkdir, readdir, writeFile} from 'node:fs/promises'
import {hostname} from 'node:os'
import path from 'node:path'
import {describe, it} from 'node:test'

import {acquireLock} from '../../src/fs/lock.js'
import {removeTemporaryFilesSync} from '../../src/fs/temporary-files.js'
import {install} from '../../src/install/install.js'
import type {InstallOptions} from '../../src/install/types.js'
import {currentOf, inWorkspace, installError, stagingEntries, type Workspace} from './helpers/workspace.js'

// What a second Ctrl-C does before the process exits (`removeTemporaryFilesSync`), done in the middle of an
// operation: nothing the operation made for itself may be left.

const id = 'com.example.alpha'

function unsigned(ws: Workspace): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true}
}

describe('an operation interrupted by a second Ctrl-C', () => {
  it('leaves no temporary of a lock it was waiting for', async () => {
    await inWorkspace(async (ws) => {
      const lock = path.join(ws.dir, 'a.lock')
      // Held by a live owner (this process, under another token): the attempt waits, its temporary made.
      await mkdir(lock)
      await writeFile(path.join(lock, `owner-${'0'.repeat(24)}.json`), JSON.stringify({pid: process.pid, host: hostname(), token: '0'.repeat(24)}))
      const controller = new AbortController()
      const waiting = acquireLock(lock, {signal: controller.signal, timeoutMs: 60_000})
      await new Promise((resolve) => setTimeout(resolve, 100))
      removeTemporaryFilesSync()
      assert.deepEqual((await readdir(ws.dir)).filter((name) => name.includes('.tmp')), [])
      controller.abort()
      await assert.rejects(waiting, {name: 'AbortError'})
    })
  })

  it('gives up a lock it holds, as release does', async () => {
    await inWorkspace(async (ws) => {
      const lock = path.join(ws.dir, 'b.lock')
      const held = await acquireLock(lock)
      removeTemporaryFilesSync()
      assert.deepEqual(await readdir(ws.dir), [])
      await held.release()
    })
  })

  it('leaves no staged tree of an install before its journal, and no lock; the version before stays active', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const v2 = await ws.artifact('v2', {version: '2.0.0'})
      const options: InstallOptions = {
        ...unsigned(ws),
        onProgress: (progress) => {
          if (progress.step === 'extracted') removeTemporaryFilesSync()
        },
      }
      // The process would have exited; here the install goes on and finds its staged tree gone.
      await assert.rejects(install(v2, options), installError('io-error'))
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
      assert.equal((await readdir(ws.plugin(id))).includes('.lock'), false)
      assert.equal(await currentOf(ws.dataRoot, id), '1.0.0')
    })
  })
})
