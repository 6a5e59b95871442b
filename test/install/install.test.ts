import assert from 'node:assert/strict'
import {readFile, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {install} from '../../src/install/install.js'
import {uninstall} from '../../src/install/uninstall.js'
import type {InstallOptions} from '../../src/install/types.js'
import {createSigner, testNow, type TestSigner} from './helpers/artifacts.js'
import {joinZip, splitZip} from '../helpers/zip-splice.js'
import {currentOf, inWorkspace, installError, modeOf, stagingEntries, versionsOf, type Workspace} from './helpers/workspace.js'

/** Options for an unsigned install on a linux-x64 host. */
function unsigned(ws: Workspace, extra: Partial<InstallOptions> = {}): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true, ...extra}
}

/** Options for a signed install trusting `signer`'s root. */
function trusted(ws: Workspace, signer: TestSigner, extra: Partial<InstallOptions> = {}): InstallOptions {
  return {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow, ...extra}
}

const codes = (result: {warnings: Array<{code: string; blocking: boolean}>}) => result.warnings.map((item) => [item.code, item.blocking])

describe('install of a valid unsigned artifact with allowUnsigned', () => {
  it('installs, activates and reports the entrypoint, with artifact-unsigned', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('alpha'), unsigned(ws))
      assert.deepEqual(result, {
        id: 'com.example.alpha',
        version: '1.0.0',
        activated: true,
        previousVersion: null,
        verdict: 'Unsigned',
        certificateId: null,
        entrypoint: {rid: 'linux-x64', executable: 'runtimes/linux-x64/alpha', arguments: ['--serve'], runtime: {kind: 'SelfContained'}},
        autoStart: true,
        settings: {shutdown: {gracefulTimeoutSeconds: 10}, health: {path: '/_svc/health', intervalSeconds: 15, timeoutSeconds: 2, unhealthyThreshold: 3}},
        directory: path.join(ws.dataRoot, 'plugins', 'com.example.alpha', 'versions', '1.0.0'),
        dataDirectory: path.join(ws.dataRoot, 'plugins', 'com.example.alpha', 'data'),
        changes: null,
        warnings: [{code: 'artifact-unsigned', message: result.warnings[0]?.message, blocking: false}],
      })
    })
  })

  it('lays out versions/<version>, current.json, trust.json and data/, and leaves _staging empty', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('alpha'), unsigned(ws))
      const root = ws.plugin('com.example.alpha')
      assert.deepEqual((await readdir(root)).sort(), ['current.json', 'data', 'trust.json', 'versions'])
      assert.deepEqual(JSON.parse(await readFile(path.join(root, 'current.json'), 'utf8')), {version: '1.0.0'})
      const record = JSON.parse(await readFile(path.join(root, 'trust.json'), 'utf8')) as {verdict: string; versions: Record<string, {verdict: string}>}
      assert.equal(record.verdict, 'Unsigned')
      assert.equal(record.versions['1.0.0']?.verdict, 'Unsigned')
      const version = path.join(root, 'versions', '1.0.0')
      assert.deepEqual((await readdir(version)).sort(), ['assets', 'manifest.json', 'runtimes'])
      assert.equal(await readFile(path.join(version, 'runtimes', 'linux-x64', 'alpha'), 'utf8'), 'ELF com.example.alpha\n')
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  it('makes the host entrypoint 0755 and every other file 0644', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('alpha'), unsigned(ws))
      const version = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0')
      assert.equal(await modeOf(path.join(version, 'runtimes', 'linux-x64', 'alpha')), 0o755)
      assert.equal(await modeOf(path.join(version, 'assets', 'readme.txt')), 0o644)
      assert.equal(await modeOf(path.join(version, 'manifest.json')), 0o644)
    })
  })

  it('ignores the modes the archive stores: the entrypoint resolved for the host is 0755, every other file 0644', async () => {
    await inWorkspace(async (ws) => {
      // Archive modes that would widen (0777, 0666), narrow (0700, 0600, 0400) or mark as executable (0755)
      // a file: the installer writes the host's entrypoint 0755 and everything else 0644, whatever they say.
      const stored: Record<string, number> = {
        'manifest.json': 0o700,
        'runtimes/linux-x64/alpha': 0o600,
        'runtimes/osx-x64/alpha': 0o755,
        'assets/readme.txt': 0o777,
        'assets/shared.txt': 0o666,
        'assets/private.txt': 0o400,
      }
      const payload = {'runtimes/linux-x64/alpha': 'ELF', 'runtimes/osx-x64/alpha': 'MACHO', 'assets/readme.txt': 'a', 'assets/shared.txt': 'b', 'assets/private.txt': 'c'}
      const entrypoints = {'linux-x64': {executable: 'runtimes/linux-x64/alpha'}, 'osx-x64': {executable: 'runtimes/osx-x64/alpha'}}
      const artifact = await ws.artifact('modes', {payload, manifest: {entrypoints}})
      const records = splitZip(await readFile(artifact))
      for (const record of records) {
        const mode = stored[record.name.toString('utf8')]
        assert.ok(mode !== undefined, record.name.toString('utf8'))
        record.centralFixed.writeUInt32LE(((0o100000 | mode) << 16) >>> 0, 38)
      }
      await writeFile(artifact, joinZip(records))
      await install(artifact, unsigned(ws))
      const version = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0')
      const installed: Record<string, number> = {}
      for (const name of Object.keys(stored)) installed[name] = await modeOf(path.join(version, ...name.split('/')))
      assert.deepEqual(installed, {
        'manifest.json': 0o644,
        'runtimes/linux-x64/alpha': 0o755,
        'runtimes/osx-x64/alpha': 0o644,
        'assets/readme.txt': 0o644,
        'assets/shared.txt': 0o644,
        'assets/private.txt': 0o644,
      })
      for (const dir of ['runtimes', 'runtimes/linux-x64', 'assets']) assert.equal(await modeOf(path.join(version, ...dir.split('/'))), 0o755, dir)
    })
  })

  it('installs without activating when activate is false', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('alpha'), unsigned(ws, {activate: false}))
      assert.equal(result.activated, false)
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), null)
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['1.0.0'])
    })
  })
})

