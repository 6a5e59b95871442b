import assert from 'node:assert/strict'
import {writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {base64Line} from '../../src/pki/base64.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import {runCli, runCliJson, tempDir} from '../helpers/cli.js'
import {fieldsOf, type TestPki} from '../signing/pki.js'
import {livePki, unsignedUpload, writeArtifact, writeSignedUpload} from '../store/uploads.js'

let dir: string
let cleanup: () => Promise<void>
let pki: TestPki
const at = (...parts: string[]): string => path.join(dir, ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-store-'))
  pki = livePki()
  await writeFile(at('root.key'), base64Line(pki.root.privateKey))
  await writeFile(at('trust.json'), `${JSON.stringify(pki.trust, null, 2)}\n`)
  await writeSignedUpload(at('upload.svcPlugin'), pki, {now: new Date()})
  await writeArtifact(at('broken.svcPlugin'), unsignedUpload({omit: ['runtimes/win-x64/WeatherStation.exe'], manifest: {license: undefined}}))
})
after(async () => cleanup())

const storeVerify = (artifact: string, ...args: string[]) => runCli(['store', 'verify', at(artifact), '--trust', at('trust.json'), ...args])

describe('svc-plugin store verify', () => {
  it('accepts an upload from its publisher (exit 0)', async () => {
    const result = await storeVerify('upload.svcPlugin', '--account-name', 'Example Labs', '--account-id', 'com.example', '--published', '1.0.0', '--published', '1.4.1')
    assert.equal(result.status, 0, result.stdout + result.stderr)
    assert.equal(result.stdout, 'accepted com.example.weather-station 1.4.2\n')
  })

  it('refuses a version already published, one line per problem then the verdict line (exit 1)', async () => {
    const result = await storeVerify('upload.svcPlugin', '--account-name', 'Example Labs', '--account-id', 'com.example', '--published', '1.0.0,1.4.2')
    assert.equal(result.status, 1)
    assert.equal(result.stdout, 'error version-not-newer: version 1.4.2 is already published; upload a greater version. [/version]\nrefused com.example.weather-station 1.4.2: 1 problem\n')
  })

  it('refuses an upload from another account (publisher-mismatch)', async () => {
    const result = await runCliJson(['store', 'verify', at('upload.svcPlugin'), '--trust', at('trust.json'), '--account-name', 'Other Labs'])
    assert.equal(result.status, 1)
    assert.deepEqual(result.json.problems.map((problem: {code: string; pointer: string}) => [problem.code, problem.pointer]), [
      ['publisher-mismatch', '/publisher/name'],
      ['publisher-mismatch', '/publisher/id'],
    ])
  })

  it('prints every problem of a broken upload with --json', async () => {
    const result = await runCliJson(['store', 'verify', at('broken.svcPlugin'), '--trust', at('trust.json'), '--account-name', 'Example Labs', '--account-id', 'com.example', '--published', '2.0.0'])
    assert.equal(result.status, 1)
    assert.deepEqual(Object.keys(result.json), ['path', 'accepted', 'id', 'version', 'problems', 'verdict', 'certificateId'])
    assert.deepEqual([result.json.accepted, result.json.verdict, result.json.certificateId], [false, 'Unsigned', null])
    assert.deepEqual(result.json.problems.map((problem: {code: string}) => problem.code).sort(), ['entrypoint-not-packed', 'publication-metadata-missing', 'signature-missing', 'version-not-newer'])
  })

  it('prints the library report as it is behind the path, naming the plugin id `id` in both', async () => {
    for (const artifact of ['upload.svcPlugin', 'broken.svcPlugin']) {
      const result = await runCliJson(['store', 'verify', at(artifact), '--trust', at('trust.json'), '--account-name', 'Example Labs', '--account-id', 'com.example'])
      const report = await verifyUpload(at(artifact), {account: {name: 'Example Labs', id: 'com.example'}, trust: pki.trust})
      assert.equal(report.id, 'com.example.weather-station')
      assert.deepEqual(result.json, {path: at(artifact), ...report})
    }
  })

  it('refuses a revoked signer with --revocations', async () => {
    const revoked = await runCli(['cert', 'revoke', '--list', at('revocations.json'), '--root-key', at('root.key'), '--root-key-id', pki.rootKeyId, '--certificate-id', fieldsOf(pki.certificate).certificateId as string, '--reason', 'key-compromise'])
    assert.equal(revoked.status, 0, revoked.stderr)
    const result = await runCliJson(['store', 'verify', at('upload.svcPlugin'), '--trust', at('trust.json'), '--account-name', 'Example Labs', '--account-id', 'com.example', '--revocations', at('revocations.json')])
    assert.equal(result.status, 1)
    assert.deepEqual([result.json.verdict, result.json.problems.map((problem: {code: string}) => problem.code)], ['Revoked', ['revoked']])
  })

  it('exits 3 for an artifact that does not exist: file-not-found, an error and not a report', async () => {
    const result = await storeVerify('missing.svcPlugin', '--account-name', 'Example Labs')
    assert.equal(result.status, 3)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^error file-not-found: .*missing\.svcPlugin does not exist\.\n$/)
  })

  it('exits 2 for a published version that is not SemVer', async () => {
    const result = await storeVerify('upload.svcPlugin', '--account-name', 'Example Labs', '--published', 'v1')
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error invalid-argument: /)
  })
})
