import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {runCli, runCliJson, spawnCli, tempDir} from '../helpers/cli.js'
import {snapshotTree, writeArtifact} from '../install/helpers/artifacts.js'

let dir: string
let cleanup: () => Promise<void>
let v1: string
let v2: string
let v3: string
let roots = 0

const none = {added: [], removed: []}

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-consent-cli-'))
  v1 = await writeArtifact(path.join(dir, 'alpha-1.0.0.svcPlugin'), {version: '1.0.0', manifest: {permissions: ['host:deck']}})
  // 2.0.0 asks for two permissions and a dependency 1.0.0 did not, and no longer for host:deck.
  v2 = await writeArtifact(path.join(dir, 'alpha-2.0.0.svcPlugin'), {
    version: '2.0.0',
    manifest: {permissions: ['net:outbound', 'process:spawn'], dependencies: [{id: 'com.example.beta', versionRange: '>=1.0.0', optional: true}]},
  })
  // 3.0.0 only drops what 2.0.0 asked for.
  v3 = await writeArtifact(path.join(dir, 'alpha-3.0.0.svcPlugin'), {version: '3.0.0', manifest: {permissions: ['net:outbound']}})
})
after(async () => {
  await cleanup()
})

/** A fresh data root with 1.0.0 installed. */
async function withV1(): Promise<string> {
  const root = path.join(dir, `data-${++roots}`)
  const first = await runCli(['install', v1, ...base(root)])
  assert.equal(first.status, 0, first.stderr)
  return root
}

const base = (root: string) => ['--data-root', root, '--rid', 'linux-x64', '--allow-unsigned']
const revocationRecord = (relative: string) => relative === 'plugins/_revocations.json'
const v2Changes = {
  permissions: {added: ['net:outbound', 'process:spawn'], removed: ['host:deck']},
  dependencies: {added: ['com.example.beta'], removed: []},
  runtimes: none,
}

describe('svc-plugin install of an update that asks for more', () => {
  it('refuses it: exit 1, consent-required, each addition listed and the flag that accepts them named, nothing written', async () => {
    const root = await withV1()
    const before = await snapshotTree(root, {exclude: revocationRecord})
    const result = await runCli(['install', v2, ...base(root)])
    assert.equal(result.status, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr,
      'error consent-required: com.example.alpha 2.0.0 asks for what 1.0.0 did not: permission net:outbound, permission process:spawn, dependency com.example.beta; no consent was given. Pass --accept-new-permissions to accept them.\n',
    )
    assert.deepEqual(await snapshotTree(root, {exclude: revocationRecord}), before)
    const json = await runCliJson(['install', v2, ...base(root)])
    assert.equal(json.status, 1)
    assert.deepEqual(json.json.error.changes, v2Changes)
    assert.equal(json.json.error.activeVersion, '1.0.0')
  })

  it('installs it with --accept-new-permissions: --json carries the changes, the text says what was accepted', async () => {
    const root = await withV1()
    const {status, json} = await runCliJson(['install', v2, ...base(root), '--accept-new-permissions'])
    assert.equal(status, 0)
    assert.equal(json.version, '2.0.0')
    assert.deepEqual(json.changes, v2Changes)
    const text = await runCli(['install', v1, ...base(root), '--force', '--accept-new-permissions'])
    assert.equal(text.status, 0, text.stderr)
    assert.match(text.stderr, /^accepted: permission host:deck$/m)
  })

  it('needs no consent for an update that only removes, nor for a first install', async () => {
    const root = path.join(dir, `data-${++roots}`)
    const first = await runCliJson(['install', v2, ...base(root)])
    assert.equal(first.status, 0)
    assert.equal(first.json.changes, null)
    const {status, json} = await runCliJson(['install', v3, ...base(root)])
    assert.equal(status, 0)
    assert.deepEqual(json.changes, {permissions: {added: [], removed: ['process:spawn']}, dependencies: {added: [], removed: ['com.example.beta']}, runtimes: none})
  })

  it('refuses it as a real process too: exit status 1 as the shell sees it', async () => {
    const root = await withV1()
    const result = await spawnCli(['install', v2, ...base(root)])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error consent-required: .* Pass --accept-new-permissions to accept them\.$/m)
  })
})

describe('svc-plugin inspect --compare', () => {
  it('prints what the artifact asks for that the older one did not, and what it no longer asks for', async () => {
    const result = await runCli(['inspect', v2, '--compare', v1])
    assert.equal(result.status, 0, result.stderr)
    const tail = result.stdout.split('\n').slice(-8)
    assert.deepEqual(tail, [
      `compared with:  com.example.alpha 1.0.0 (${v1})`,
      'changes:',
      '  + permission net:outbound',
      '  + permission process:spawn',
      '  + dependency com.example.beta',
      '  - permission host:deck',
      'consent:        an update from it asks for consent to 3 additions',
      '',
    ])
    const same = await runCli(['inspect', v1, '--compare', v1])
    assert.deepEqual(same.stdout.split('\n').slice(-4), [`compared with:  com.example.alpha 1.0.0 (${v1})`, 'changes:        (none)', 'consent:        an update from it needs none', ''])
  })

  it('gives the same changes as install does, with --json', async () => {
    const {status, json} = await runCliJson(['inspect', v2, '--compare', v1])
    assert.equal(status, 0)
    assert.deepEqual(json.comparison, {subject: {kind: 'artifact', path: v1}, id: 'com.example.alpha', version: '1.0.0', changes: v2Changes})
    assert.equal(json.version, '2.0.0')
    const plain = await runCliJson(['inspect', v2])
    assert.equal(Object.hasOwn(plain.json, 'comparison'), false)
  })

  it('refuses an older subject that does not exist: exit 3, file-not-found', async () => {
    const {status, json} = await runCliJson(['inspect', v2, '--compare', path.join(dir, 'missing.svcPlugin')])
    assert.equal(status, 3)
    assert.equal(json.error.code, 'file-not-found')
  })
})
