import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {lstat, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {afterEach, describe, it} from 'node:test'

import {fileWriterUse} from '../../src/fs/file-writer.js'
import {setMutationHook, type Mutation} from '../../src/fs/mutations.js'
import {install} from '../../src/install/install.js'
import type {InstallOptions} from '../../src/install/types.js'
import {snapshotTree} from './helpers/artifacts.js'
import {inWorkspace, installError, stagingEntries, versionsOf, type Workspace} from './helpers/workspace.js'

// Invariant: a version is written the same whether its small files go through the file-writing thread or
// one by one on the thread pool: the same files, bytes and modes, the same refusal for the same failure,
// the same cancellation; and the mutation hook sees every file's create before the file exists.

const id = 'com.example.many'
/** 300 small files in a few folders, the executable among them, and one entry large enough to be streamed. */
const payload: Record<string, string | Uint8Array> = {
  'runtimes/linux-x64/many': 'ELF many\n',
  'assets/large.bin': new Uint8Array(Array.from({length: 300 * 1024}, (_, index) => (index * 7919) % 251)),
  ...Object.fromEntries(Array.from({length: 300}, (_, index) => [`lib/m${index % 7}/f${index}.js`, `export const n = ${index}\n`.repeat(1 + (index % 5))])),
}

const options = (ws: Workspace, extra: Partial<InstallOptions> = {}): InstallOptions => ({dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true, ...extra})
const version = (ws: Workspace) => path.join(ws.dataRoot, 'plugins', id, 'versions', '1.0.0')

/** Every file and folder of a tree with its mode, beside its bytes (snapshotTree). */
async function treeWithModes(root: string): Promise<Array<[string, string]>> {
  const listing = await snapshotTree(root)
  return Promise.all([...listing].map(async ([relative, what]): Promise<[string, string]> => [relative, `${what} ${((await lstat(path.join(root, ...relative.split('/')))).mode & 0o7777).toString(8)}`]))
}

afterEach(() => {
  fileWriterUse.when = 'auto'
  setMutationHook(null)
})

describe('extraction of many small files on the file-writing thread', () => {
  it('installs the same tree, bytes and modes as one file at a time', async () => {
    const trees: Array<Array<[string, string]>> = []
    for (const when of ['always', 'never'] as const) {
      fileWriterUse.when = when
      await inWorkspace(async (ws) => {
        const result = await install(await ws.artifact('many', {id, payload}), options(ws))
        assert.equal(result.verdict, 'Unsigned')
        trees.push(await treeWithModes(version(ws)))
      })
    }
    assert.equal(trees[0]!.length, 300 + 2 + 1 + 11)
    assert.deepEqual(trees[0], trees[1])
    assert.ok(trees[0]!.some(([name, what]) => name === 'runtimes/linux-x64/many' && what.endsWith(' 755')))
  })

  for (const when of ['always', 'never'] as const) {
    it(`calls the hook before each file exists, and refuses a file that appeared meanwhile with io-error EEXIST (${when === 'always' ? 'on the thread' : 'one at a time'})`, async () => {
      fileWriterUse.when = when
      await inWorkspace(async (ws) => {
        const artifact = await ws.artifact('many', {id, payload})
        const early: string[] = []
        const intruded = 'f150.js'
        let intrudedPath = ''
        setMutationHook(async (mutation: Mutation) => {
          if (mutation.kind !== 'create' || !mutation.path.includes(`${path.sep}content${path.sep}`)) return
          if (existsSync(mutation.path)) early.push(mutation.path)
          if (path.basename(mutation.path) === intruded) {
            intrudedPath = mutation.path
            await writeFile(mutation.path, 'put here by someone else')
          }
        })
        await assert.rejects(install(artifact, options(ws)), installError('io-error', {errno: 'EEXIST', syscall: 'open'}))
        assert.deepEqual(early, [])
        assert.notEqual(intrudedPath, '')
        assert.deepEqual(await versionsOf(ws.dataRoot, id), [])
        assert.deepEqual(await stagingEntries(ws.dataRoot), [])
      })
    })
  }

  it('stops at the signal, with no version and no staging directory, and nothing written once it has rejected', async () => {
    fileWriterUse.when = 'always'
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('many', {id, payload})
      const controller = new AbortController()
      let creates = 0
      setMutationHook((mutation: Mutation) => {
        if (mutation.kind === 'create' && ++creates === 100) controller.abort()
      })
      await assert.rejects(install(artifact, options(ws, {signal: controller.signal})), {name: 'AbortError'})
      assert.deepEqual(await versionsOf(ws.dataRoot, id), [])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
      await new Promise((resolve) => setTimeout(resolve, 50))
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
      assert.deepEqual((await readdir(path.join(ws.dataRoot, 'plugins'))).filter((name) => name !== '_staging'), [])
    })
  })
})
