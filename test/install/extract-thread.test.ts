import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {lstat, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {afterEach, describe, it} from 'node:test'

import {FileWriter, fileWriterUse} from '../../src/fs/file-writer.js'
import {setMutationHook, type Mutation} from '../../src/fs/mutations.js'
import {install} from '../../src/install/install.js'
import type {InstallOptions} from '../../src/install/types.js'
import {rejectionOf} from '../helpers/promises.js'
import {patchDeclaredSize, snapshotTree} from './helpers/artifacts.js'
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
  delete fileWriterUse.module
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

  for (const when of ['always', 'never'] as const) {
    it(`ends with the error of a progress hook that throws, whichever batch it meets (${when === 'always' ? 'on the thread' : 'one at a time'})`, async () => {
      fileWriterUse.when = when
      await inWorkspace(async (ws) => {
        // Without files[] nothing after the extraction would notice an entry left unwritten.
        const artifact = await ws.artifact('many', {id, payload, files: 'none'})
        for (const at of [5, 262, 301]) {
          let events = 0
          const stop = new Error(`the host stops at event ${at}`)
          const onProgress = () => {
            if (++events === at) throw stop
          }
          await assert.rejects(install(artifact, options(ws, {onProgress})), (error) => error === stop || (error as Error).cause === stop)
          assert.deepEqual(await versionsOf(ws.dataRoot, id), [])
          assert.deepEqual(await stagingEntries(ws.dataRoot), [])
        }
      })
    })
  }

  it('writes the files itself when the thread cannot be started, the same tree', async () => {
    fileWriterUse.when = 'always'
    fileWriterUse.module = new URL('./no-such-write-worker.js', import.meta.url)
    assert.equal(await FileWriter.start({create: 0}), null)
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('many', {id, payload}), options(ws))
      assert.equal((await treeWithModes(version(ws))).length, 300 + 2 + 1 + 11)
    })
  })

  it('refuses every batch at once once the thread has died or been stopped, never waiting for it', {timeout: 10_000}, async () => {
    const batch = [{file: path.join(path.sep, 'nowhere', 'x'), mode: 0o644, bytes: new Uint8Array(1)}]
    // A thread that takes batches, then dies on its own.
    fileWriterUse.module = new URL(`data:text/javascript,${encodeURIComponent("import {parentPort} from 'node:worker_threads'; parentPort.postMessage({ready: true}); setTimeout(() => process.exit(3), 20)")}`)
    const dying = await FileWriter.start({create: 0})
    assert.notEqual(dying, null)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await assert.rejects(dying!.write(batch), /thread stopped \(exit code 3\)/)
    await dying!.close()
    delete fileWriterUse.module
    const stopped = await FileWriter.start({create: 0})
    assert.notEqual(stopped, null)
    await stopped!.close()
    await assert.rejects(stopped!.write(batch), /thread was stopped/)
  })

  it('reports the earliest of two entries that lie, although the later one is read ahead of its turn', async () => {
    fileWriterUse.when = 'always'
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('many', {id, payload, files: 'none'})
      const small = Object.keys(payload).filter((name) => name.startsWith('lib/') || name.startsWith('runtimes/')).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
      for (const name of [small[40]!, small[42]!]) await patchDeclaredSize(artifact, name, Buffer.byteLength(payload[name] as string) + 1)
      const error = (await rejectionOf(install(artifact, options(ws)))) as {code: string; message: string; details: Record<string, unknown>}
      assert.deepEqual({code: error.code, reason: error.details['reason'], entry: error.details['entry']}, {code: 'archive-malformed', reason: 'entry-smaller-than-declared', entry: small[40]})
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  for (const when of ['always', 'never'] as const) {
    it(`reports the failure of the earliest entry when a later one cannot be read either (${when === 'always' ? 'on the thread' : 'one at a time'})`, async () => {
      fileWriterUse.when = when
      await inWorkspace(async (ws) => {
        const artifact = await ws.artifact('many', {id, payload, files: 'none'})
        // Small entries are written in archive order: the first one meets a file already there, the 70th
        // (read while the first batch is still being written) lies about its size.
        const small = Object.keys(payload).filter((name) => name.startsWith('lib/') || name.startsWith('runtimes/')).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
        await patchDeclaredSize(artifact, small[70]!, Buffer.byteLength(payload[small[70]!] as string) + 1)
        setMutationHook(async (mutation: Mutation) => {
          if (mutation.kind === 'create' && mutation.path.endsWith(small[0]!.split('/').join(path.sep))) await writeFile(mutation.path, 'already here')
        })
        await assert.rejects(install(artifact, options(ws)), installError('io-error', {errno: 'EEXIST', syscall: 'open'}))
        assert.deepEqual(await stagingEntries(ws.dataRoot), [])
      })
    })
  }
})
