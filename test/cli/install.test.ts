import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {hostname} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {acquireLock} from '../../src/fs/lock.js'
import {runCli, runCliJson, tempDir} from '../helpers/cli.js'
import {createSigner, sha256Of, snapshotTree, writeArtifact, type TestSigner} from '../install/helpers/artifacts.js'

let dir: string
let cleanup: () => Promise<void>
let signer: TestSigner
let trustFile: string
let unsignedV1: string
let unsignedV2: string
let signedV1: string
let roots = 0

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-install-cli-'))
  signer = createSigner({now: new Date()})
  trustFile = path.join(dir, 'trust.json')
  await writeFile(trustFile, `${JSON.stringify(signer.trust, null, 2)}\n`)
  unsignedV1 = await writeArtifact(path.join(dir, 'alpha-1.0.0.svcPlugin'), {version: '1.0.0', manifest: {compatibility: {protocol: {minimum: 1, maximum: 3}, svc: '>=2.0.0'}}})
  unsignedV2 = await writeArtifact(path.join(dir, 'alpha-2.0.0.svcPlugin'), {version: '2.0.0'})
  // Signed at the real clock: the CLI verifies at the current time, and signing refuses a future one.
  signedV1 = await writeArtifact(path.join(dir, 'beta-1.0.0.svcPlugin'), {id: 'com.example.beta', version: '1.0.0', signer})
})
after(async () => {
  await cleanup()
})

/** A fresh data root. */
function dataRoot(): string {
  return path.join(dir, `data-${++roots}`)
}

const base = (root: string) => ['--data-root', root, '--rid', 'linux-x64']

/** Runs a preparatory command that must succeed. */
async function must(args: string[]): Promise<void> {
  const result = await runCli(args)
  assert.equal(result.status, 0, `svc-plugin ${args.join(' ')}: ${result.stderr}`)
}

