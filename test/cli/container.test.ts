import assert from 'node:assert/strict'
import {writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {runCli, runCliJson, spawnCli, tempDir} from '../helpers/cli.js'
import type {TestPki} from '../signing/pki.js'
import {livePki, signedUpload, writeArtifact, writeSignedUpload} from '../store/uploads.js'

// The container signature on the command line: an artifact signed without containerDigest verifies and
// installs with the warning container-unsigned, --require-container-signature refuses it on verify and
// install, and store verify refuses it unless told --no-require-container-signature.

let dir: string
let cleanup: () => Promise<void>
let pki: TestPki
const at = (...parts: string[]): string => path.join(dir, ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-container-'))
  pki = livePki()
  await writeFile(at('trust.json'), `${JSON.stringify(pki.trust, null, 2)}\n`)
  await writeSignedUpload(at('sealed.svcPlugin'), pki, {now: new Date()})
  await writeArtifact(at('unsealed.svcPlugin'), await signedUpload(pki, {now: new Date()}))
})
after(async () => cleanup())

const warning = /^warning container-unsigned: The signature does not cover the container/m
const account = ['--account-name', 'Example Labs', '--account-id', 'com.example']

describe('verify, install and store verify on the container signature', () => {
  it('verify: a sealed artifact is valid without a warning; an unsealed one is valid with container-unsigned, refused with --require-container-signature', async () => {
    const sealed = await runCli(['verify', at('sealed.svcPlugin'), '--trust', at('trust.json')])
    assert.deepEqual([sealed.status, sealed.stderr], [0, ''])
    const unsealed = await runCli(['verify', at('unsealed.svcPlugin'), '--trust', at('trust.json')])
    assert.equal(unsealed.status, 0)
    assert.match(unsealed.stderr, warning)
    const json = await runCliJson(['verify', at('unsealed.svcPlugin'), '--trust', at('trust.json')])
    assert.deepEqual(json.json.warnings.map((item: {code: string; severity: string}) => [item.code, item.severity]), [['container-unsigned', 'warning']])
    const required = await runCli(['verify', at('unsealed.svcPlugin'), '--trust', at('trust.json'), '--require-container-signature'])
    assert.equal(required.status, 1)
    assert.match(required.stdout, /^invalid: container-unsigned: /)
  })

  it('install: refuses an unsealed artifact with --require-container-signature (signature-invalid), installs it with the warning otherwise', async () => {
    const args = ['install', at('unsealed.svcPlugin'), '--data-root', at('data'), '--rid', 'linux-x64', '--trust', at('trust.json')]
    const refused = await runCli([...args, '--require-container-signature'])
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /^error signature-invalid: .*container-unsigned/m)
    const installed = await runCli(args)
    assert.equal(installed.status, 0, installed.stderr)
    assert.match(installed.stderr, warning)
  })

  it('store verify: refuses an unsealed upload by default, accepts it with the warning under --no-require-container-signature (both command-line paths)', async () => {
    for (const run of [runCli, spawnCli]) {
      const refused = await run(['store', 'verify', at('unsealed.svcPlugin'), '--trust', at('trust.json'), ...account])
      assert.equal(refused.status, 1)
      assert.match(refused.stdout, /^error container-unsigned: /m)
      const allowed = await run(['store', 'verify', at('unsealed.svcPlugin'), '--trust', at('trust.json'), ...account, '--no-require-container-signature'])
      assert.equal(allowed.status, 0, allowed.stdout)
      assert.match(allowed.stdout, /^warning container-unsigned: /m)
      const sealed = await run(['store', 'verify', at('sealed.svcPlugin'), '--trust', at('trust.json'), ...account])
      assert.deepEqual([sealed.status, sealed.stdout], [0, 'accepted com.example.weather-station 1.4.2\n'])
    }
  })
})
