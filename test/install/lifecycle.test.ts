import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {appendFile, mkdir, readdir, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {activate} from '../../src/install/activate.js'
import {install} from '../../src/install/install.js'
import {listInstalled} from '../../src/install/installed.js'
import type {InstallOptions} from '../../src/install/types.js'
import {uninstall} from '../../src/install/uninstall.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {createSigner, testNow} from './helpers/artifacts.js'
import {currentOf, inWorkspace, installError, stagingEntries, versionsOf, type Workspace} from './helpers/workspace.js'

function unsigned(ws: Workspace, extra: Partial<InstallOptions> = {}): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true, ...extra}
}

describe('activate', () => {
  it('rolls back to the previous version and reports the one it replaced', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      await install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws))
      const result = await activate(ws.dataRoot, 'com.example.alpha', '1.0.0', {hostRid: 'linux-x64'})
      assert.deepEqual(result, {
        id: 'com.example.alpha',
        version: '1.0.0',
        directory: path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0'),
        previousVersion: '2.0.0',
        entrypoint: {rid: 'linux-x64', executable: 'runtimes/linux-x64/alpha', arguments: ['--serve'], runtime: {kind: 'SelfContained'}},
      })
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '1.0.0')
    })
  })

  it('refuses a version that is not installed: version-not-installed, and an unknown plugin: not-installed', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1'), unsigned(ws))
      await assert.rejects(activate(ws.dataRoot, 'com.example.alpha', '9.9.9'), installError('version-not-installed'))
      await assert.rejects(activate(ws.dataRoot, 'com.example.nothing', '1.0.0'), installError('not-installed'))
      assert.deepEqual(await readdir(path.join(ws.dataRoot, 'plugins')).then((names) => names.sort()), ['_staging', 'com.example.alpha'])
    })
  })

  it('refuses to roll a Trusted plugin back to a version admitted unsigned: trust-downgrade', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      await install(await ws.artifact('v2', {version: '2.0.0', signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      await assert.rejects(activate(ws.dataRoot, 'com.example.alpha', '1.0.0'), installError('trust-downgrade'))
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '2.0.0')
    })
  })

  it('refuses a version whose manifest no longer matches its directory: manifest-invalid', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      await install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws))
      const manifest = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0', 'manifest.json')
      await writeFile(manifest, JSON.stringify({manifestVersion: 1, id: 'com.example.alpha', name: 'x', version: '2.0.0', entrypoints: {'linux-x64': {executable: 'a'}}}))
      await assert.rejects(activate(ws.dataRoot, 'com.example.alpha', '1.0.0'), (error: unknown) => {
        installError('manifest-invalid')(error)
        const codes = (error as {details: {problems: Array<{code: string}>}}).details.problems.map((problem) => problem.code)
        assert.deepEqual(codes, ['version-mismatch'])
        return true
      })
    })
  })

  it('refuses an argument that is not a plugin id or a version: invalid-argument', async () => {
    await inWorkspace(async (ws) => {
      await assert.rejects(activate(ws.dataRoot, '../etc', '1.0.0'), installError('invalid-argument', {argument: 'id'}))
      await assert.rejects(activate(ws.dataRoot, 'com.example.alpha', '../1.0.0'), installError('invalid-argument', {argument: 'version'}))
      await assert.rejects(activate(ws.dataRoot, 'com.example.alpha', `1.0.0-${'a'.repeat(123)}`), installError('invalid-argument', {argument: 'version'}))
    })
  })
})

