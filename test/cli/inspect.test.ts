import assert from 'node:assert/strict'
import {mkdir, readFile, stat, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {inspect} from '../../src/inspect/inspect.js'
import {formatMiB} from '../../src/quantities.js'
import {pack} from '../../src/pack/pack.js'
import {runCli, runCliJson, spawnCli, tempDir, type CliResult} from '../helpers/cli.js'
import {makeWorkspace} from '../helpers/workspace.js'
import {describedManifest, describedPayload, signatureCases} from '../inspect/support.js'
import {copyExample, exampleId, writeArtifact} from '../pack/support.js'
import {joinZip, splitZip} from '../helpers/zip-splice.js'

/** The value printed after `label:` in inspect's text output. */
function field(stdout: string, label: string): string | undefined {
  const line = stdout.split('\n').find((text) => text.startsWith(`${label}:`))
  return line?.slice(16)
}

describe('svc-plugin inspect', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let example: string
  let exampleSource: string
  let described: string
  before(async () => {
    scratch = await tempDir('svc-plugin-cli-inspect-')
    exampleSource = await copyExample(path.join(scratch.dir, 'example'))
    example = (await pack(exampleSource, {output: path.join(scratch.dir, 'example.svcPlugin')})).path
    described = path.join(scratch.dir, 'described.svcPlugin')
    await writeArtifact(described, describedManifest(), describedPayload)
  })
  after(async () => {
    await scratch.cleanup()
  })

  describe('the packed example plugin, as text', () => {
    let result: CliResult
    before(async () => {
      result = await runCli(['inspect', example])
    })

    it('exits 0 with the description on stdout only', () => {
      assert.equal(result.status, 0, result.stderr)
      assert.equal(result.stderr, '')
    })

    it('prints identity, entrypoints by RID, permissions, languages, relations and compatibility', () => {
      const {stdout} = result
      assert.equal(field(stdout, 'id'), exampleId)
      assert.equal(field(stdout, 'version'), '1.4.2')
      assert.equal(field(stdout, 'name'), 'Weather Station')
      assert.equal(field(stdout, 'description'), 'Shows the local weather on a key and refreshes it every few minutes.')
      const entrypoints = stdout.split('\n').filter((line) => line.startsWith('  '))
      assert.deepEqual(entrypoints, [
        '  linux-x64     runtimes/linux-x64/weather-station "--log-level" "info" [SelfContained] present',
        '  osx-arm64     runtimes/osx-arm64/weather-station "--log-level" "info" [SelfContained] present',
        '  win-x64       runtimes/win-x64/WeatherStation.exe "--log-level" "info" [SelfContained] present',
      ])
      assert.equal(field(stdout, 'permissions'), 'host:variables, events:publish, net:outbound')
      assert.equal(field(stdout, 'languages'), 'de, en, fr-FR')
      assert.equal(field(stdout, 'dependencies'), '(none)')
      assert.equal(field(stdout, 'conflicts'), '(none)')
      assert.equal(field(stdout, 'icon packs'), '(none)')
      assert.equal(field(stdout, 'compatibility'), '{"sdk":">=2.0.0, <3.0.0","protocol":{"minimum":1,"maximum":3},"svc":">=1.0.0"}')
      assert.equal(field(stdout, 'signature'), 'not signed')
    })

    it('prints entry count, uncompressed bytes, archive bytes and ratio', async () => {
      const {stdout} = result
      const archiveBytes = (await stat(example)).size
      const library = await inspect(example)
      assert.equal(field(stdout, 'entries'), '9')
      assert.equal(field(stdout, 'uncompressed'), formatMiB(library.uncompressedBytes))
      assert.equal(field(stdout, 'archive'), formatMiB(archiveBytes))
      assert.equal(field(stdout, 'ratio'), (library.uncompressedBytes / archiveBytes).toFixed(2))
    })
  })

  it('prints the library result with --json', async () => {
    const result = await runCliJson(['inspect', example])
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(result.json, JSON.parse(JSON.stringify(await inspect(example))))
    assert.equal(result.json.subject.kind, 'artifact')
    assert.equal(result.json.entries, 9)
    assert.ok(result.json.entrypoints.every((entry: {present: boolean}) => entry.present))
  })

  describe('an artifact with a missing executable and an unknown permission', () => {
    it('marks them in the text output', async () => {
      const result = await runCli(['inspect', described])
      assert.equal(result.status, 0, result.stderr)
      const entrypoints = result.stdout.split('\n').filter((line) => line.startsWith('  '))
      assert.deepEqual(entrypoints, [
        '  linux-x64     runtimes/linux-x64/described [SelfContained] present',
        '  osx-arm64     runtimes/osx-arm64/described [SelfContained] MISSING',
        '  win-x64       runtimes/win-x64/Described.dll "--mode" "full" [FrameworkDependent 8.0] present',
      ])
      assert.equal(field(result.stdout, 'permissions'), 'host:variables, telepathy:read (unknown)')
      assert.equal(field(result.stdout, 'languages'), 'en, pt-BR')
      assert.equal(field(result.stdout, 'dependencies'), 'com.example.base >=1.0.0, com.example.extra * (optional)')
      assert.equal(field(result.stdout, 'conflicts'), 'com.example.rival <2.0.0')
      assert.equal(field(result.stdout, 'icon packs'), 'com.example.icons *')
      assert.equal(field(result.stdout, 'compatibility'), '{"sdk":">=2.0.0","protocol":{"minimum":1,"maximum":2}}')
    })

    it('marks them in --json', async () => {
      const result = await runCliJson(['inspect', described])
      assert.equal(result.status, 0)
      assert.deepEqual(
        result.json.entrypoints.map((entry: {rid: string; present: boolean}) => [entry.rid, entry.present]),
        [
          ['linux-x64', true],
          ['osx-arm64', false],
          ['win-x64', true],
        ],
      )
      assert.deepEqual(result.json.permissions, [
        {name: 'host:variables', known: true},
        {name: 'telepathy:read', known: false},
      ])
      assert.deepEqual(result.json.entrypoints[2].runtime, {kind: 'FrameworkDependent', dotnetVersion: '8.0'})
      assert.deepEqual(result.json.entrypoints[2].arguments, ['--mode', 'full'])
    })
  })

  describe('the signature, as data in JSON and as a sentence in text', () => {
    for (const [index, {shape, signature}] of signatureCases.entries()) {
      it(`${shape ?? 'none'}`, async () => {
        const file = path.join(scratch.dir, `signature-${index}.svcPlugin`)
        await writeArtifact(file, describedManifest(signature === undefined ? {} : {signature}), describedPayload)
        const text = await runCli(['inspect', file])
        assert.equal(text.status, 0, text.stderr)
        const json = await runCliJson(['inspect', file])
        if (signature === undefined) {
          assert.equal(field(text.stdout, 'signature'), 'not signed')
          assert.equal(json.json.signature, null)
          return
        }
        assert.deepEqual(json.json.signature, {algorithm: signature.algorithm, keyId: signature.keyId, certificateId: null, signedAt: signature.signedAt, shape})
        assert.ok(field(text.stdout, 'signature')?.startsWith(`${signature.algorithm} by ${signature.keyId} (no certificate), signed ${signature.signedAt}; `))
      })
    }

    it('of an artifact signed by the real commands: the certificate it carries, whose id the signature names', async () => {
      const workspace = await makeWorkspace('svc-plugin-inspect-signed-')
      try {
        const certificateId = (JSON.parse(await readFile(workspace.certificate, 'utf8')) as {certificateId: string}).certificateId
        const json = await runCliJson(['inspect', workspace.signed])
        assert.equal(json.status, 0, json.stderr)
        const {signedAt} = json.json.signature as {signedAt: string}
        assert.match(signedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
        assert.deepEqual(json.json.signature, {algorithm: 'ed25519', keyId: certificateId, certificateId, signedAt, shape: 'well-formed'})
        const text = await runCli(['inspect', workspace.signed])
        assert.equal(field(text.stdout, 'signature'), `ed25519 by ${certificateId} (certificate ${certificateId}), signed ${signedAt}; well-formed, not verified (svc-plugin verify checks it)`)
      } finally {
        await workspace.cleanup()
      }
    })
  })

  it('describes a plugin folder without archive sizes', async () => {
    const json = await runCliJson(['inspect', exampleSource])
    assert.equal(json.status, 0, json.stderr)
    assert.deepEqual(json.json.subject, {kind: 'directory', path: exampleSource})
    assert.equal(json.json.archiveBytes, null)
    assert.equal(json.json.compressionRatio, null)
    assert.deepEqual(json.json.languages, ['en', 'de'])
    const text = await runCli(['inspect', exampleSource])
    assert.equal(text.status, 0)
    assert.equal(field(text.stdout, 'archive'), undefined)
    assert.equal(field(text.stdout, 'ratio'), undefined)
    assert.equal(field(text.stdout, 'entries'), '9')
  })

  it('exits 0 and describes a manifest invalid at development level', async () => {
    const file = path.join(scratch.dir, 'invalid.svcPlugin')
    await writeArtifact(file, describedManifest({id: 'Not Valid', version: '01.0.0'}), describedPayload)
    const result = await runCliJson(['inspect', file])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.json.id, 'Not Valid')
    assert.equal(result.json.version, '01.0.0')
  })

  it('exits 1 with manifest-malformed for a manifest that is not JSON', async () => {
    const file = path.join(scratch.dir, 'not-json.svcPlugin')
    await writeArtifact(file, 'manifestVersion: 1\n')
    const result = await runCli(['inspect', file])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error manifest-malformed: .*manifest\.json cannot be read: /m)
    assert.equal(result.stdout, '')
    const json = await runCliJson(['inspect', file])
    assert.equal(json.status, 1)
    assert.equal(json.json.error.code, 'manifest-malformed')
  })

  it('reads the manifest, not the other entries: exits 0 for an entry whose CRC is wrong, which --show-digest and validate --artifact refuse', async () => {
    const records = splitZip(await readFile(example))
    const damaged = records.find((record) => record.name.toString() === 'README.md')!
    damaged.centralFixed.writeUInt32LE((damaged.centralFixed.readUInt32LE(16) + 1) >>> 0, 16)
    damaged.localFixed.writeUInt32LE((damaged.localFixed.readUInt32LE(14) + 1) >>> 0, 14)
    const file = path.join(scratch.dir, 'damaged-entry.svcPlugin')
    await writeFile(file, joinZip(records))
    const described = await runCli(['inspect', file])
    assert.equal(described.status, 0, described.stderr)
    assert.match(described.stdout, /present/)
    for (const args of [['inspect', file, '--show-digest'], ['validate', '--artifact', file]]) {
      const refused = await runCli(args)
      assert.equal(refused.status, 1, args.join(' '))
      assert.match(`${refused.stdout}${refused.stderr}`, /archive-malformed: .*README\.md.*CRC-32/, args.join(' '))
    }
  })

  it('exits 3 for a file that is not a ZIP', async () => {
    const file = path.join(scratch.dir, 'plain.svcPlugin')
    await writeFile(file, 'not a zip at all\n')
    const result = await runCli(['inspect', file])
    assert.equal(result.status, 3)
    assert.match(result.stderr, /^error not-an-artifact: /m)
    assert.equal(result.stdout, '')
  })

  it('exits 3 for a missing path', async () => {
    const result = await runCli(['inspect', path.join(scratch.dir, 'nothing-here.svcPlugin')])
    assert.equal(result.status, 3)
    assert.match(result.stderr, /^error file-not-found: /m)
  })

  it('exits 1 with manifest-missing for a folder without manifest.json', async () => {
    const folder = path.join(scratch.dir, 'empty-folder')
    await mkdir(folder)
    const result = await runCli(['inspect', folder])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error manifest-missing: /m)
  })

  it('exits 2 without a subject', async () => {
    const result = await runCli(['inspect'])
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error usage: /m)
  })

  it('--help lists every flag', async () => {
    const result = await spawnCli(['inspect', '--help'])
    assert.equal(result.status, 0)
    for (const flag of ['--json', '-q, --quiet', '--no-color']) assert.ok(result.stdout.includes(flag), flag)
    assert.match(result.stdout, /SUBJECT/)
  })
})
