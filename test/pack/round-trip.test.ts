import assert from 'node:assert/strict'
import {readFile, rm} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {pack, type PackResult} from '../../src/pack/pack.js'
import {copyExample, editManifest, exampleId, exampleVersion, listFiles, scratch, sha256Hex, unzipInto, writeTree} from './support.js'

const validSignature = {
  algorithm: 'ed25519',
  keyId: `cert_${'0'.repeat(32)}`,
  value: Buffer.alloc(64, 7).toString('base64'),
  signedAt: '2024-01-01T00:00:00Z',
}

describe('pack: the example plugin, packed and extracted with unzip', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let source: string
  let extracted: string
  let result: PackResult
  let sourceManifest: Record<string, any>
  let packedText: string
  let packed: Record<string, any>

  before(async () => {
    work = await scratch('round-trip')
    source = await copyExample(path.join(work.dir, 'source'))
    // Unknown properties at the top level (between known ones and at the end) and nested, an authored
    // files[] in the middle, and an authored signature and containerDigest: everything pack must keep, replace or drop.
    await editManifest(source, (manifest) => {
      const edited: Record<string, any> = {}
      for (const [key, value] of Object.entries(manifest)) {
        edited[key] = value
        if (key === 'name') edited['x-build'] = {pipeline: 'release', zeta: 1, alpha: [true, null, 'x']}
        if (key === 'icon') edited.files = [{path: 'stale.txt', sha256: `sha256:${'a'.repeat(64)}`, size: 3}]
      }
      edited.publisher['x-team'] = {lead: 'someone', b: 2, a: 1}
      edited.entrypoints['linux-x64']['x-note'] = 'built on CI'
      edited.signature = validSignature
      edited.containerDigest = `sha256:${'c'.repeat(64)}`
      edited.zzzUnknown = [{z: 1, a: 2}, 'tail']
      return edited
    })
    sourceManifest = JSON.parse(await readFile(path.join(source, 'manifest.json'), 'utf8'))
    result = await pack(source, {cwd: work.dir})
    extracted = path.join(work.dir, 'extracted')
    unzipInto(result.path, extracted)
    packedText = await readFile(path.join(extracted, 'manifest.json'), 'utf8')
    packed = JSON.parse(packedText)
  })
  after(async () => {
    await work.cleanup()
  })

  it('writes <id>-<version>.svcPlugin in the working directory', () => {
    assert.equal(result.path, path.join(work.dir, `${exampleId}-${exampleVersion}.svcPlugin`))
    assert.equal(result.id, exampleId)
    assert.equal(result.version, exampleVersion)
    assert.equal(result.dryRun, false)
  })

  it('extracts every source file byte-identical, and nothing else but manifest.json', async () => {
    const sourceFiles = (await listFiles(source)).filter((name) => name !== 'manifest.json')
    const extractedFiles = await listFiles(extracted)
    assert.deepEqual(extractedFiles, ['manifest.json', ...sourceFiles].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))))
    for (const name of sourceFiles) {
      const [original, copy] = await Promise.all([readFile(path.join(source, name)), readFile(path.join(extracted, name))])
      assert.ok(original.equals(copy), `${name} differs after the round trip`)
    }
  })

  it('lists files[] equal to an independent listing of the extracted files (sha256, size, sorted by path)', async () => {
    const names = (await listFiles(extracted)).filter((name) => name !== 'manifest.json')
    const expected = []
    for (const name of names) {
      const bytes = await readFile(path.join(extracted, name))
      expected.push({path: name, sha256: `sha256:${sha256Hex(bytes)}`, size: bytes.length})
    }
    assert.equal(expected.length, 8)
    assert.deepEqual(packed.files, expected)
  })

  it('replaces the authored files[] in place (stale.txt is gone)', () => {
    assert.ok(!packed.files.some((file: {path: string}) => file.path === 'stale.txt'))
    const keys = Object.keys(packed)
    assert.equal(keys.indexOf('files'), keys.indexOf('icon') + 1)
  })

  it('derives languages de, en, fr-FR from Localization/*.resx and warns languages-recomputed', () => {
    assert.deepEqual(sourceManifest.languages, ['en', 'de'])
    assert.deepEqual(packed.languages, ['de', 'en', 'fr-FR'])
    const warning = result.warnings.find((w) => w.code === 'languages-recomputed')
    assert.ok(warning, JSON.stringify(result.warnings))
    assert.equal(warning.severity, 'warning')
    assert.equal(warning.pointer, '/languages')
  })

  it('drops the authored signature, with a generated-field-authored warning at /signature', () => {
    assert.equal('signature' in packed, false)
    assert.doesNotMatch(packedText, /"signature"/)
    const warning = result.warnings.find((w) => w.code === 'generated-field-authored' && w.pointer === '/signature')
    assert.ok(warning, JSON.stringify(result.warnings))
    assert.equal(warning.severity, 'warning')
    assert.ok(result.warnings.some((w) => w.code === 'generated-field-authored' && w.pointer === '/files'))
  })

  it('drops the authored containerDigest, with a generated-field-authored warning at /containerDigest', () => {
    assert.equal('containerDigest' in packed, false)
    assert.doesNotMatch(packedText, /"containerDigest"/)
    const warning = result.warnings.find((w) => w.code === 'generated-field-authored' && w.pointer === '/containerDigest')
    assert.ok(warning, JSON.stringify(result.warnings))
    assert.equal(warning.severity, 'warning')
    assert.match(warning.message, /^containerDigest is written by svc-plugin sign; pack drops the authored value/)
  })

  it('keeps every other property, unknown ones included, in the source order', () => {
    const expectedKeys = Object.keys(sourceManifest).filter((key) => key !== 'signature' && key !== 'containerDigest')
    assert.deepEqual(Object.keys(packed), expectedKeys)
    assert.deepEqual(Object.keys(packed).slice(0, 6), ['$schema', 'manifestVersion', 'id', 'name', 'x-build', 'version'])
    assert.equal(Object.keys(packed).at(-1), 'zzzUnknown')
    for (const key of expectedKeys) {
      if (key === 'files' || key === 'languages') continue
      assert.deepEqual(packed[key], sourceManifest[key], key)
    }
    assert.deepEqual(Object.keys(packed['x-build']), ['pipeline', 'zeta', 'alpha'])
    assert.deepEqual(Object.keys(packed.publisher), ['name', 'id', 'email', 'url', 'x-team'])
    assert.deepEqual(Object.keys(packed.publisher['x-team']), ['lead', 'b', 'a'])
    assert.equal(packed.entrypoints['linux-x64']['x-note'], 'built on CI')
    assert.deepEqual(Object.keys(packed.zzzUnknown[0]), ['z', 'a'])
  })

  it('is indented with 2 spaces and ends with exactly one \\n', () => {
    assert.equal(packedText, `${JSON.stringify(packed, null, 2)}\n`)
    assert.ok(packedText.startsWith('{\n  "$schema": '))
    assert.ok(packedText.endsWith('}\n') && !packedText.endsWith('\n\n'))
  })

  it('returns the packed manifest bytes and per-file digests it wrote', () => {
    assert.equal(Buffer.from(result.manifest).toString('utf8'), packedText)
    for (const file of packed.files as {path: string; sha256: string; size: number}[]) {
      assert.deepEqual(result.digests.get(file.path), {size: file.size, sha256: file.sha256})
    }
    assert.equal(result.entries, 9)
    assert.equal(result.uncompressedBytes, Buffer.byteLength(packedText) + packed.files.reduce((sum: number, file: {size: number}) => sum + file.size, 0))
  })
})