describe('svc-plugin install', () => {
  it('refuses an unsigned artifact without --allow-unsigned: exit 1, unsigned-not-permitted', async () => {
    const root = dataRoot()
    const result = await runCli(['install', unsignedV1, ...base(root)])
    assert.equal(result.status, 1, result.stderr)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^error unsigned-not-permitted: /)
  })

  it('installs with --allow-unsigned: one line on stdout, warnings on stderr, exit 0', async () => {
    const root = dataRoot()
    const result = await runCli(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, `Installed com.example.alpha 1.0.0 (Unsigned) -> ${path.join(root, 'plugins', 'com.example.alpha', 'versions', '1.0.0')}\n`)
    assert.match(result.stderr, /^warning svc-compatibility-unchecked: /m)
    assert.match(result.stderr, /^warning artifact-unsigned: /m)
  })

  it('prints the library result with --json', async () => {
    const root = dataRoot()
    const {status, json} = await runCliJson(['install', unsignedV2, ...base(root), '--allow-unsigned'])
    assert.equal(status, 0)
    assert.deepEqual(Object.keys(json).sort(), ['activated', 'autoStart', 'certificateId', 'changes', 'dataDirectory', 'directory', 'entrypoint', 'id', 'previousVersion', 'settings', 'verdict', 'version', 'warnings'])
    assert.equal(json.version, '2.0.0')
    assert.deepEqual(json.entrypoint, {rid: 'linux-x64', executable: 'runtimes/linux-x64/alpha', arguments: ['--serve'], runtime: {kind: 'SelfContained'}})
    assert.deepEqual(json.warnings.map((item: {code: string}) => item.code), ['artifact-unsigned'])
  })

  it('installs a signed artifact as Trusted with --trust', async () => {
    const {status, json} = await runCliJson(['install', signedV1, ...base(dataRoot()), '--trust', trustFile])
    assert.equal(status, 0)
    assert.equal(json.verdict, 'Trusted')
    assert.equal(json.certificateId, signer.certificateId)
  })

  it('refuses a signed artifact without its root: exit 1, signature-untrusted with the verdict', async () => {
    const {status, json} = await runCliJson(['install', signedV1, ...base(dataRoot()), '--allow-unsigned'])
    assert.equal(status, 1)
    assert.equal(json.error.code, 'signature-untrusted')
    assert.equal(json.error.verdict, 'UntrustedRoot')
  })

  it('checks --host-version against compatibility.svc: exit 1, incompatible host-too-old', async () => {
    const {status, json} = await runCliJson(['install', unsignedV1, ...base(dataRoot()), '--allow-unsigned', '--host-version', '1.5.0'])
    assert.equal(status, 1)
    assert.equal(json.error.code, 'incompatible')
    assert.equal(json.error.direction, 'host-too-old')
    assert.equal(json.error.member, 'svc')
  })

  it('checks --protocol against compatibility.protocol: exit 1, incompatible host-too-new', async () => {
    const {status, json} = await runCliJson(['install', unsignedV1, ...base(dataRoot()), '--allow-unsigned', '--protocol', '4-6'])
    assert.equal(status, 1)
    assert.equal(json.error.code, 'incompatible')
    assert.equal(json.error.direction, 'host-too-new')
  })

  it('refuses another id than --expect-id: exit 1, id-mismatch', async () => {
    const {status, json} = await runCliJson(['install', unsignedV1, ...base(dataRoot()), '--allow-unsigned', '--expect-id', 'com.example.other'])
    assert.equal(status, 1)
    assert.equal(json.error.code, 'id-mismatch')
  })

  it('refuses another version than --expect-version and another file than --expect-sha256: exit 1, each its own code, nothing written', async () => {
    const root = dataRoot()
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    const before = await snapshotTree(root)
    const version = await runCliJson(['install', unsignedV2, ...base(root), '--allow-unsigned', '--expect-version', '2.0.1'])
    assert.equal(version.status, 1)
    assert.equal(version.json.error.code, 'version-mismatch')
    const digest = await runCliJson(['install', unsignedV2, ...base(root), '--allow-unsigned', '--expect-sha256', sha256Of(await readFile(unsignedV1))])
    assert.equal(digest.status, 1)
    assert.equal(digest.json.error.code, 'artifact-digest-mismatch')
    assert.deepEqual(await snapshotTree(root), before)
    // Refused before the data root is made: a fresh one is not even created.
    const fresh = dataRoot()
    const text = await runCli(['install', unsignedV2, ...base(fresh), '--allow-unsigned', '--expect-sha256', '0'.repeat(64)])
    assert.equal(text.status, 1)
    assert.match(text.stderr, /^error artifact-digest-mismatch: /)
    await assert.rejects(readdir(fresh), {code: 'ENOENT'})
  })

  it('installs when --expect-version and --expect-sha256 (bare hex or sha256:) match', async () => {
    const root = dataRoot()
    const hex = sha256Of(await readFile(unsignedV2)).slice('sha256:'.length)
    const bare = await runCliJson(['install', unsignedV2, ...base(root), '--allow-unsigned', '--expect-version', '2.0.0', '--expect-sha256', hex.toUpperCase()])
    assert.equal(bare.status, 0)
    assert.equal(bare.json.version, '2.0.0')
    const prefixed = await runCliJson(['install', unsignedV1, ...base(root), '--allow-unsigned', '--no-activate', '--expect-version', '1.0.0', '--expect-sha256', `sha256:${sha256Of(await readFile(unsignedV1)).slice(7)}`])
    assert.equal(prefixed.status, 0)
    assert.equal(prefixed.json.version, '1.0.0')
  })

  it('reports no-entrypoint-for-runtime for --rid linux-musl-x64: installed, autoStart false', async () => {
    const {status, json} = await runCliJson(['install', unsignedV2, '--data-root', dataRoot(), '--rid', 'linux-musl-x64', '--allow-unsigned'])
    assert.equal(status, 0)
    assert.equal(json.entrypoint, null)
    assert.equal(json.autoStart, false)
    assert.ok(json.warnings.some((item: {code: string; blocking: boolean}) => item.code === 'no-entrypoint-for-runtime' && !item.blocking))
  })

  it('refuses a second install of a version (already-installed) unless --force; --no-activate keeps the active one', async () => {
    const root = dataRoot()
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    const again = await runCliJson(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    assert.equal(again.status, 1)
    assert.equal(again.json.error.code, 'already-installed')
    const forced = await runCliJson(['install', unsignedV1, ...base(root), '--allow-unsigned', '--force'])
    assert.equal(forced.status, 0)
    // The replacement passed through a directory of its own, and rests in versions/<version> again.
    assert.equal(forced.json.directory, path.join(root, 'plugins', 'com.example.alpha', 'versions', '1.0.0'))
    const inactive = await runCli(['install', unsignedV2, ...base(root), '--allow-unsigned', '--no-activate', '--retain', '1'])
    assert.equal(inactive.status, 0, inactive.stderr)
    assert.match(inactive.stdout, /^Installed com\.example\.alpha 2\.0\.0 \(Unsigned, not activated\) -> /)
    assert.deepEqual(JSON.parse(await readFile(path.join(root, 'plugins', 'com.example.alpha', 'current.json'), 'utf8')), {version: '1.0.0'})
  })

  it('exits 3 for a missing artifact and for a file that is not a ZIP', async () => {
    const missing = await runCliJson(['install', path.join(dir, 'missing.svcPlugin'), ...base(dataRoot())])
    assert.equal(missing.status, 3)
    assert.equal(missing.json.error.code, 'file-not-found')
    const text = path.join(dir, 'text.svcPlugin')
    await writeFile(text, 'plain text')
    const notZip = await runCli(['install', text, ...base(dataRoot())])
    assert.equal(notZip.status, 3)
    assert.match(notZip.stderr, /^error not-an-artifact: /)
  })

  it('exits 2 for usage errors: no --data-root, a bad --protocol, a negative --retain', async () => {
    assert.equal((await runCli(['install', unsignedV1])).status, 2)
    assert.equal((await runCli(['install', unsignedV1, ...base(dataRoot()), '--protocol', '3-1'])).status, 2)
    assert.equal((await runCli(['install', unsignedV1, ...base(dataRoot()), '--retain', '-1'])).status, 2)
  })
})

