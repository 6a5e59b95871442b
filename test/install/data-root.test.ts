import assert from 'node:assert/strict'
import {lstat, mkdir, readdir, rename, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {activate} from '../../src/install/activate.js'
import {install} from '../../src/install/install.js'
import {listInstalled} from '../../src/install/installed.js'
import type {InstallOptions} from '../../src/install/types.js'
import {uninstall} from '../../src/install/uninstall.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {createSigner, putFile, snapshotTree, testNow} from './helpers/artifacts.js'
import {currentOf, inWorkspace, installError, stagingEntries, versionsOf, type Workspace} from './helpers/workspace.js'

const id = 'com.example.alpha'
// A name exactly like the staging directories this library makes: even such a name is never removed through a link.
const stagingLikeName = `${id}_0123456789abcdef01234567`

function unsigned(ws: Workspace, extra: Partial<InstallOptions> = {}): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true, ...extra}
}

/** A directory outside the data root holding files someone cares about; returns its path. */
async function victim(ws: Workspace, name = 'victim'): Promise<string> {
  const dir = path.join(ws.dir, name)
  await putFile(dir, 'precious.txt', 'do not delete\n')
  await putFile(dir, 'notes/today.md', '# notes\n')
  await putFile(dir, `${stagingLikeName}/content/manifest.json`, '{}')
  await putFile(dir, '.current.json.123.0123456789ab.tmp', 'temporary-looking\n')
  return dir
}

describe('a _staging that is a symbolic link', () => {
  it('is refused with unsafe-data-root by the next locked operation, even an uninstall of a plugin that is not installed, and its target is left intact', async () => {
    await inWorkspace(async (ws) => {
      const target = await victim(ws)
      const before = await snapshotTree(target)
      await mkdir(path.join(ws.dataRoot, 'plugins'), {recursive: true})
      const staging = path.join(ws.dataRoot, 'plugins', '_staging')
      await symlink(target, staging)
      await assert.rejects(uninstall(ws.dataRoot, 'com.example.nothing'), installError('unsafe-data-root', {path: staging, found: 'symbolic-link'}))
      await assert.rejects(install(await ws.artifact('v1'), unsigned(ws)), installError('unsafe-data-root', {path: staging, found: 'symbolic-link'}))
      assert.deepEqual([...(await snapshotTree(target))], [...before])
      assert.deepEqual(await versionsOf(ws.dataRoot, id), [])
    })
  })
})

describe('a plugins/<id> that is a symbolic link', () => {
  it('is refused by install, activate and uninstall with purge, and nothing is written or removed through it', async () => {
    await inWorkspace(async (ws) => {
      const target = await victim(ws)
      await putFile(target, 'versions/1.0.0/manifest.json', '{}')
      await putFile(target, 'data/state.json', '{}')
      await writeFile(path.join(target, 'current.json'), '{"version":"1.0.0"}\n')
      const before = await snapshotTree(target)
      await mkdir(path.join(ws.dataRoot, 'plugins'), {recursive: true})
      const plugin = ws.plugin(id)
      await symlink(target, plugin)
      const refused = installError('unsafe-data-root', {path: plugin, found: 'symbolic-link'})
      await assert.rejects(install(await ws.artifact('v1'), unsigned(ws)), refused)
      await assert.rejects(activate(ws.dataRoot, id, '1.0.0'), refused)
      await assert.rejects(uninstall(ws.dataRoot, id, {purge: true}), refused)
      await assert.rejects(verifyInstalled(ws.dataRoot, id), refused)
      assert.deepEqual(await listInstalled(ws.dataRoot), [])
      assert.deepEqual([...(await snapshotTree(target))], [...before])
      assert.ok((await lstat(plugin)).isSymbolicLink())
    })
  })
})

