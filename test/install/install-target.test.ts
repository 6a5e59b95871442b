import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {readFile, readdir} from 'node:fs/promises'
import {describe, it} from 'node:test'
import {install} from '../../src/install/install.js'
import {readManifest} from '../../src/manifest/read-manifest.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {deriveLanguages} from '../../src/manifest/languages.js'
import {createSigner, testNow} from './helpers/artifacts.js'
import {inWorkspace, installError} from './helpers/workspace.js'

const unsigned = (dataRoot: string) => ({dataRoot, hostRid: 'linux-x64', allowUnsigned: true})

describe('the install target asserted', () => {
  it('refuses another version than expectVersion: version-mismatch, before anything is written', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('v1', {version: '1.0.0'})
      await assert.rejects(install(artifact, {...unsigned(ws.dataRoot), expectVersion: '1.0.1'}), installError('version-mismatch', {expected: '1.0.1', actual: '1.0.0'}))
      assert.deepEqual(await readdir(ws.dataRoot).catch(() => []), [])
      assert.equal((await install(artifact, {...unsigned(ws.dataRoot), expectVersion: '1.0.0'})).version, '1.0.0')
    })
  })

  it('refuses an artifact file whose SHA-256 is not expectSha256: artifact-digest-mismatch, before anything is written', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('v1')
      const sha256 = createHash('sha256').update(await readFile(artifact)).digest('hex')
      const wrong = sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'))
      await assert.rejects(install(artifact, {...unsigned(ws.dataRoot), expectSha256: wrong}), installError('artifact-digest-mismatch', {expected: `sha256:${wrong}`, actual: `sha256:${sha256}`}))
      assert.deepEqual(await readdir(ws.dataRoot).catch(() => []), [])
      await assert.rejects(install(artifact, {...unsigned(ws.dataRoot), expectSha256: 'abc'}), installError('invalid-argument', {argument: 'expectSha256'}))
      assert.equal((await install(artifact, {...unsigned(ws.dataRoot), expectSha256: `sha256:${sha256.toUpperCase()}`})).version, '1.0.0')
    })
  })
})

describe('what a host is handed, so that it never re-implements a rule', () => {
  it('gives the entrypoint with forward slashes whatever the manifest wrote', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('backslashes', {manifest: {entrypoints: {'linux-x64': {executable: 'runtimes\\linux-x64\\.\\alpha'}}}})
      const result = await install(artifact, unsigned(ws.dataRoot))
      assert.equal(result.entrypoint?.executable, 'runtimes/linux-x64/alpha')
    })
  })

  it('gives the effective (clamped) shutdown and health settings, in the install result and from readManifest', async () => {
    await inWorkspace(async (ws) => {
      const manifest = {shutdown: {gracefulTimeoutSeconds: 600}, health: {intervalSeconds: 1, timeoutSeconds: 5, path: '/ready'}}
      const expected = {shutdown: {gracefulTimeoutSeconds: 60}, health: {path: '/ready', intervalSeconds: 5, timeoutSeconds: 5, unhealthyThreshold: 3}}
      const result = await install(await ws.artifact('clamped', {manifest}), unsigned(ws.dataRoot))
      assert.deepEqual(result.settings, expected)
      const text = JSON.stringify({manifestVersion: 1, id: 'com.example.alpha', name: 'A', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'a'}}, ...manifest})
      assert.deepEqual(readManifest(Buffer.from(text)).settings, expected)
    })
  })

  it('refuses an unknown signature algorithm at verification (signature-invalid, signature-algorithm-unsupported), not as a manifest error', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const manifest = {signature: {algorithm: 'rsa-pss', keyId: signer.certificateId, value: 'AAAA', signedAt: '2030-06-01T12:00:00Z'}}
      const report = validateManifest(JSON.stringify({manifestVersion: 1, id: 'com.example.alpha', name: 'A', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'a'}}, ...manifest}))
      assert.deepEqual(report.problems.filter((problem) => problem.severity === 'error'), [])
      const unknown = await ws.artifact('rsa', {signer, forge: {algorithm: 'rsa-pss'}})
      await assert.rejects(install(unknown, {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow}), installError('signature-invalid', {verdict: 'Malformed', reason: 'signature-algorithm-unsupported'}))
    })
  })
})

describe('smaller value rules', () => {
  const manifest = (extra: Record<string, unknown>) => JSON.stringify({manifestVersion: 1, id: 'com.example.alpha', name: 'A', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'a'}}, ...extra})
  const codes = (text: string) => validateManifest(text).problems.map((problem) => [problem.code, problem.pointer])

  it('calls a blank permission invalid-permission, not an unknown one', () => {
    assert.deepEqual(codes(manifest({permissions: ['host:variables', '  ']})), [['invalid-permission', '/permissions/1']])
  })

  it('calls an icon path of only whitespace invalid-icon', () => {
    assert.deepEqual(codes(manifest({icon: '   '})), [['invalid-icon', '/icon']])
  })

  it('counts a name in code points, as the schema does: 128 astral characters pass, 129 do not', () => {
    assert.deepEqual(codes(manifest({name: '😀'.repeat(128)})), [])
    assert.deepEqual(codes(manifest({name: '😀'.repeat(129)})), [['invalid-name', '/name']])
  })

  it('derives languages in BCP 47 canonical case, so case variants collapse into one', () => {
    const files = ['Localization/Strings.resx', 'Localization/Strings.DE.resx', 'Localization/More.de.resx', 'Localization/Strings.zh-hant-tw.resx', 'Localization/Strings.ZH-HANT-TW.resx']
    assert.deepEqual(deriveLanguages(files), ['de', 'en', 'zh-Hant-TW'])
  })
})

describe('listInstalled and pruning', () => {
  it('marks an installed version whose manifest disagrees with its directory', async () => {
    await inWorkspace(async (ws) => {
      const {listInstalled} = await import('../../src/install/installed.js')
      const {writeFile} = await import('node:fs/promises')
      const path = (await import('node:path')).default
      await install(await ws.artifact('v1'), unsigned(ws.dataRoot))
      assert.deepEqual((await listInstalled(ws.dataRoot)).map((plugin) => plugin.mismatchedVersions), [[]])
      const manifestFile = path.join(ws.dataRoot, 'plugins', 'com.example.alpha', 'versions', '1.0.0', 'manifest.json')
      const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>
      await writeFile(manifestFile, JSON.stringify({...manifest, version: '9.9.9'}))
      assert.deepEqual((await listInstalled(ws.dataRoot)).map((plugin) => plugin.mismatchedVersions), [['1.0.0']])
    })
  })

  it('keeps the active version, the previous one and one more by default', async () => {
    await inWorkspace(async (ws) => {
      for (const version of ['1.0.0', '1.1.0', '1.2.0', '1.3.0']) await install(await ws.artifact(version, {version}), unsigned(ws.dataRoot))
      const versions = (await readdir(`${ws.dataRoot}/plugins/com.example.alpha/versions`)).sort()
      assert.deepEqual(versions, ['1.1.0', '1.2.0', '1.3.0'])
    })
  })
})
