import assert from 'node:assert/strict'
import {readFile} from 'node:fs/promises'
import {after, before, describe, it} from 'node:test'
import {install} from '../../src/install/install.js'
import {pluginPaths} from '../../src/install/layout.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {tempDir} from '../helpers/cli.js'
import {testNow} from '../signing/pki.js'
import {countersignedPair} from './countersigned.js'

const id = 'com.example.weather-station'
let dir: string
let cleanup: () => Promise<void>
let pair: Awaited<ReturnType<typeof countersignedPair>>

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-countersign-install-'))
  pair = await countersignedPair(dir)
})
after(async () => cleanup())

const host = (dataRoot: string) => ({dataRoot: `${dir}/${dataRoot}`, hostRid: 'linux-x64', trust: pair.pki.trust, now: testNow})

describe('install with a required store countersignature', () => {
  it('admits a countersigned artifact, records the countersignature, and the launch gate finds it', async () => {
    await install(pair.a, {...host('admitted'), requireStoreSignature: true})
    const record = JSON.parse(await readFile(pluginPaths(`${dir}/admitted`, id).trust, 'utf8')) as {versions: Record<string, {storeSignature?: {store: string; countersignedAt: string}}>}
    assert.deepEqual([record.versions['1.4.2']?.storeSignature?.store, record.versions['1.4.2']?.storeSignature?.countersignedAt], ['store.example', '2030-06-01T12:00:00Z'])
    const gate = await verifyInstalled(`${dir}/admitted`, id, {trust: pair.pki.trust, now: testNow, hostRid: 'linux-x64', requireStoreSignature: true})
    assert.deepEqual([gate.valid, gate.problems], [true, []])
  })

  it('refuses an artifact without one (store-signature-missing) and with another artifact\'s (store-signature-invalid), writing nothing', async () => {
    await assert.rejects(install(pair.b, {...host('refused'), requireStoreSignature: true}), {code: 'store-signature-missing'})
    await assert.rejects(install(pair.b, {...host('refused'), requireStoreSignature: true, storeSignature: pair.countersig}), (error: {code?: string; message?: string}) => {
      assert.equal(error.code, 'store-signature-invalid')
      assert.match(error.message ?? '', /for another artifact file/)
      return true
    })
    await assert.rejects(readFile(pluginPaths(`${dir}/refused`, id).trust), {code: 'ENOENT'})
  })

  it('the launch gate refuses a version admitted without a countersignature when one is required', async () => {
    await install(pair.b, host('plain'))
    const gate = await verifyInstalled(`${dir}/plain`, id, {trust: pair.pki.trust, now: testNow, hostRid: 'linux-x64', requireStoreSignature: true})
    assert.deepEqual([gate.valid, gate.problems.map((problem) => problem.code)], [false, ['store-signature-missing']])
    const relaxed = await verifyInstalled(`${dir}/plain`, id, {trust: pair.pki.trust, now: testNow, hostRid: 'linux-x64'})
    assert.equal(relaxed.valid, true)
  })
})
