import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {constants} from 'node:fs'
import {mkdir, mkdtemp, open, rename, rm, symlink, truncate, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {activate} from '../../src/install/activate.js'
import {maxStateFileBytes} from '../../src/install/data-root.js'
import {install} from '../../src/install/install.js'
import {listInstalled} from '../../src/install/installed.js'
import type {InstallOptions} from '../../src/install/types.js'
import {uninstall} from '../../src/install/uninstall.js'
import {currentOf, inWorkspace, installError, type Workspace} from './helpers/workspace.js'

const id = 'com.example.alpha'

/** A new folder beside the data root (outside it). */
function mkdtempIn(ws: Workspace): Promise<string> {
  return mkdtemp(path.join(path.dirname(ws.dataRoot), 'elsewhere-'))
}

function unsigned(ws: Workspace): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true}
}

/** Where each state file of a data root lives. */
const stateFiles: Record<string, (ws: Workspace) => string> = {
  'current.json': (ws) => path.join(ws.plugin(id), 'current.json'),
  'trust.json': (ws) => path.join(ws.plugin(id), 'trust.json'),
  '.transaction.json': (ws) => path.join(ws.plugin(id), '.transaction.json'),
  '_revocations.json': (ws) => path.join(ws.dataRoot, 'plugins', '_revocations.json'),
}

/** Every operation that reads the state files of plugin `id`, on a data root where 1.0.0 is installed. */
const operations: Record<string, (ws: Workspace) => Promise<unknown>> = {
  install: async (ws) => install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws)),
  activate: (ws) => activate(ws.dataRoot, id, '1.0.0'),
  uninstall: (ws) => uninstall(ws.dataRoot, id),
}

/** Opens each FIFO for writing and closes it again: a reader blocked on one gets end of file. */
async function releaseReaders(fifos: readonly string[]): Promise<void> {
  for (const fifo of fifos) await (await open(fifo, constants.O_RDWR | constants.O_NONBLOCK).catch(() => null))?.close()
}

describe('state files of a data root that are not regular files', () => {
  for (const [name, at] of Object.entries(stateFiles)) {
    for (const [operation, run] of Object.entries(operations)) {
      // _revocations.json is read by the operations that judge an artifact.
      if (name === '_revocations.json' && operation !== 'install') continue
      it(`${operation} refuses a FIFO at ${name} with unsafe-data-root, naming it, instead of waiting for a writer forever`, async () => {
        await inWorkspace(async (ws) => {
          await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
          const fifo = at(ws)
          await rm(fifo, {force: true})
          execFileSync('mkfifo', [fifo])
          // Were a read to wait for a writer, one comes every 2 s: the test then fails rather than hangs.
          const writer = setInterval(() => void releaseReaders([fifo]), 2_000)
          try {
            await assert.rejects(run(ws), installError('unsafe-data-root', {path: fifo, found: 'other'}))
          } finally {
            clearInterval(writer)
          }
        })
      })
    }

    it(`refuses a directory at ${name} with unsafe-data-root, naming it`, async () => {
      await inWorkspace(async (ws) => {
        await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
        const file = at(ws)
        await rm(file, {force: true})
        await mkdir(file)
        const operation = name === '_revocations.json' ? operations['install']! : operations['activate']!
        await assert.rejects(operation(ws), installError('unsafe-data-root', {path: file, found: 'directory'}))
      })
    })
  }

  it('leaves a plugin with a FIFO for a state file out of a listing, as one whose folder is a link', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const fifo = stateFiles['trust.json']!(ws)
      await rm(fifo)
      execFileSync('mkfifo', [fifo])
      const writer = setInterval(() => void releaseReaders([fifo]), 2_000)
      try {
        assert.deepEqual(await listInstalled(ws.dataRoot), [])
      } finally {
        clearInterval(writer)
      }
    })
  })

  // The test's own time limit catches a wait on the FIFO (a writer comes only after 15 s, so that it ends).
  it('takes a FIFO for the owner of a plugin\'s lock as an owner it cannot read, never waiting on it', {timeout: 10_000}, async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const lock = path.join(ws.plugin(id), '.lock')
      await mkdir(lock)
      const marker = path.join(lock, `owner-${'0'.repeat(24)}.json`)
      execFileSync('mkfifo', [marker])
      const writer = setInterval(() => void releaseReaders([marker]), 15_000)
      try {
        // An owner that cannot be read holds the lock until the wait gives up.
        await assert.rejects(activate(ws.dataRoot, id, '1.0.0', {lockTimeoutMs: 300}), installError('lock-timeout'))
      } finally {
        clearInterval(writer)
      }
    })
  })

  // Were the lock waited for, the operation would end in lock-timeout after the 10 minutes it is given.
  for (const [occupant, make, found] of [
    ['a symbolic link to a folder', async (lock: string, ws: Workspace) => symlink(await mkdtempIn(ws), lock), 'symbolic-link'],
    ['a FIFO', async (lock: string) => void execFileSync('mkfifo', [lock]), 'other'],
  ] as const) {
    it(`refuses ${occupant} where the plugin's lock goes with unsafe-data-root, at once`, {timeout: 10_000}, async () => {
      await inWorkspace(async (ws) => {
        await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
        const lock = path.join(ws.plugin(id), '.lock')
        await make(lock, ws)
        for (const operation of Object.values(operations)) {
          await assert.rejects(operation(ws), installError('unsafe-data-root', {path: lock, found}))
        }
      })
    })
  }

  it('refuses a link named like a version directory with unsafe-data-root: nobody joining versions/<version> reaches elsewhere', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('v1', {version: '1.0.0'})
      await install(artifact, unsigned(ws))
      const versions = path.join(ws.plugin(id), 'versions')
      const elsewhere = await mkdtempIn(ws)
      await rename(path.join(versions, '1.0.0'), path.join(elsewhere, 'tree'))
      await symlink(path.join(elsewhere, 'tree'), path.join(versions, '1.0.0'))
      const link = path.join(versions, '1.0.0')
      await assert.rejects(activate(ws.dataRoot, id, '1.0.0'), installError('unsafe-data-root', {path: link, found: 'symbolic-link'}))
      await assert.rejects(install(artifact, {...unsigned(ws), force: true}), installError('unsafe-data-root', {path: link, found: 'symbolic-link'}))
      await assert.rejects(uninstall(ws.dataRoot, id), installError('unsafe-data-root', {path: link, found: 'symbolic-link'}))
      assert.deepEqual(await listInstalled(ws.dataRoot), [])
      // A file that is no version directory's name is no version, and in nobody's way.
      await rm(link)
      await rename(path.join(elsewhere, 'tree'), link)
      await writeFile(path.join(versions, 'notes.txt'), 'not a version')
      await activate(ws.dataRoot, id, '1.0.0')
    })
  })

  it('takes a state file larger than any it writes as damaged, reading no more of it than that', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const current = stateFiles['current.json']!(ws)
      // A sparse file of 1 GiB: read whole, it would not fit in a string.
      await writeFile(current, '{"version": "1.0.0"}')
      await truncate(current, 1024 * 1024 * 1024)
      assert.ok(maxStateFileBytes < 1024 * 1024 * 1024)
      // Damaged current.json: no version is active; activating one rewrites it.
      assert.equal((await listInstalled(ws.dataRoot))[0]?.activeVersion, null)
      await activate(ws.dataRoot, id, '1.0.0')
      assert.equal(await currentOf(ws.dataRoot, id), '1.0.0')
    })
  })
})
