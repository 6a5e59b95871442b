import assert from 'node:assert/strict'
import {stat, unlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {ArchiveError} from '../../src/archive/errors.js'
import {writeArchive} from '../../src/archive/writer.js'
import {inspect, InspectError, signatureFacts, type Inspection} from '../../src/inspect/inspect.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {pack, type PackResult} from '../../src/pack/pack.js'
import {copyExample, exampleId, exampleVersion, pythonZipInfo, rejectionOf, scratch, writeArtifact} from '../pack/support.js'
import {describedManifest, describedPayload, signatureCases} from './support.js'

describe('inspect', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let packed: PackResult
  let source: string
  before(async () => {
    work = await scratch('inspect')
    source = await copyExample(path.join(work.dir, 'source'))
    packed = await pack(source, {output: path.join(work.dir, 'example.svcPlugin')})
  })
  after(async () => {
    await work.cleanup()
  })

  describe('the packed example plugin', () => {
    let inspection: Inspection
    before(async () => {
      inspection = await inspect(packed.path)
    })

    it('names the artifact and its identity', () => {
      assert.deepEqual(inspection.subject, {kind: 'artifact', path: packed.path})
      assert.equal(inspection.id, exampleId)
      assert.equal(inspection.version, exampleVersion)
      assert.equal(inspection.name, 'Weather Station')
      assert.equal(inspection.description, 'Shows the local weather on a key and refreshes it every few minutes.')
    })

    it('lists every entrypoint by RID, with arguments, runtime and present: true', () => {
      assert.deepEqual(inspection.entrypoints, [
        {rid: 'linux-x64', executable: 'runtimes/linux-x64/weather-station', arguments: ['--log-level', 'info'], runtime: {kind: 'SelfContained'}, present: true},
        {rid: 'osx-arm64', executable: 'runtimes/osx-arm64/weather-station', arguments: ['--log-level', 'info'], runtime: {kind: 'SelfContained'}, present: true},
        {rid: 'win-x64', executable: 'runtimes/win-x64/WeatherStation.exe', arguments: ['--log-level', 'info'], runtime: {kind: 'SelfContained'}, present: true},
      ])
    })

    it('lists permissions, the packed languages and the compatibility block', () => {
      assert.deepEqual(inspection.permissions, [
        {name: 'host:variables', known: true},
        {name: 'events:publish', known: true},
        {name: 'net:outbound', known: true},
      ])
      assert.deepEqual(inspection.languages, ['de', 'en', 'fr-FR'])
      assert.deepEqual(inspection.dependencies, [])
      assert.deepEqual(inspection.conflicts, [])
      assert.deepEqual(inspection.iconPacks, [])
      assert.deepEqual(inspection.compatibility, {sdk: '>=2.0.0, <3.0.0', protocol: {minimum: 1, maximum: 3}, svc: '>=1.0.0'})
      assert.equal(inspection.signature, null)
    })

    it('counts entries, uncompressed bytes, archive bytes and the ratio', async () => {
      const zip = pythonZipInfo(packed.path)
      const uncompressed = zip.entries.reduce((sum, entry) => sum + entry.size, 0)
      const archiveBytes = (await stat(packed.path)).size
      assert.equal(inspection.entries, 9)
      assert.equal(inspection.entries, zip.entries.length)
      assert.equal(inspection.uncompressedBytes, uncompressed)
      assert.equal(inspection.uncompressedBytes, packed.uncompressedBytes)
      assert.equal(inspection.archiveBytes, archiveBytes)
      assert.equal(inspection.compressionRatio, Math.round((uncompressed / archiveBytes) * 100) / 100)
    })
  })

  describe('an artifact declaring every described field', () => {
    let inspection: Inspection
    before(async () => {
      const file = path.join(work.dir, 'described.svcPlugin')
      await writeArtifact(file, describedManifest(), describedPayload)
      inspection = await inspect(file)
    })

    it('sorts entrypoints by RID, keeps arguments and runtime, and marks a missing executable present: false', () => {
      assert.deepEqual(inspection.entrypoints, [
        {rid: 'linux-x64', executable: 'runtimes/linux-x64/described', arguments: [], runtime: {kind: 'SelfContained'}, present: true},
        {rid: 'osx-arm64', executable: 'runtimes/osx-arm64/described', arguments: [], runtime: {kind: 'SelfContained'}, present: false},
        {
          rid: 'win-x64',
          executable: 'runtimes/win-x64/Described.dll',
          arguments: ['--mode', 'full'],
          runtime: {kind: 'FrameworkDependent', dotnetVersion: '8.0'},
          present: true,
        },
      ])
    })

    it('marks an unknown permission known: false', () => {
      assert.deepEqual(inspection.permissions, [
        {name: 'host:variables', known: true},
        {name: 'telepathy:read', known: false},
      ])
    })

    it('lists languages, dependencies, conflicts, icon packs and compatibility as declared', () => {
      assert.deepEqual(inspection.languages, ['en', 'pt-BR'])
      assert.deepEqual(inspection.dependencies, [{id: 'com.example.base', versionRange: '>=1.0.0'}, {id: 'com.example.extra', optional: true}])
      assert.deepEqual(inspection.conflicts, [{id: 'com.example.rival', versionRange: '<2.0.0'}])
      assert.deepEqual(inspection.iconPacks, [{id: 'com.example.icons'}])
      assert.deepEqual(inspection.compatibility, {sdk: '>=2.0.0', protocol: {minimum: 1, maximum: 2}})
      assert.equal(inspection.version, '2.0.0-beta.1')
      assert.equal(inspection.entries, 3)
    })
  })

  describe('the signature, as data (never verified)', () => {
    for (const {shape, signature} of signatureCases) {
      it(`reports ${shape === null ? 'none' : `the shape "${shape}"`} with the block's members as they are`, async () => {
        const file = path.join(work.dir, `signature-${signatureCases.findIndex((c) => c.shape === shape)}.svcPlugin`)
        await writeArtifact(file, describedManifest(signature === undefined ? {} : {signature}), describedPayload)
        const inspection = await inspect(file)
        const expected = signature === undefined ? null : {algorithm: signature.algorithm, keyId: signature.keyId, certificateId: null, signedAt: signature.signedAt, shape}
        assert.deepEqual(inspection.signature, expected)
      })
    }

    it('judges the value by its decoded length: 64 bytes is well-formed, 65 is not; members that are not text are null', () => {
      const block = (bytes: number) => ({algorithm: 'ed25519', value: Buffer.alloc(bytes, 1).toString('base64')})
      assert.equal(signatureFacts(block(64))?.shape, 'well-formed')
      assert.equal(signatureFacts(block(65))?.shape, 'invalid-length')
      assert.deepEqual(signatureFacts({algorithm: 'ed25519', value: 'not base64!', keyId: 7}), {algorithm: 'ed25519', keyId: null, certificateId: null, signedAt: null, shape: 'invalid-length'})
      assert.equal(signatureFacts(null), null)
    })
  })

  describe('a plugin folder', () => {
    it('is described from its manifest and files, without archive sizes', async () => {
      const inspection = await inspect(source)
      assert.deepEqual(inspection.subject, {kind: 'directory', path: source})
      assert.equal(inspection.id, exampleId)
      // The folder's declared languages: nothing is derived by inspect.
      assert.deepEqual(inspection.languages, ['en', 'de'])
      assert.ok(inspection.entrypoints.every((entry) => entry.present))
      assert.equal(inspection.entries, 9)
      assert.equal(inspection.uncompressedBytes, 236 + 233 + 229 + 226 + 94 + 261 + 261 + 2155 + (await stat(path.join(source, 'manifest.json'))).size)
      assert.equal(inspection.archiveBytes, null)
      assert.equal(inspection.compressionRatio, null)
    })

    it('marks an executable missing from the folder present: false', async () => {
      const folder = await copyExample(path.join(work.dir, 'folder-missing'))
      await unlink(path.join(folder, 'runtimes', 'win-x64', 'WeatherStation.exe'))
      const inspection = await inspect(folder)
      assert.deepEqual(
        inspection.entrypoints.map((entry) => [entry.rid, entry.present]),
        [
          ['linux-x64', true],
          ['osx-arm64', true],
          ['win-x64', false],
        ],
      )
    })
  })

  describe('subjects it cannot fully judge', () => {
    it('still describes a manifest that is invalid at development level', async () => {
      const file = path.join(work.dir, 'invalid.svcPlugin')
      const manifest = describedManifest({id: 'Not A Valid Id', version: 'v1', permissions: ['x', 'x'], entrypoints: {}})
      assert.equal(validateManifest(JSON.stringify(manifest), {level: 'development'}).valid, false)
      await writeArtifact(file, manifest, describedPayload)
      const inspection = await inspect(file)
      assert.equal(inspection.id, 'Not A Valid Id')
      assert.equal(inspection.version, 'v1')
      assert.deepEqual(inspection.entrypoints, [])
      assert.deepEqual(inspection.permissions, [
        {name: 'x', known: false},
        {name: 'x', known: false},
      ])
    })

    it('describes a manifest with fields of the wrong types without throwing', async () => {
      const file = path.join(work.dir, 'wrong-types.svcPlugin')
      await writeArtifact(file, {manifestVersion: 1, id: 7, entrypoints: {'linux-x64': 'nope'}, permissions: 'all', languages: null, signature: 'yes'})
      const inspection = await inspect(file)
      assert.equal(inspection.id, 7)
      assert.equal(inspection.name, null)
      assert.deepEqual(inspection.entrypoints, [{rid: 'linux-x64', executable: null, arguments: [], runtime: {kind: 'SelfContained'}, present: false}])
      assert.deepEqual(inspection.permissions, [])
      assert.deepEqual(inspection.languages, [])
      assert.deepEqual(inspection.signature, {algorithm: null, keyId: null, certificateId: null, signedAt: null, shape: 'unrecognized-algorithm'})
    })

    it('is manifest-malformed for a manifest that is not JSON, with its position', async () => {
      const file = path.join(work.dir, 'not-json.svcPlugin')
      await writeArtifact(file, '{"id": "com.example.x",\n  oops\n}\n')
      const error = await rejectionOf(inspect(file))
      assert.ok(error instanceof InspectError)
      assert.equal(error.code, 'manifest-malformed')
      assert.equal(error.details.line, 2)
      assert.match(error.message, /line 2, column 3/)
      assert.doesNotMatch(error.message, /line 2, column 3.*line 2, column 3/)
    })

    it('is manifest-malformed for a manifest that is a JSON array', async () => {
      const file = path.join(work.dir, 'array.svcPlugin')
      await writeArtifact(file, '[1, 2]\n')
      const error = await rejectionOf(inspect(file))
      assert.equal(error.code, 'manifest-malformed')
    })

    it('is manifest-missing for an artifact without manifest.json', async () => {
      const file = path.join(work.dir, 'no-manifest.zip')
      await writeArchive(file, [{name: 'README.md', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('hello\n')}}])
      const error = await rejectionOf(inspect(file))
      assert.ok(error instanceof InspectError)
      assert.equal(error.code, 'manifest-missing')
    })

    it('is manifest-missing for a folder without manifest.json', async () => {
      const error = await rejectionOf(inspect(work.dir))
      assert.equal(error.code, 'manifest-missing')
    })

    it('is not-an-artifact (ArchiveError) for a file that is not a ZIP', async () => {
      const file = path.join(work.dir, 'text.svcPlugin')
      await writeFile(file, 'just some text, no ZIP here\n')
      const error = await rejectionOf(inspect(file))
      assert.ok(error instanceof ArchiveError)
      assert.equal(error.code, 'not-an-artifact')
    })

    it('is file-not-found for a missing path', async () => {
      const missing = path.join(work.dir, 'missing.svcPlugin')
      const error = await rejectionOf(inspect(missing))
      assert.ok(error instanceof InspectError)
      assert.equal(error.code, 'file-not-found')
      assert.equal(error.details.path, missing)
    })
  })
})