describe('svc-plugin list, activate and uninstall', () => {
  it('list prints one line per plugin, or {plugins: [the library result]} with --json', async () => {
    const root = dataRoot()
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    await must(['install', unsignedV2, ...base(root), '--allow-unsigned'])
    const text = await runCli(['list', '--data-root', root])
    assert.equal(text.status, 0)
    assert.equal(text.stdout, 'com.example.alpha 2.0.0 [2.0.0, 1.0.0] Unsigned\n')
    const {json} = await runCliJson(['list', '--data-root', root])
    assert.equal(json.plugins.length, 1)
    assert.equal(json.plugins[0].activeVersion, '2.0.0')
    assert.deepEqual(json.plugins[0].versions, ['2.0.0', '1.0.0'])
  })

  it('list counts plugins in words: 0 plugins, 1 plugin, 2 plugins', async () => {
    const root = dataRoot()
    await mkdir(root)
    assert.equal((await runCli(['list', '--data-root', root])).stderr, '0 plugins installed.\n')
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    assert.equal((await runCli(['list', '--data-root', root])).stderr, '1 plugin installed.\n')
    const other = await writeArtifact(`${root}-beta.svcPlugin`, {id: 'com.example.beta', version: '1.0.0'})
    await must(['install', other, ...base(root), '--allow-unsigned'])
    assert.equal((await runCli(['list', '--data-root', root])).stderr, '2 plugins installed.\n')
  })

  it('list, activate, uninstall and verify --installed refuse a data root that does not exist (exit 3, data-root-not-found) and never make it; install makes it', async () => {
    const root = dataRoot()
    const commands = [
      ['list', '--data-root', root],
      ['activate', 'com.example.alpha', '1.0.0', '--data-root', root],
      ['uninstall', 'com.example.alpha', '--data-root', root],
      ['verify', '--installed', 'com.example.alpha', '--data-root', root, '--trust', trustFile],
    ]
    for (const args of commands) {
      const text = await runCli(args)
      assert.equal(text.status, 3, args.join(' '))
      assert.equal(text.stderr, `error data-root-not-found: The data root ${root} does not exist: nothing was ever installed there (an install creates it). Check --data-root (or SVC_PLUGIN_DATA_ROOT).\n`)
      const {status, json} = await runCliJson(args)
      assert.deepEqual([status, json.error.code, json.error.path], [3, 'data-root-not-found', root])
      assert.equal(existsSync(root), false, args.join(' '))
    }
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    assert.equal((await runCli(['list', '--data-root', root])).status, 0)
  })

  it('activate rolls back to an installed version; an unknown one exits 1 with version-not-installed', async () => {
    const root = dataRoot()
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    await must(['install', unsignedV2, ...base(root), '--allow-unsigned'])
    const rolled = await runCli(['activate', 'com.example.alpha', '1.0.0', '--data-root', root])
    assert.equal(rolled.status, 0, rolled.stderr)
    assert.equal(rolled.stdout, 'Activated com.example.alpha 1.0.0 (was 2.0.0)\n')
    const missing = await runCliJson(['activate', 'com.example.alpha', '9.0.0', '--data-root', root])
    assert.equal(missing.status, 1)
    assert.equal(missing.json.error.code, 'version-not-installed')
  })

  it('uninstall refuses while a dependent is installed (exit 1), then --force and --purge remove everything', async () => {
    const root = dataRoot()
    const dependent = await writeArtifact(path.join(dir, 'user.svcPlugin'), {id: 'com.example.user', manifest: {dependencies: [{id: 'com.example.alpha'}]}})
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    await must(['install', dependent, ...base(root), '--allow-unsigned'])
    const refused = await runCliJson(['uninstall', 'com.example.alpha', '--data-root', root])
    assert.equal(refused.status, 1)
    assert.equal(refused.json.error.code, 'dependency-in-use')
    assert.deepEqual(refused.json.error.dependents, ['com.example.user'])
    const forced = await runCliJson(['uninstall', 'com.example.alpha', '--data-root', root, '--force', '--purge'])
    assert.equal(forced.status, 0)
    assert.deepEqual(forced.json, {id: 'com.example.alpha', removedVersions: ['1.0.0'], previousVersion: '1.0.0', purged: true, dependents: ['com.example.user']})
    assert.deepEqual((await readdir(path.join(root, 'plugins'))).sort(), ['_staging', 'com.example.user'])
  })

  it('uninstall keeps data by default and says so; an unknown id exits 1, a malformed one exits 2', async () => {
    const root = dataRoot()
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    const kept = await runCli(['uninstall', 'com.example.alpha', '--data-root', root])
    assert.equal(kept.status, 0, kept.stderr)
    assert.equal(kept.stdout, 'Uninstalled com.example.alpha (1.0.0; data kept)\n')
    assert.equal((await runCli(['uninstall', 'com.example.alpha', '--data-root', root])).status, 1)
    const malformed = await runCliJson(['uninstall', '../escape', '--data-root', root])
    assert.equal(malformed.status, 2)
    assert.equal(malformed.json.error.code, 'invalid-argument')
  })
})