describe('a versions that is a symbolic link', () => {
  it('is refused by install, activate, uninstall and verifyInstalled; listInstalled leaves the plugin out; the target is untouched', async () => {
    await inWorkspace(async (ws) => {
      const v1 = await ws.artifact('v1', {version: '1.0.0'})
      await install(v1, unsigned(ws))
      const versions = path.join(ws.plugin(id), 'versions')
      const target = path.join(ws.dir, 'versions-elsewhere')
      await rename(versions, target)
      await putFile(target, 'precious.txt', 'do not delete\n')
      await symlink(target, versions)
      const before = await snapshotTree(target)
      const refused = installError('unsafe-data-root', {path: versions, found: 'symbolic-link'})
      await assert.rejects(install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws)), refused)
      await assert.rejects(install(v1, unsigned(ws, {force: true})), refused)
      await assert.rejects(activate(ws.dataRoot, id, '1.0.0'), refused)
      await assert.rejects(uninstall(ws.dataRoot, id), refused)
      await assert.rejects(uninstall(ws.dataRoot, id, {purge: true}), refused)
      await assert.rejects(verifyInstalled(ws.dataRoot, id), refused)
      assert.deepEqual(await listInstalled(ws.dataRoot), [])
      assert.deepEqual([...(await snapshotTree(target))], [...before])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })
})

describe('a data that is a symbolic link', () => {
  it('is refused by install; an uninstall leaves it; a purge removes the link and never what it points to', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const data = path.join(ws.plugin(id), 'data')
      const target = await victim(ws, 'data-elsewhere')
      await rm(data, {recursive: true})
      await symlink(target, data)
      const before = await snapshotTree(target)
      await assert.rejects(install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws)), installError('unsafe-data-root', {path: data, found: 'symbolic-link'}))
      assert.equal(await currentOf(ws.dataRoot, id), '1.0.0')
      await uninstall(ws.dataRoot, id)
      assert.ok((await lstat(data)).isSymbolicLink())
      const purged = await uninstall(ws.dataRoot, id, {purge: true})
      assert.equal(purged.purged, true)
      assert.deepEqual(await readdir(path.join(ws.dataRoot, 'plugins')), ['_staging'])
      assert.deepEqual([...(await snapshotTree(target))], [...before])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })
})

describe('a plugins directory that is a symbolic link', () => {
  it('is refused by install, uninstall and listInstalled, and its target is left intact', async () => {
    await inWorkspace(async (ws) => {
      const target = await victim(ws)
      await putFile(target, `${id}/versions/1.0.0/manifest.json`, '{}')
      await putFile(target, '_staging/leftover.txt', 'not ours\n')
      const before = await snapshotTree(target)
      await mkdir(ws.dataRoot, {recursive: true})
      const plugins = path.join(ws.dataRoot, 'plugins')
      await symlink(target, plugins)
      const refused = installError('unsafe-data-root', {path: plugins, found: 'symbolic-link'})
      await assert.rejects(install(await ws.artifact('v1'), unsigned(ws)), refused)
      await assert.rejects(uninstall(ws.dataRoot, id, {purge: true}), refused)
      await assert.rejects(listInstalled(ws.dataRoot), refused)
      assert.deepEqual([...(await snapshotTree(target))], [...before])
    })
  })
})

describe('a plugins directory that is a symbolic link, with a revocation list to remember', () => {
  it('is refused by install and verifyInstalled before the record of lists seen is written through it', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const artifact = await ws.artifact('signed', {signer})
      const revocations = createRevocationList({rootKeyId: signer.root.rootKeyId, rootPrivateKey: signer.root.keyPair.privateKey, entries: [], now: testNow})
      const target = await victim(ws)
      const before = await snapshotTree(target)
      await mkdir(ws.dataRoot, {recursive: true})
      const plugins = path.join(ws.dataRoot, 'plugins')
      await symlink(target, plugins)
      const refused = installError('unsafe-data-root', {path: plugins, found: 'symbolic-link'})
      await assert.rejects(install(artifact, {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow, revocations}), refused)
      await assert.rejects(verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, revocations}), refused)
      assert.deepEqual([...(await snapshotTree(target))], [...before])
    })
  })
})

describe('a file where a directory of the data root should be', () => {
  for (const level of ['plugins', 'plugins/_staging', `plugins/${id}`, `plugins/${id}/versions`, `plugins/${id}/data`]) {
    it(`at ${level} is refused by install with unsafe-data-root (found: file) and left as it is`, async () => {
      await inWorkspace(async (ws) => {
        const file = path.join(ws.dataRoot, ...level.split('/'))
        await putFile(ws.dataRoot, level, 'a file\n')
        await assert.rejects(install(await ws.artifact('v1'), unsigned(ws)), installError('unsafe-data-root', {path: file, found: 'file'}))
        assert.ok((await lstat(file)).isFile())
      })
    })
  }
})