describe('install of a signed artifact', () => {
  it('is Trusted with the certificate id when its root is trusted', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const result = await install(await ws.artifact('signed', {signer}), trusted(ws, signer))
      assert.equal(result.verdict, 'Trusted')
      assert.equal(result.certificateId, signer.certificateId)
      // Signed in memory, without a container digest: Trusted, with the one warning that says so.
      assert.deepEqual(result.warnings.map((item) => [item.code, item.blocking]), [['container-unsigned', false]])
      assert.deepEqual((await readdir(path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0'))).sort(), ['assets', 'certificate.json', 'certificate.sig', 'manifest.json', 'runtimes'])
    })
  })

  it('is refused with signature-untrusted (UntrustedRoot) under another root, even with allowUnsigned', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const stranger = createSigner({rootKeyId: 'root_stranger'})
      await assert.rejects(
        install(await ws.artifact('signed', {signer}), trusted(ws, signer, {trust: stranger.trust, allowUnsigned: true})),
        installError('signature-untrusted', {verdict: 'UntrustedRoot', reason: 'certificate-untrusted'}),
      )
      assert.deepEqual(await readdir(path.join(ws.dataRoot, 'plugins')), ['_staging'])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  it('is refused with signature-untrusted (WrongCertificatePurpose) for a registry certificate', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner({usage: 'registry'})
      const artifact = await ws.artifact('registry', {signer, forge: {}})
      await assert.rejects(install(artifact, trusted(ws, signer)), installError('signature-untrusted', {verdict: 'WrongCertificatePurpose', reason: 'certificate-wrong-purpose'}))
    })
  })

  it('is refused with signature-untrusted (CertificateNotValidAtSignature) when signed after the certificate expired', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const artifact = await ws.artifact('late', {signer, forge: {signedAt: '2031-07-01T00:00:00Z'}})
      await assert.rejects(
        install(artifact, trusted(ws, signer, {now: new Date('2031-07-02T00:00:00Z')})),
        installError('signature-untrusted', {verdict: 'CertificateNotValidAtSignature', reason: 'certificate-expired'}),
      )
    })
  })

  it('is refused with signature-invalid (SignatureInvalid) when the signature value is corrupted', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const artifact = await ws.artifact('corrupt', {signer, forge: {corrupt: true}})
      await assert.rejects(install(artifact, trusted(ws, signer)), installError('signature-invalid', {verdict: 'SignatureInvalid', reason: 'signature-invalid'}))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), [])
    })
  })

  it('is refused with signature-invalid (ContentMismatch) when the publisher is not the certificate subject', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const artifact = await ws.artifact('impostor', {signer, forge: {}, manifest: {publisher: {name: 'Someone', id: 'com.someone'}}})
      await assert.rejects(install(artifact, trusted(ws, signer)), installError('signature-invalid', {verdict: 'ContentMismatch', reason: 'publisher-mismatch'}))
    })
  })
})

