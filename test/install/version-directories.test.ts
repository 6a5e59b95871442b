import assert from 'node:assert/strict'
import {cp, mkdir, readFile, readdir, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {activate} from '../../src/install/activate.js'
import {install} from '../../src/install/install.js'
import {listInstalled} from '../../src/install/installed.js'
import type {InstallOptions} from '../../src/install/types.js'
import {uninstall} from '../../src/install/uninstall.js'
import {versionDirectory} from '../../src/install/version-directories.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {inWorkspace, installError, stagingEntries, versionsOf, type Workspace} from './helpers/workspace.js'

const id = 'com.example.alpha'

function unsigned(ws: Workspace, extra: Partial<InstallOptions> = {}): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true, ...extra}
}

/** An artifact of `version` whose payload says which build it is. */
function build(ws: Workspace, version: string, label: string): Promise<string> {
  return ws.artifact(`${version}-${label}`, {version, payload: {'runtimes/linux-x64/alpha': `ELF ${label}\n`, 'build.txt': label}})
}

const currentJson = async (ws: Workspace): Promise<unknown> => JSON.parse(await readFile(path.join(ws.plugin(id), 'current.json'), 'utf8'))
const buildIn = (ws: Workspace, directory: string): Promise<string> => readFile(path.join(ws.plugin(id), 'versions', directory, 'build.txt'), 'utf8')

describe('a forced reinstall of the active version', () => {
  it('passes through <version>_1 while current.json names it, and rests in <version> with current.json naming just the version', async () => {
    await inWorkspace(async (ws) => {
      await install(await build(ws, '1.0.0', 'first'), unsigned(ws))
      const seen: Array<[string, unknown, string[]]> = []
      const onProgress = async ({step}: {step: string}) => {
        if (step === 'activated' || step === 'pruned') seen.push([step, await currentJson(ws), await versionsOf(ws.dataRoot, id)])
      }
      const result = await install(await build(ws, '1.0.0', 'second'), unsigned(ws, {force: true, onProgress}))
      // The switch names the intermediate directory while the old tree still holds <version>.
      assert.deepEqual(seen, [
        ['activated', {version: '1.0.0', directory: '1.0.0_1'}, ['1.0.0', '1.0.0_1']],
        ['pruned', {version: '1.0.0'}, ['1.0.0']],
      ])
      const directory = path.join(ws.plugin(id), 'versions', '1.0.0')
      assert.deepEqual([result.directory, result.activated], [directory, true])
      assert.deepEqual(await currentJson(ws), {version: '1.0.0'})
      assert.deepEqual(await versionsOf(ws.dataRoot, id), ['1.0.0'])
      assert.equal(await buildIn(ws, '1.0.0'), 'second')
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])

      const [listed] = await listInstalled(ws.dataRoot)
      assert.deepEqual([listed?.activeVersion, listed?.versions, listed?.directory], ['1.0.0', ['1.0.0'], directory])
      const verification = await verifyInstalled(ws.dataRoot, id)
      assert.deepEqual([verification.valid, verification.version, verification.directory], [true, '1.0.0', directory])
      assert.equal(await versionDirectory(ws.dataRoot, id, '1.0.0'), directory)
    })
  })
})

describe('a forced reinstall of an inactive version', () => {
  it('replaces its directory without touching current.json, and rests in <version>', async () => {
    await inWorkspace(async (ws) => {
      await install(await build(ws, '1.0.0', 'first'), unsigned(ws))
      await install(await build(ws, '2.0.0', 'first'), unsigned(ws))
      const result = await install(await build(ws, '1.0.0', 'second'), unsigned(ws, {force: true, activate: false}))
      assert.deepEqual([result.activated, result.directory], [false, path.join(ws.plugin(id), 'versions', '1.0.0')])
      assert.deepEqual(await currentJson(ws), {version: '2.0.0'})
      assert.deepEqual(await versionsOf(ws.dataRoot, id), ['1.0.0', '2.0.0'])
      assert.equal(await buildIn(ws, '1.0.0'), 'second')

      const activated = await activate(ws.dataRoot, id, '1.0.0')
      assert.deepEqual([activated.previousVersion, activated.directory], ['2.0.0', path.join(ws.plugin(id), 'versions', '1.0.0')])
      assert.deepEqual(await currentJson(ws), {version: '1.0.0'})
      assert.deepEqual((await listInstalled(ws.dataRoot))[0]?.versions, ['2.0.0', '1.0.0'])
    })
  })
})