describe('entries of _staging this library does not make', () => {
  it('are left alone by every operation', async () => {
    await inWorkspace(async (ws) => {
      const staging = path.join(ws.dataRoot, 'plugins', '_staging')
      const foreign = ['notes.txt', 'some-dir', `${id}_short`, `${id}_0123456789ABCDEF01234567`, 'Com.Example_0123456789abcdef01234567']
      await putFile(staging, 'notes.txt', 'mine\n')
      await putFile(staging, 'some-dir/inner.txt', 'mine\n')
      await putFile(staging, `${id}_short/x`, 'mine\n')
      await putFile(staging, `${id}_0123456789ABCDEF01234567/x`, 'mine\n')
      await putFile(staging, 'Com.Example_0123456789abcdef01234567/x', 'mine\n')
      const before = await snapshotTree(staging)
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      await install(await ws.artifact('other', {id: 'com.example.other'}), unsigned(ws))
      await activate(ws.dataRoot, id, '1.0.0')
      await uninstall(ws.dataRoot, id, {purge: true})
      assert.deepEqual((await readdir(staging)).sort(), foreign.sort())
      assert.deepEqual([...(await snapshotTree(staging))], [...before])
    })
  })

  it('a link named like a staging directory of another plugin is removed as a link; what it points to stays', async () => {
    await inWorkspace(async (ws) => {
      const target = await victim(ws)
      const before = await snapshotTree(target)
      const staging = path.join(ws.dataRoot, 'plugins', '_staging')
      await mkdir(staging, {recursive: true})
      await symlink(target, path.join(staging, 'com.example.beta_0123456789abcdef01234567'))
      await install(await ws.artifact('v1'), unsigned(ws))
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
      assert.deepEqual([...(await snapshotTree(target))], [...before])
    })
  })
})

describe('names read back from files in the data root', () => {
  it('a journal naming a staging directory this library would not make is dropped, and nothing is promoted from it', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const elsewhere = path.join(ws.dataRoot, 'plugins', '_staging', `${id}_mine`)
      await putFile(elsewhere, 'content/manifest.json', '{}')
      const journal = {
        operation: 'install',
        version: '2.0.0',
        directory: '2.0.0',
        staging: `${id}_mine`,
        activate: true,
        admission: {verdict: 'Unsigned', certificateId: null, admittedAt: '2030-06-01T12:00:00.000Z'},
        previousVersion: '1.0.0',
        retain: 0,
      }
      await writeFile(path.join(ws.plugin(id), '.transaction.json'), JSON.stringify(journal))
      await activate(ws.dataRoot, id, '1.0.0')
      assert.deepEqual(await versionsOf(ws.dataRoot, id), ['1.0.0'])
      assert.deepEqual(await readdir(path.join(elsewhere, 'content')), ['manifest.json'])
      assert.deepEqual((await readdir(ws.plugin(id))).sort(), ['current.json', 'data', 'trust.json', 'versions'])
    })
  })

  it('a journal whose admission is not one install writes is dropped: the trust record stays readable', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const trusted = {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow}
      await install(await ws.artifact('v1', {version: '1.0.0', signer}), trusted)
      // Names this library makes, a version that is at rest, but an admission without its certificate id.
      const journal = {
        operation: 'install',
        version: '1.0.0',
        directory: '1.0.0_1',
        staging: stagingLikeName,
        activate: true,
        admission: {verdict: 'Trusted'},
        previousVersion: '1.0.0',
        retain: 0,
      }
      await writeFile(path.join(ws.plugin(id), '.transaction.json'), JSON.stringify(journal))
      await activate(ws.dataRoot, id, '1.0.0')
      assert.deepEqual((await readdir(ws.plugin(id))).sort(), ['current.json', 'data', 'trust.json', 'versions'])
      const verified = await verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, hostRid: 'linux-x64'})
      assert.deepEqual(verified.problems, [])
      assert.equal(verified.valid, true)
    })
  })

  it('a current.json naming a directory outside versions/ names no active version', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      await writeFile(path.join(ws.plugin(id), 'current.json'), JSON.stringify({version: '1.0.0', directory: '../../../elsewhere'}))
      const [listed] = await listInstalled(ws.dataRoot)
      assert.equal(listed?.activeVersion, null)
      assert.equal(listed?.directory, null)
      await assert.rejects(verifyInstalled(ws.dataRoot, id), installError('version-not-installed'))
    })
  })
})