describe('install refusals', () => {
  it('refuses an unsigned artifact without allowUnsigned: unsigned-not-permitted', async () => {
    await inWorkspace(async (ws) => {
      await assert.rejects(install(await ws.artifact('alpha'), unsigned(ws, {allowUnsigned: false})), installError('unsigned-not-permitted'))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), [])
    })
  })

  it('refuses a protocol range above the host one: incompatible, host-too-old', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('future', {manifest: {compatibility: {protocol: {minimum: 4, maximum: 5}}}})
      await assert.rejects(install(artifact, unsigned(ws)), installError('incompatible', {direction: 'host-too-old', member: 'protocol'}))
    })
  })

  it('refuses a protocol range below the host one: incompatible, host-too-new', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('past', {manifest: {compatibility: {protocol: {minimum: 1, maximum: 1}}}})
      await assert.rejects(install(artifact, unsigned(ws, {protocol: {minimum: 2, maximum: 3}})), installError('incompatible', {direction: 'host-too-new'}))
    })
  })

  it('refuses an svc range the host version does not satisfy: incompatible with the direction', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('svc', {manifest: {compatibility: {svc: '>=2.0.0, <3.0.0'}}})
      await assert.rejects(install(artifact, unsigned(ws, {hostVersion: '1.9.0'})), installError('incompatible', {direction: 'host-too-old', member: 'svc'}))
      await assert.rejects(install(artifact, unsigned(ws, {hostVersion: '3.0.0'})), installError('incompatible', {direction: 'host-too-new', member: 'svc'}))
      const result = await install(artifact, unsigned(ws, {hostVersion: '2.4.0'}))
      assert.deepEqual(codes(result), [['artifact-unsigned', false]])
    })
  })

  it('refuses manifestVersion 2 as incompatible (host-too-old)', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('v2', {manifest: {manifestVersion: 2}})
      await assert.rejects(install(artifact, unsigned(ws)), installError('incompatible', {direction: 'host-too-old', member: 'manifestVersion'}))
    })
  })

  it('refuses a manifest that fails development validation: manifest-invalid with the problems', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('bad', {manifest: {version: 'one', entrypoints: {'linux-x64': {executable: '../escape'}}}})
      await assert.rejects(install(artifact, unsigned(ws)), (error: unknown) => {
        installError('manifest-invalid')(error)
        const problems = (error as {details: {problems: Array<{code: string}>}}).details.problems.map((problem) => problem.code)
        assert.ok(problems.includes('invalid-version'), problems.join(', '))
        assert.ok(problems.includes('entrypoint-outside-version-directory'), problems.join(', '))
        return true
      })
    })
  })

  it('refuses a version too long to name its folder before anything is written: manifest-invalid (invalid-version)', async () => {
    await inWorkspace(async (ws) => {
      // Valid SemVer of 300 characters: a folder name of more than 255 bytes, which a file system refuses.
      const artifact = await ws.artifact('long', {version: `1.0.0-${'a'.repeat(294)}`})
      await assert.rejects(install(artifact, unsigned(ws)), (error: unknown) => {
        installError('manifest-invalid')(error)
        assert.deepEqual((error as {details: {problems: Array<{code: string}>}}).details.problems.map((problem) => problem.code), ['invalid-version'])
        return true
      })
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), [])
    })
  })

  it('refuses an artifact without manifest.json: manifest-missing, as validate and inspect say', async () => {
    await inWorkspace(async (ws) => {
      const {writeArchive} = await import('../../src/archive/writer.js')
      const file = path.join(ws.dir, 'no-manifest.svcPlugin')
      await writeArchive(file, [{name: 'readme.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('hi')}}])
      await assert.rejects(install(file, unsigned(ws)), installError('manifest-missing', {problems: []}))
    })
  })

  it('refuses another id than expected: id-mismatch', async () => {
    await inWorkspace(async (ws) => {
      await assert.rejects(install(await ws.artifact('alpha'), unsigned(ws, {expectId: 'com.example.other'})), installError('id-mismatch', {expected: 'com.example.other', actual: 'com.example.alpha'}))
    })
  })

  it('refuses a version already installed without force: already-installed; replaces it with force, in versions/<version> again', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('alpha')
      await install(artifact, unsigned(ws))
      await assert.rejects(install(artifact, unsigned(ws)), installError('already-installed', {active: true}))
      const again = await install(artifact, unsigned(ws, {force: true}))
      assert.equal(again.previousVersion, '1.0.0')
      assert.equal(again.directory, path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0'))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['1.0.0'])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  it('refuses a file whose bytes differ from files[]: hash-mismatch naming the file', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('tampered', {
        payload: {'runtimes/linux-x64/alpha': 'ELF', 'assets/readme.txt': 'changed'},
        files: [
          {path: 'assets/readme.txt', size: 7, sha256: `sha256:${'0'.repeat(64)}`},
          {path: 'runtimes/linux-x64/alpha', size: 3, sha256: 'sha256:0ab4f7b2c2b9b3b0e6f2bb1d3e2a9d6d5b1a1b2c6a8d3e1f0a9b8c7d6e5f4a3b'},
        ],
      })
      await assert.rejects(install(artifact, unsigned(ws)), (error: unknown) => {
        installError('hash-mismatch')(error)
        const problems = (error as {details: {problems: Array<{code: string; path: string}>}}).details.problems
        assert.deepEqual(problems.map((problem) => [problem.code, problem.path]), [
          ['file-digest-mismatch', 'assets/readme.txt'],
          ['file-digest-mismatch', 'runtimes/linux-x64/alpha'],
        ])
        return true
      })
      assert.equal((await readdir(path.join(ws.dataRoot, 'plugins'))).join(), '_staging')
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  it('refuses a file not listed in files[] and a listed file that is absent: hash-mismatch', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('extra', {
        payload: {'runtimes/linux-x64/alpha': 'ELF'},
        files: [
          {path: 'runtimes/linux-x64/alpha', size: 3, sha256: 'sha256:e1c2c1d51c6e0c0e1b44a3a5bc7b2c6ecb0b6ab0c4be8f1d8c0f6d7a4ff2c3d1'},
          {path: 'assets/gone.txt', size: 1, sha256: `sha256:${'1'.repeat(64)}`},
        ],
        extraEntries: {'assets/smuggled.txt': 'x'},
      })
      await assert.rejects(install(artifact, unsigned(ws)), (error: unknown) => {
        installError('hash-mismatch')(error)
        const problems = (error as {details: {problems: Array<{code: string; path: string}>}}).details.problems.map((problem) => [problem.code, problem.path])
        assert.deepEqual(
          problems.filter(([, file]) => file !== 'runtimes/linux-x64/alpha'),
          [
            ['file-missing', 'assets/gone.txt'],
            ['undeclared-file', 'assets/smuggled.txt'],
          ],
        )
        return true
      })
    })
  })

  it('passes archive errors through with their own code: file-not-found, not-an-artifact', async () => {
    await inWorkspace(async (ws) => {
      await assert.rejects(install(path.join(ws.dir, 'missing.svcPlugin'), unsigned(ws)), installError('file-not-found'))
      const text = path.join(ws.dir, 'text.svcPlugin')
      await writeFile(text, 'not a zip at all')
      await assert.rejects(install(text, unsigned(ws)), (error: unknown) => {
        installError('not-an-artifact')(error)
        assert.equal((error as Error).cause?.constructor.name, 'ArchiveError')
        return true
      })
    })
  })

  it('refuses arguments that are not usable: invalid-argument', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('alpha')
      await assert.rejects(install(artifact, unsigned(ws, {hostVersion: 'latest'})), installError('invalid-argument', {argument: 'version'}))
      await assert.rejects(install(artifact, unsigned(ws, {protocol: {minimum: 3, maximum: 2}})), installError('invalid-argument', {argument: 'protocol'}))
      await assert.rejects(install(artifact, unsigned(ws, {retain: -1})), installError('invalid-argument', {argument: 'retain'}))
      await assert.rejects(install(artifact, unsigned(ws, {expectId: '../x'})), installError('invalid-argument', {argument: 'id'}))
    })
  })
})

