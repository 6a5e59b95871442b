import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {openArtifact} from '../src/artifact/open.js'
import {isSvcPluginError} from '../src/errors.js'
import {install} from '../src/install/install.js'
import {validateManifest} from '../src/manifest/validate.js'
import {pack} from '../src/pack/pack.js'
import {readCertificateFiles} from '../src/pki/certificate-files.js'
import {readPrivateKeyFile, readPublicKeyFile} from '../src/pki/keys.js'
import {createRoot, readTrustStore} from '../src/pki/trust.js'
import {readRevocationList} from '../src/revocation/files.js'
import {validatePath} from '../src/validate/validate-path.js'
import {runCliJson, spawnCli, tempDir} from './helpers/cli.js'
import {writeArtifact} from './install/helpers/artifacts.js'

/** Rejects with a SvcPluginError of `code` (and at once: a reader that waits on a FIFO never settles, and the test times out). */
async function refusedWith(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isSvcPluginError(error), `not a typed refusal: ${String(error)}`)
    assert.equal(error.code, code, error.message)
    return true
  })
}

describe('a FIFO (or any non-regular file) given where a file belongs is refused at once, never waited on', {timeout: 20_000}, () => {
  let dir: string
  let cleanup: () => Promise<void>
  let fifo: string
  before(async () => {
    ;({dir, cleanup} = await tempDir('svc-plugin-fifo-'))
    fifo = path.join(dir, 'input.fifo')
    execFileSync('mkfifo', [fifo])
  })
  after(async () => cleanup())

  it('as a manifest: unreadable', async () => {
    await refusedWith(validatePath({manifest: fifo}), 'unreadable')
    await refusedWith(validatePath({path: fifo}), 'unreadable')
  })
  it('as an artifact: not-an-artifact', async () => {
    await refusedWith(openArtifact(fifo), 'not-an-artifact')
    await refusedWith(install(fifo, {dataRoot: path.join(dir, 'data'), allowUnsigned: true}), 'not-an-artifact')
  })
  it('as a key: key-unreadable', async () => {
    await refusedWith(readPrivateKeyFile(fifo), 'key-unreadable')
    await refusedWith(readPublicKeyFile(fifo), 'key-unreadable')
  })
  it('as a certificate: certificate-unreadable', async () => {
    await refusedWith(readCertificateFiles(fifo, fifo), 'certificate-unreadable')
  })
  it('as a trust store: trust-store-unreadable', async () => {
    await refusedWith(readTrustStore(fifo), 'trust-store-unreadable')
  })
  it('as a revocation list: revocation-list-unreadable', async () => {
    await refusedWith(readRevocationList(fifo), 'revocation-list-unreadable')
  })
  it('as the manifest.json or .svcpluginignore of a folder to pack: not-a-regular-file', async () => {
    const source = path.join(dir, 'plugin')
    await mkdir(source)
    execFileSync('mkfifo', [path.join(source, 'manifest.json')])
    await refusedWith(pack(source, {dryRun: true}), 'not-a-regular-file')
  })
  it('as a character device: refused the same way', async () => {
    await refusedWith(readTrustStore('/dev/zero'), 'trust-store-unreadable')
    await refusedWith(openArtifact('/dev/zero'), 'not-an-artifact')
  })
  it('ends the command at once with exit 3 and one error line', async () => {
    const result = await spawnCli(['validate', fifo])
    assert.equal(result.status, 3)
    assert.match(result.stderr, /^error unreadable: .*input\.fifo is a FIFO \(named pipe\), not a regular file\.\n$/)
  })
  it('ends validate --artifact, install and store verify given it as the artifact at once with exit 3', async () => {
    const trust = path.join(dir, 'trust.json')
    await writeFile(trust, `${JSON.stringify(createRoot('root_fifo').trustStore)}\n`)
    const commands = [
      ['validate', '--artifact', fifo],
      ['install', fifo, '--data-root', path.join(dir, 'data'), '--allow-unsigned'],
      ['store', 'verify', fifo, '--trust', trust, '--account-name', 'Example Labs', '--json'],
    ]
    for (const args of commands) {
      // A child that waited on the FIFO would be killed here, and fail the test by its signal.
      const result = await spawnCli(args, {timeout: 10_000})
      assert.equal(result.signal, null, `svc-plugin ${args.join(' ')} did not end by itself`)
      assert.equal(result.status, 3, `${args.join(' ')}: ${result.stderr}`)
    }
    // A FIFO where the upload should be is the store's own fault, not the upload's: an error, not a report.
    const store = await spawnCli(commands[2] as string[], {timeout: 10_000})
    const failure = JSON.parse(store.stdout) as {error: {code: string; reason: string}}
    assert.deepEqual([failure.error.code, failure.error.reason], ['not-an-artifact', 'not-a-file'])
  })
})