describe('a <version>_<n> directory', () => {
  /** What a forced reinstall killed between its switch and its layout step leaves, without its journal. */
  async function intermediate(ws: Workspace, options: {oldTreeToo: boolean}): Promise<void> {
    await install(await build(ws, '1.0.0', 'second'), unsigned(ws))
    await rename(path.join(ws.plugin(id), 'versions', '1.0.0'), path.join(ws.plugin(id), 'versions', '1.0.0_1'))
    await writeFile(path.join(ws.plugin(id), 'current.json'), JSON.stringify({version: '1.0.0', directory: '1.0.0_1'}))
    if (!options.oldTreeToo) return
    await cp(path.join(ws.plugin(id), 'versions', '1.0.0_1'), path.join(ws.plugin(id), 'versions', '1.0.0'), {recursive: true})
    await writeFile(path.join(ws.plugin(id), 'versions', '1.0.0', 'build.txt'), 'first')
  }

  it('must hold <version>: a manifest naming another version is version-mismatch', async () => {
    await inWorkspace(async (ws) => {
      await intermediate(ws, {oldTreeToo: false})
      const manifest = path.join(ws.plugin(id), 'versions', '1.0.0_1', 'manifest.json')
      const text = await readFile(manifest, 'utf8')
      await writeFile(manifest, text.replace('"version": "1.0.0"', '"version": "1.0.1"'))
      const verification = await verifyInstalled(ws.dataRoot, id)
      assert.equal(verification.valid, false)
      assert.ok(verification.problems.some((problem) => problem.code === 'version-mismatch'), JSON.stringify(verification.problems))
      await assert.rejects(activate(ws.dataRoot, id, '1.0.0'), installError('manifest-invalid'))
    })
  })

  it('named by current.json is what readers resolve while the old tree is still beside it; the next operation removes the old tree and brings the new one to rest', async () => {
    await inWorkspace(async (ws) => {
      await intermediate(ws, {oldTreeToo: true})
      assert.equal(await versionDirectory(ws.dataRoot, id, '1.0.0'), path.join(ws.plugin(id), 'versions', '1.0.0_1'))
      await activate(ws.dataRoot, id, '1.0.0')
      assert.deepEqual(await versionsOf(ws.dataRoot, id), ['1.0.0'])
      assert.equal(await buildIn(ws, '1.0.0'), 'second')
      assert.deepEqual(await currentJson(ws), {version: '1.0.0'})
    })
  })

  it('named by current.json but already moved to <version> resolves to <version> (the instant of the layout step)', async () => {
    await inWorkspace(async (ws) => {
      await install(await build(ws, '1.0.0', 'second'), unsigned(ws))
      await writeFile(path.join(ws.plugin(id), 'current.json'), JSON.stringify({version: '1.0.0', directory: '1.0.0_1'}))
      const directory = path.join(ws.plugin(id), 'versions', '1.0.0')
      assert.equal(await versionDirectory(ws.dataRoot, id, '1.0.0'), directory)
      assert.deepEqual([(await verifyInstalled(ws.dataRoot, id)).directory, (await listInstalled(ws.dataRoot))[0]?.activeVersion], [directory, '1.0.0'])
      await activate(ws.dataRoot, id, '1.0.0')
      assert.deepEqual(await currentJson(ws), {version: '1.0.0'})
    })
  })

  it('or <version> are the only names under versions/ the installer lists or removes, even on a purge', async () => {
    await inWorkspace(async (ws) => {
      await install(await build(ws, '1.0.0', 'first'), unsigned(ws))
      const foreign = ['notes', '1.0.0_x', '1.0.0_01', '1.0.0_0', '1.0.0_']
      for (const name of foreign) await mkdir(path.join(ws.plugin(id), 'versions', name))
      await install(await build(ws, '1.0.0', 'second'), unsigned(ws, {force: true}))
      assert.deepEqual((await listInstalled(ws.dataRoot))[0]?.versions, ['1.0.0'])
      await uninstall(ws.dataRoot, id, {purge: true})
      assert.deepEqual(await readdir(ws.plugin(id)), ['versions'])
      assert.deepEqual((await readdir(path.join(ws.plugin(id), 'versions'))).sort(), [...foreign].sort())
    })
  })
})