describe('trust downgrade', () => {
  it('refuses an unsigned update of a plugin installed Trusted: trust-downgrade', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('signed', {signer}), trusted(ws, signer))
      const update = await ws.artifact('unsigned-update', {version: '1.1.0'})
      await assert.rejects(install(update, trusted(ws, signer, {allowUnsigned: true})), installError('trust-downgrade', {admittedVerdict: 'Trusted', verdict: 'Unsigned'}))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['1.0.0'])
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '1.0.0')
    })
  })

  it('accepts a signed update of an unsigned plugin, and from then on refuses unsigned ones', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const result = await install(await ws.artifact('v2', {version: '2.0.0', signer}), trusted(ws, signer))
      assert.equal(result.verdict, 'Trusted')
      await assert.rejects(install(await ws.artifact('v3', {version: '3.0.0'}), unsigned(ws)), installError('trust-downgrade'))
    })
  })
})

describe('publisher pinning', () => {
  it('refuses a Trusted update signed by another publisher under the same root: publisher-changed', async () => {
    await inWorkspace(async (ws) => {
      const owner = createSigner()
      const other = createSigner({sameRootAs: owner, subject: {kind: 'creator', id: 'org.other', name: 'Other Labs'}})
      await install(await ws.artifact('v1', {signer: owner}), trusted(ws, owner))
      const takeover = await ws.artifact('takeover', {version: '1.1.0', signer: other, manifest: {publisher: {name: 'Other Labs', id: 'org.other'}}})
      await assert.rejects(install(takeover, trusted(ws, other)), installError('publisher-changed', {pinned: {kind: 'creator', id: 'com.example', rootKeyId: 'root_install'}, publisher: {kind: 'creator', id: 'org.other', rootKeyId: 'root_install'}}))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['1.0.0'])
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '1.0.0')
      // The owner's own update, under a new certificate of the same subject, is accepted.
      const renewed = createSigner({sameRootAs: owner})
      const update = await install(await ws.artifact('v2', {version: '2.0.0', signer: renewed}), trusted(ws, renewed))
      assert.equal(update.verdict, 'Trusted')
    })
  })

  it('accepts another publisher after an uninstall with purge, which forgets the pin', async () => {
    await inWorkspace(async (ws) => {
      const owner = createSigner()
      const other = createSigner({sameRootAs: owner, subject: {kind: 'creator', id: 'org.other', name: 'Other Labs'}})
      await install(await ws.artifact('v1', {signer: owner}), trusted(ws, owner))
      await uninstall(ws.dataRoot, 'com.example.alpha', {purge: true})
      const result = await install(await ws.artifact('takeover', {version: '1.1.0', signer: other, manifest: {publisher: {name: 'Other Labs', id: 'org.other'}}}), trusted(ws, other))
      assert.equal(result.verdict, 'Trusted')
    })
  })
})