describe('uninstall', () => {
  it('removes every version and current.json, keeps data/ and the trust record', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      await install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws))
      await writeFile(path.join(ws.plugin('com.example.alpha'), 'data', 'state.json'), '{}')
      const result = await uninstall(ws.dataRoot, 'com.example.alpha')
      assert.deepEqual(result, {id: 'com.example.alpha', removedVersions: ['2.0.0', '1.0.0'], previousVersion: '2.0.0', purged: false, dependents: []})
      assert.deepEqual((await readdir(ws.plugin('com.example.alpha'))).sort(), ['data', 'trust.json'])
      assert.deepEqual(await readdir(path.join(ws.plugin('com.example.alpha'), 'data')), ['state.json'])
      assert.deepEqual(await listInstalled(ws.dataRoot), [])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  it('keeps the trust level across an uninstall: an unsigned reinstall of a Trusted plugin is trust-downgrade', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      await uninstall(ws.dataRoot, 'com.example.alpha')
      await assert.rejects(install(await ws.artifact('unsigned', {version: '1.0.1'}), unsigned(ws)), installError('trust-downgrade'))
    })
  })

  it('with purge removes the whole plugin directory, trust record included', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      const result = await uninstall(ws.dataRoot, 'com.example.alpha', {purge: true})
      assert.equal(result.purged, true)
      assert.deepEqual(await readdir(path.join(ws.dataRoot, 'plugins')), ['_staging'])
      const again = await install(await ws.artifact('unsigned', {version: '1.0.1'}), unsigned(ws))
      assert.equal(again.verdict, 'Unsigned')
    })
  })

  it('purges what an earlier uninstall kept', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1'), unsigned(ws))
      await uninstall(ws.dataRoot, 'com.example.alpha')
      const result = await uninstall(ws.dataRoot, 'com.example.alpha', {purge: true})
      assert.deepEqual(result.removedVersions, [])
      assert.deepEqual(await readdir(path.join(ws.dataRoot, 'plugins')), ['_staging'])
    })
  })

  it('refuses an id that is not installed: not-installed', async () => {
    await inWorkspace(async (ws) => {
      await assert.rejects(uninstall(ws.dataRoot, 'com.example.alpha'), installError('data-root-not-found'))
      await mkdir(ws.dataRoot)
      await assert.rejects(uninstall(ws.dataRoot, 'com.example.alpha'), installError('not-installed'))
      await install(await ws.artifact('v1'), unsigned(ws))
      await uninstall(ws.dataRoot, 'com.example.alpha')
      await assert.rejects(uninstall(ws.dataRoot, 'com.example.alpha'), installError('not-installed'))
    })
  })

  it('refuses while another active plugin hard-depends on it: dependency-in-use; force removes it anyway', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('base', {id: 'com.example.base'}), unsigned(ws))
      await install(await ws.artifact('user', {id: 'com.example.user', manifest: {dependencies: [{id: 'com.example.base'}]}}), unsigned(ws))
      await install(await ws.artifact('soft', {id: 'com.example.soft', manifest: {dependencies: [{id: 'com.example.base', optional: true}]}}), unsigned(ws))
      await assert.rejects(uninstall(ws.dataRoot, 'com.example.base'), (error: unknown) => {
        installError('dependency-in-use')(error)
        assert.deepEqual((error as {details: {dependents: string[]}}).details.dependents, ['com.example.user'])
        return true
      })
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.base'), ['1.0.0'])
      const forced = await uninstall(ws.dataRoot, 'com.example.base', {force: true})
      assert.deepEqual(forced.dependents, ['com.example.user'])
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.base'), [])
    })
  })
})

describe('listInstalled', () => {
  it('lists plugins with versions, newest first, skipping _staging and stray directories', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('a1', {version: '1.0.0'}), unsigned(ws))
      await install(await ws.artifact('a2', {version: '1.10.0'}), unsigned(ws, {activate: false}))
      await install(await ws.artifact('b', {id: 'com.example.beta', signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      await mkdir(path.join(ws.dataRoot, 'plugins', 'not_a_plugin'))
      const plugins = await listInstalled(ws.dataRoot)
      assert.deepEqual(
        plugins.map(({id, name, activeVersion, versions, verdict, certificateId, pending}) => ({id, name, activeVersion, versions, verdict, certificateId, pending})),
        [
          {id: 'com.example.alpha', name: 'Plugin alpha', activeVersion: '1.0.0', versions: ['1.10.0', '1.0.0'], verdict: 'Unsigned', certificateId: null, pending: false},
          {id: 'com.example.beta', name: 'Plugin beta', activeVersion: '1.0.0', versions: ['1.0.0'], verdict: 'Trusted', certificateId: signer.certificateId, pending: false},
        ],
      )
      assert.equal(plugins[0]?.directory, path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0'))
      assert.equal(plugins[0]?.dataDirectory, path.join(ws.plugin('com.example.alpha'), 'data'))
    })
  })

  it('refuses a data root the file system cannot read with io-error, naming the path (a link that points to itself)', async () => {
    await inWorkspace(async (ws) => {
      const loop = path.join(ws.dir, 'loop')
      await symlink(loop, loop)
      await assert.rejects(listInstalled(loop), (error: Error & {code?: string; details?: Record<string, unknown>}) => {
        assert.equal(error.code, 'io-error')
        assert.deepEqual({errno: error.details?.errno, path: error.details?.path}, {errno: 'ELOOP', path: loop})
        return true
      })
    })
  })

  it('refuses a data root that does not exist (data-root-not-found) without making it, and is empty for an empty one', async () => {
    await inWorkspace(async (ws) => {
      const nowhere = path.join(ws.dir, 'nowhere')
      await assert.rejects(listInstalled(nowhere), installError('data-root-not-found'))
      assert.equal(existsSync(nowhere), false)
      await mkdir(nowhere)
      assert.deepEqual(await listInstalled(nowhere), [])
    })
  })
})

