import assert from 'node:assert/strict'
import {readdir, readFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {install} from '../../src/install/install.js'
import type {InstallOptions} from '../../src/install/types.js'
import {createRevocationList, type RevocationRequest} from '../../src/revocation/list.js'
import {revocationStateFile} from '../../src/install/revocation-state.js'
import {tempDir} from '../helpers/cli.js'
import {signedSample, writeArtifact} from '../signing/artifacts.js'
import {createPki, fieldsOf, testNow} from '../signing/pki.js'

describe('install with a revocation list', () => {
  const pki = createPki()
  const certificateId = fieldsOf(pki.certificate).certificateId as string
  let dir: string
  let cleanup: () => Promise<void>
  let artifact: string
  before(async () => {
    ;({dir, cleanup} = await tempDir('svc-plugin-revocation-install-'))
    artifact = await writeArtifact(path.join(dir, 'weather.svcPlugin'), await signedSample(pki))
  })
  after(async () => cleanup())

  const listOf = (sequence: number, entries: RevocationRequest[] = []) =>
    createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, sequence, entries, now: new Date('2030-05-31T12:00:00Z')})
  const options = (dataRoot: string, extra: Partial<InstallOptions>): InstallOptions => ({dataRoot, hostRid: 'linux-x64', trust: pki.trust, now: testNow, ...extra})

  it('refuses a revoked signer with signature-revoked (verdict Revoked) and installs nothing', async () => {
    const dataRoot = path.join(dir, 'revoked')
    const revocations = listOf(1, [{kind: 'certificate', value: certificateId, reason: 'key-compromise'}])
    await assert.rejects(install(artifact, options(dataRoot, {revocations})), (error: Error & {code?: string; details?: Record<string, unknown>}) => {
      assert.equal(error.code, 'signature-revoked')
      assert.deepEqual([error.details?.verdict, error.details?.reason], ['Revoked', 'revoked'])
      return true
    })
    const plugins = await readdir(path.join(dataRoot, 'plugins')).catch(() => [] as string[])
    assert.deepEqual(plugins.filter((name) => !name.startsWith('_')), [])
  })

  it('installs under a list that revokes something else, and records its sequence', async () => {
    const dataRoot = path.join(dir, 'fresh')
    const result = await install(artifact, options(dataRoot, {revocations: listOf(3, [{kind: 'key', value: `sha256:${'0'.repeat(64)}`, reason: 'superseded'}])}))
    assert.equal(result.verdict, 'Trusted')
    assert.equal(JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8')).roots.root_test.sequence, 3)
  })

  it('refuses an older list than the data root has seen with revocation-list-rollback, before writing anything', async () => {
    const dataRoot = path.join(dir, 'fresh')
    const before = await readdir(path.join(dataRoot, 'plugins', 'com.example.weather-station', 'versions'))
    await assert.rejects(install(artifact, options(dataRoot, {revocations: listOf(2), force: true})), {code: 'revocation-list-rollback'})
    assert.deepEqual(await readdir(path.join(dataRoot, 'plugins', 'com.example.weather-station', 'versions')), before)
  })

  it('refuses a stale list with revocation-list-stale unless allowStaleRevocations', async () => {
    const dataRoot = path.join(dir, 'stale')
    const stale = createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, now: new Date('2030-01-01T00:00:00Z')})
    await assert.rejects(install(artifact, options(dataRoot, {revocations: stale})), {code: 'revocation-list-stale'})
    assert.equal((await install(artifact, options(dataRoot, {revocations: stale, allowStaleRevocations: true}))).verdict, 'Trusted')
  })
})