describe('install warnings', () => {
  it('no-file-digests when files[] is absent', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('bare', {files: 'none'}), unsigned(ws))
      assert.deepEqual(codes(result), [['no-file-digests', false], ['artifact-unsigned', false]])
      assert.equal(result.autoStart, true)
    })
  })

  it('sdk-compatibility-unchecked and svc-compatibility-unchecked on a development host', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('compat', {manifest: {compatibility: {sdk: '>=2.0.0', svc: '>=5.0.0'}}}), unsigned(ws))
      assert.deepEqual(codes(result), [['svc-compatibility-unchecked', false], ['sdk-compatibility-unchecked', false], ['artifact-unsigned', false]])
      assert.equal(result.autoStart, true)
    })
  })

  it('unknown-permission for a permission outside the vocabulary, not blocking', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('perm', {manifest: {permissions: ['host:variables', 'host:teleport']}}), unsigned(ws))
      assert.deepEqual(codes(result).filter(([code]) => code === 'unknown-permission'), [['unknown-permission', false]])
      assert.equal(result.autoStart, true)
    })
  })

  it('dependency-missing blocks auto-start unless optional', async () => {
    await inWorkspace(async (ws) => {
      const hard = await install(await ws.artifact('hard', {manifest: {dependencies: [{id: 'com.example.base'}]}}), unsigned(ws))
      assert.deepEqual(codes(hard).filter(([code]) => code !== 'artifact-unsigned'), [['dependency-missing', true]])
      assert.equal(hard.autoStart, false)
      const soft = await install(await ws.artifact('soft', {id: 'com.example.soft', manifest: {dependencies: [{id: 'com.example.base', optional: true}]}}), unsigned(ws))
      assert.deepEqual(codes(soft).filter(([code]) => code !== 'artifact-unsigned'), [['dependency-missing', false]])
      assert.equal(soft.autoStart, true)
    })
  })

  it('dependency-out-of-range when the active dependency is outside the range, silent within it', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('base', {id: 'com.example.base', version: '1.2.0'}), unsigned(ws))
      const out = await install(await ws.artifact('out', {manifest: {dependencies: [{id: 'com.example.base', versionRange: '>=2.0.0'}]}}), unsigned(ws))
      assert.deepEqual(codes(out).filter(([code]) => code !== 'artifact-unsigned'), [['dependency-out-of-range', true]])
      assert.equal(out.autoStart, false)
      const within = await install(await ws.artifact('in', {id: 'com.example.within', manifest: {dependencies: [{id: 'com.example.base', versionRange: '>=1.0.0, <2.0.0'}]}}), unsigned(ws))
      assert.deepEqual(codes(within), [['artifact-unsigned', false]])
    })
  })

  it('conflict-installed blocks when the conflicting active version is in the range', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('rival', {id: 'com.example.rival', version: '1.5.0'}), unsigned(ws))
      const blocked = await install(await ws.artifact('blocked', {manifest: {conflicts: [{id: 'com.example.rival', versionRange: '<2.0.0'}]}}), unsigned(ws))
      assert.deepEqual(codes(blocked).filter(([code]) => code !== 'artifact-unsigned'), [['conflict-installed', true]])
      assert.equal(blocked.autoStart, false)
      assert.equal(blocked.activated, true)
      const outside = await install(await ws.artifact('outside', {id: 'com.example.outside', manifest: {conflicts: [{id: 'com.example.rival', versionRange: '>=2.0.0'}]}}), unsigned(ws))
      assert.deepEqual(codes(outside).filter(([code]) => code !== 'artifact-unsigned'), [['conflict-installed', false]])
      assert.equal(outside.autoStart, true)
    })
  })

  it('icon-pack-unresolved when the icon pack is not installed, not blocking', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('icons', {manifest: {iconPacks: [{id: 'com.example.icons'}]}}), unsigned(ws))
      assert.deepEqual(codes(result).filter(([code]) => code !== 'artifact-unsigned'), [['icon-pack-unresolved', false]])
      assert.equal(result.autoStart, true)
    })
  })

  it('refuses an artifact without the executable the host would start: entrypoint-missing, nothing written', async () => {
    await inWorkspace(async (ws) => {
      const hollow = await ws.artifact('hollow', {payload: {'assets/readme.txt': 'only this'}})
      await assert.rejects(install(hollow, unsigned(ws)), installError('entrypoint-missing', {rid: 'linux-x64', hostRid: 'linux-x64', executable: 'runtimes/linux-x64/alpha'}))
      assert.deepEqual(await readdir(ws.dataRoot).catch(() => []), [])
      // The same artifact on a host whose runtime identifier resolves to no entrypoint installs, with the advisory warning.
      const elsewhere = await install(hollow, unsigned(ws, {hostRid: 'linux-musl-x64'}))
      assert.deepEqual(codes(elsewhere).filter(([code]) => code !== 'artifact-unsigned'), [['no-entrypoint-for-runtime', false]])
      assert.equal(elsewhere.autoStart, false)
    })
  })
})