describe('verifyInstalled', () => {
  it('finds a fresh signed install valid and Trusted', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      const result = await verifyInstalled(ws.dataRoot, 'com.example.alpha', {trust: signer.trust, now: testNow})
      assert.equal(result.valid, true)
      assert.equal(result.verdict, 'Trusted')
      assert.equal(result.version, '1.0.0')
      assert.equal(result.admittedVerdict, 'Trusted')
      assert.deepEqual(result.problems, [])
    })
  })

  it('refuses an installed version whose certificate was revoked since install: revoked', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      const revocations = createRevocationList({
        rootKeyId: signer.root.rootKeyId,
        rootPrivateKey: signer.root.keyPair.privateKey,
        entries: [{kind: 'certificate', value: signer.certificateId, reason: 'key-compromise', revokedAt: testNow}],
        now: testNow,
      })
      const result = await verifyInstalled(ws.dataRoot, 'com.example.alpha', {trust: signer.trust, now: testNow, revocations})
      assert.equal(result.valid, false)
      assert.equal(result.verdict, 'Revoked')
      assert.deepEqual(result.problems.map((problem) => problem.code), ['revoked'])
    })
  })

  it('reports every file changed, added or removed since install, with codes', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer, payload: {'runtimes/linux-x64/alpha': 'ELF', 'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c'}}), {
        dataRoot: ws.dataRoot,
        hostRid: 'linux-x64',
        trust: signer.trust,
        now: testNow,
      })
      const version = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0')
      await appendFile(path.join(version, 'a.txt'), 'grown')
      await writeFile(path.join(version, 'b.txt'), 'B')
      await rm(path.join(version, 'c.txt'))
      await writeFile(path.join(version, 'added.txt'), 'new')
      await symlink('/etc/passwd', path.join(version, 'link'))
      const result = await verifyInstalled(ws.dataRoot, 'com.example.alpha', {version: '1.0.0', trust: signer.trust, now: testNow})
      assert.equal(result.valid, false)
      assert.equal(result.verdict, 'ContentMismatch')
      assert.deepEqual(
        result.problems.map((problem) => [problem.code, problem.path]),
        [
          ['unexpected-file-type', 'link'],
          ['file-size-mismatch', 'a.txt'],
          ['file-digest-mismatch', 'b.txt'],
          ['file-missing', 'c.txt'],
          ['undeclared-file', 'added.txt'],
        ],
      )
    })
  })

  it('finds an unsigned version admitted unsigned valid, with artifact-unsigned', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1'), unsigned(ws))
      const result = await verifyInstalled(ws.dataRoot, 'com.example.alpha')
      assert.equal(result.valid, true)
      assert.equal(result.verdict, 'Unsigned')
      assert.deepEqual(result.warnings.map((item) => item.code), ['artifact-unsigned'])
    })
  })

  it('reports a signed version stripped of its signature as trust-downgrade', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
      const version = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0')
      const {readFile} = await import('node:fs/promises')
      const text = await readFile(path.join(version, 'manifest.json'), 'utf8')
      await writeFile(path.join(version, 'manifest.json'), `${text.slice(0, text.indexOf(',"signature"'))}}\n`)
      await rm(path.join(version, 'certificate.json'))
      await rm(path.join(version, 'certificate.sig'))
      const result = await verifyInstalled(ws.dataRoot, 'com.example.alpha', {version: '1.0.0', trust: signer.trust, now: testNow})
      assert.equal(result.verdict, 'Unsigned')
      assert.deepEqual(result.problems.map((problem) => problem.code), ['trust-downgrade'])
    })
  })

  it('warns no-file-digests for a version without files[] and reports a manifest that lost its identity', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('bare', {files: 'none'}), unsigned(ws))
      const fine = await verifyInstalled(ws.dataRoot, 'com.example.alpha')
      assert.deepEqual(fine.warnings.map((item) => item.code), ['no-file-digests', 'artifact-unsigned'])
      assert.equal(fine.valid, true)
      const manifest = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0', 'manifest.json')
      await writeFile(manifest, JSON.stringify({manifestVersion: 1, id: 'com.example.other', name: 'x', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'a'}}}))
      const broken = await verifyInstalled(ws.dataRoot, 'com.example.alpha')
      assert.equal(broken.valid, false)
      assert.deepEqual(broken.problems.map((problem) => problem.code), ['id-mismatch'])
    })
  })

  it('throws not-installed for an unknown plugin and version-not-installed for a missing version', async () => {
    await inWorkspace(async (ws) => {
      await assert.rejects(verifyInstalled(ws.dataRoot, 'com.example.alpha'), installError('data-root-not-found'))
      await mkdir(ws.dataRoot)
      await assert.rejects(verifyInstalled(ws.dataRoot, 'com.example.alpha'), installError('not-installed'))
      await install(await ws.artifact('v1'), unsigned(ws, {activate: false}))
      await assert.rejects(verifyInstalled(ws.dataRoot, 'com.example.alpha'), installError('version-not-installed'))
      await assert.rejects(verifyInstalled(ws.dataRoot, 'com.example.alpha', {version: '2.0.0'}), installError('version-not-installed'))
    })
  })
})