describe('svc-plugin verify --installed', () => {
  it('finds a fresh signed install valid, then reports a changed file with its code (exit 1)', async () => {
    const root = dataRoot()
    await must(['install', signedV1, ...base(root), '--trust', trustFile])
    const valid = await runCli(['verify', '--installed', 'com.example.beta', '--data-root', root, '--trust', trustFile])
    assert.equal(valid.status, 0, valid.stderr)
    assert.equal(valid.stdout, 'valid, com.example.beta 1.0.0 (Trusted)\n')
    await writeFile(path.join(root, 'plugins', 'com.example.beta', 'versions', '1.0.0', 'assets', 'readme.txt'), 'changed')
    const {status, json} = await runCliJson(['verify', '--installed', 'com.example.beta', '--version', '1.0.0', '--data-root', root, '--trust', trustFile])
    assert.equal(status, 1)
    assert.equal(json.valid, false)
    assert.equal(json.verdict, 'ContentMismatch')
    assert.deepEqual(json.problems.map((problem: {code: string; file: string | null}) => [problem.code, problem.file]), [['file-size-mismatch', 'assets/readme.txt']])
  })

  it('exits 1 with not-installed for an unknown plugin, and 3 with data-root-not-found for a data root that does not exist', async () => {
    const root = dataRoot()
    const missing = await runCliJson(['verify', '--installed', 'com.example.beta', '--data-root', root, '--trust', trustFile])
    assert.equal(missing.status, 3)
    assert.equal(missing.json.error.code, 'data-root-not-found')
    await mkdir(root)
    const {status, json} = await runCliJson(['verify', '--installed', 'com.example.beta', '--data-root', root, '--trust', trustFile])
    assert.equal(status, 1)
    assert.equal(json.error.code, 'not-installed')
  })

  it('exits 2 without an artifact or --installed, and for --installed without --data-root', async () => {
    assert.equal((await runCli(['verify', '--trust', trustFile])).status, 2)
    assert.equal((await runCli(['verify', '--installed', 'com.example.beta', '--trust', trustFile])).status, 2)
    assert.equal((await runCli(['verify', signedV1, '--version', '1.0.0', '--trust', trustFile])).status, 2)
  })
})

describe('install, activate and uninstall while another operation holds the plugin', () => {
  it('say once, after a second, what they wait for (the holder\'s process and host), then go on when it is given up', async () => {
    const root = dataRoot()
    await must(['install', unsignedV1, ...base(root), '--allow-unsigned'])
    const id = 'com.example.alpha'
    for (const args of [['activate', id, '1.0.0', '--data-root', root], ['install', unsignedV2, ...base(root), '--allow-unsigned'], ['uninstall', id, '--data-root', root]]) {
      // Held by this process, which runs: never stale. Given up after 1.5 s, past the notice.
      const lock = await acquireLock(path.join(root, 'plugins', id, '.lock'))
      const release = setTimeout(() => void lock.release(), 1500)
      try {
        const result = await runCli(args)
        assert.equal(result.status, 0, result.stderr)
        const notices = result.stderr.split('\n').filter((line) => line.startsWith('Waiting'))
        assert.deepEqual(notices, [`Waiting for another operation on ${id} to finish (process ${process.pid} on ${hostname()}); Ctrl-C stops waiting.`], args[0])
      } finally {
        clearTimeout(release)
        await lock.release()
      }
    }
  })
})