describe('entrypoint resolution by host RID', () => {
  const payload = {'runtimes/osx-x64/app': 'MACHO', 'runtimes/win-x64/App.exe': 'MZ', 'runtimes/linux-x64/app': 'ELF'}
  const entrypoints = {
    'osx-x64': {executable: 'runtimes/osx-x64/app'},
    'win-x64': {executable: 'runtimes/win-x64/App.exe'},
    'linux-x64': {executable: 'runtimes/linux-x64/app'},
  }

  it('osx-arm64 falls back to osx-x64 and makes that file executable', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('rid', {payload, manifest: {entrypoints}}), unsigned(ws, {hostRid: 'osx-arm64'}))
      assert.deepEqual(result.entrypoint, {rid: 'osx-x64', executable: 'runtimes/osx-x64/app', arguments: [], runtime: {kind: 'SelfContained'}})
      assert.equal(result.autoStart, true)
      const version = path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0')
      assert.equal(await modeOf(path.join(version, 'runtimes', 'osx-x64', 'app')), 0o755)
      assert.equal(await modeOf(path.join(version, 'runtimes', 'linux-x64', 'app')), 0o644)
    })
  })

  it('win-arm64 falls back to win-x64', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('rid', {payload, manifest: {entrypoints}}), unsigned(ws, {hostRid: 'win-arm64'}))
      assert.equal(result.entrypoint?.rid, 'win-x64')
      assert.equal(result.entrypoint?.executable, 'runtimes/win-x64/App.exe')
    })
  })

  it('linux-musl-x64 resolves to nothing: installed and activated, no-entrypoint-for-runtime, autoStart false', async () => {
    await inWorkspace(async (ws) => {
      const result = await install(await ws.artifact('rid', {payload, manifest: {entrypoints}}), unsigned(ws, {hostRid: 'linux-musl-x64'}))
      assert.equal(result.entrypoint, null)
      assert.equal(result.activated, true)
      assert.equal(result.autoStart, false)
      assert.deepEqual(codes(result).filter(([code]) => code !== 'artifact-unsigned'), [['no-entrypoint-for-runtime', false]])
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '1.0.0')
    })
  })
})