describe('a dependency that throws on hostile input never crashes a caller', () => {
  // A member named like a built-in made the schema library call it as a function (TypeError).
  const hostile = (member: string) =>
    `{"manifestVersion": 1, "id": "com.example.alpha", "name": "A", "version": "1.0.0", "entrypoints": {"linux-x64": {"executable": "runtimes/linux-x64/alpha"}}, "languages": [{"${member}": 1}, {"${member}": 1}]}`

  for (const member of ['valueOf', 'toString', 'constructor', 'hasOwnProperty', '__proto__']) {
    it(`validates languages of objects with a "${member}" member into a report, at every level`, () => {
      for (const level of ['development', 'package', 'publication'] as const) {
        const report = validateManifest(hostile(member), {level})
        assert.equal(report.valid, false)
        assert.ok(report.problems.every((problem) => typeof problem.code === 'string'))
      }
    })
  }

  it('judges such an artifact with a typed code from validate --artifact, install and store verify: exit 1, never 70', async () => {
    const {dir, cleanup} = await tempDir('svc-plugin-hostile-cli-')
    try {
      const artifact = await writeArtifact(path.join(dir, 'hostile.svcPlugin'), {manifest: JSON.parse(hostile('valueOf')) as Record<string, unknown>})
      const trust = path.join(dir, 'trust.json')
      await writeFile(trust, `${JSON.stringify(createRoot('root_hostile').trustStore)}\n`)
      const validated = await runCliJson(['validate', '--artifact', artifact])
      assert.equal(validated.status, 1, validated.stderr)
      assert.ok(validated.json.problems.some((problem: {code: string}) => problem.code === 'malformed'), validated.stdout)
      const installed = await runCliJson(['install', artifact, '--data-root', path.join(dir, 'data'), '--allow-unsigned', '--rid', 'linux-x64'])
      assert.equal(installed.status, 1, installed.stderr)
      assert.equal(installed.json.error.code, 'manifest-invalid')
      const stored = await runCliJson(['store', 'verify', artifact, '--trust', trust, '--account-name', 'Example Labs', '--account-id', 'com.example'])
      assert.equal(stored.status, 1, stored.stderr)
      assert.equal(stored.json.accepted, false)
      assert.ok(stored.json.problems.some((problem: {code: string}) => problem.code === 'malformed'), stored.stdout)
    } finally {
      await cleanup()
    }
  })

  it('refuses to install such an artifact with manifest-invalid, a typed refusal', async () => {
    const {dir, cleanup} = await tempDir('svc-plugin-hostile-')
    try {
      const manifest = JSON.parse(hostile('valueOf')) as Record<string, unknown>
      const artifact = await writeArtifact(path.join(dir, 'hostile.svcPlugin'), {manifest})
      await refusedWith(install(artifact, {dataRoot: path.join(dir, 'data'), allowUnsigned: true, hostRid: 'linux-x64'}), 'manifest-invalid')
    } finally {
      await cleanup()
    }
  })
})

describe('unknown members survive intact: no key is special', () => {
  it('keeps a top-level "__proto__" member of the source manifest in the packed manifest', async () => {
    const {dir, cleanup} = await tempDir('svc-plugin-proto-')
    try {
      const source = path.join(dir, 'plugin')
      await mkdir(path.join(source, 'bin'), {recursive: true})
      await writeFile(path.join(source, 'bin', 'tool'), 'ELF')
      await writeFile(
        path.join(source, 'manifest.json'),
        '{"manifestVersion": 1, "id": "com.example.proto", "name": "P", "version": "1.0.0", "entrypoints": {"linux-x64": {"executable": "bin/tool"}}, "__proto__": {"polluted": true}, "x-custom": {"__proto__": 1}}\n',
      )
      const result = await pack(source, {dryRun: true})
      const text = Buffer.from(result.manifest).toString('utf8')
      assert.match(text, /"__proto__": \{\n {4}"polluted": true\n {2}\}/)
      assert.match(text, /"x-custom": \{\n {4}"__proto__": 1\n {2}\}/)
      assert.equal(({} as Record<string, unknown>).polluted, undefined)
    } finally {
      await cleanup()
    }
  })
})