describe('pack: languages when Localization/ yields nothing', () => {
  it('keeps the declared list and does not warn languages-recomputed', async () => {
    const work = await scratch('languages')
    try {
      const source = await copyExample(path.join(work.dir, 'source'))
      await rm(path.join(source, 'Localization'), {recursive: true})
      const result = await pack(source, {cwd: work.dir, dryRun: true})
      const manifest = JSON.parse(Buffer.from(result.manifest).toString('utf8'))
      assert.deepEqual(manifest.languages, ['en', 'de'])
      assert.equal(result.warnings.some((w) => w.code === 'languages-recomputed'), false)
    } finally {
      await work.cleanup()
    }
  })

  it('adds derived languages without a warning when none were declared', async () => {
    const work = await scratch('languages')
    try {
      const source = await copyExample(path.join(work.dir, 'source'))
      await editManifest(source, (manifest) => {
        delete manifest.languages
      })
      await writeTree(source, {'Localization/Nested/Extra.ja.resx': '<root/>'})
      const result = await pack(source, {cwd: work.dir, dryRun: true})
      const manifest = JSON.parse(Buffer.from(result.manifest).toString('utf8'))
      assert.deepEqual(manifest.languages, ['de', 'en', 'fr-FR', 'ja'])
      assert.deepEqual(Object.keys(manifest).slice(-2), ['languages', 'files'])
      assert.equal(result.warnings.some((w) => w.code === 'languages-recomputed'), false)
    } finally {
      await work.cleanup()
    }
  })
})