describe('updates and pruning', () => {
  it('keeps the previous version on update and reports it', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws))
      const result = await install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws))
      assert.equal(result.previousVersion, '1.0.0')
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '2.0.0')
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['1.0.0', '2.0.0'])
    })
  })

  it('prunes beyond the active and the previous with retain 0, and forgets their trust admissions', async () => {
    await inWorkspace(async (ws) => {
      for (const version of ['1.0.0', '2.0.0', '3.0.0']) await install(await ws.artifact(version, {version}), unsigned(ws, {retain: 0}))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['2.0.0', '3.0.0'])
      const record = JSON.parse(await readFile(path.join(ws.plugin('com.example.alpha'), 'trust.json'), 'utf8')) as {versions: Record<string, unknown>}
      assert.deepEqual(Object.keys(record.versions).sort(), ['2.0.0', '3.0.0'])
      assert.deepEqual(await stagingEntries(ws.dataRoot), [])
    })
  })

  it('keeps retain more versions, the newest ones', async () => {
    await inWorkspace(async (ws) => {
      for (const version of ['1.0.0', '2.0.0', '3.0.0', '4.0.0']) await install(await ws.artifact(version, {version}), unsigned(ws, {retain: 1}))
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['2.0.0', '3.0.0', '4.0.0'])
    })
  })

  it('keeps the active version when installing without activation', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), unsigned(ws, {retain: 0}))
      await install(await ws.artifact('v2', {version: '2.0.0'}), unsigned(ws, {activate: false, retain: 0}))
      await install(await ws.artifact('v3', {version: '3.0.0'}), unsigned(ws, {activate: false, retain: 0}))
      assert.equal(await currentOf(ws.dataRoot, 'com.example.alpha'), '1.0.0')
      assert.deepEqual(await versionsOf(ws.dataRoot, 'com.example.alpha'), ['1.0.0', '3.0.0'])
    })
  })
})

describe('install progress', () => {
  it('reports every step in order', async () => {
    await inWorkspace(async (ws) => {
      const steps: string[] = []
      await install(await ws.artifact('alpha'), unsigned(ws, {onProgress: ({step}) => void (steps.at(-1) === step ? undefined : steps.push(step))}))
      assert.deepEqual(steps, ['judged', 'locked', 'extracting', 'extracted', 'verified', 'committed', 'promoted', 'recorded', 'activated', 'pruned'])
    })
  })
})
