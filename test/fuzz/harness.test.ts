import assert from 'node:assert/strict'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {openArchive} from '../../src/archive/reader.js'
import {ArchiveError} from '../../src/archive/errors.js'
import type {ValidationReport} from '../../src/manifest/report.js'
import {tempDir} from '../helpers/cli.js'
import {writeArtifact} from '../install/helpers/artifacts.js'
import {mutateArchive} from './archive-mutants.js'
import {JsonObject, RawJson, mutateTree, renderTree, treeOf} from './manifest-documents.js'
import {attempt, checkReport} from './oracle.js'
import {makeHostileArchives} from '../../scripts/make-hostile-archives.js'
import {freeFormBytes, parseZip, serializeZip} from '../helpers/zip-model.js'

// The fuzzer's own parts: a broken oracle or ZIP model would make every seeded run pass vacuously.

describe('the ZIP model', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let archive: Buffer

  before(async () => {
    work = await tempDir('svc-plugin-fuzz-')
    archive = await readFile(await writeArtifact(path.join(work.dir, 'plain.svcPlugin')))
  })
  after(() => work.cleanup())

  const digestsOf = async (bytes: Uint8Array): Promise<Map<string, {size: number; sha256: string}>> => {
    const file = path.join(work.dir, 'mutant.svcPlugin')
    await writeFile(file, bytes)
    const opened = await openArchive(file)
    try {
      return await opened.digestEntries()
    } finally {
      await opened.close()
    }
  }

  it('writes back the bytes it split', () => {
    const model = parseZip(archive)
    assert.ok(model)
    assert.equal(model.entries.length, 3)
    assert.deepEqual(serializeZip(model), archive)
  })

  it('writes back the bytes of every hostile archive it can split (the corpus is built with it)', async () => {
    const cases = await makeHostileArchives(path.join(work.dir, 'hostile'))
    const split: string[] = []
    const changed: string[] = []
    for (const item of cases.filter(({name}) => !name.includes('bomb') && !/too-large|too-many/.test(name))) {
      const bytes = await readFile(item.file)
      const model = parseZip(bytes)
      if (model === null) continue
      split.push(item.name)
      if (!serializeZip(model).equals(bytes)) changed.push(item.name)
    }
    assert.deepEqual(changed, [])
    assert.ok(split.length >= 60, `only ${split.length} hostile archives could be split`)
  })

  it('finds no free-form bytes in what the archive writer makes', () => {
    assert.deepEqual(freeFormBytes(archive), {total: 0, extraFields: 0, comments: 0, directoryData: 0, unaccounted: 0})
  })

  it('counts every byte a structural edit hides: comments, extra fields, directory data, gaps', () => {
    const mutant = mutateArchive(archive, [
      {op: 'entry-comment', entry: 1, bytes: new Uint8Array(5)},
      {op: 'extra-field', entry: 0, where: 'both', id: 0xcafe, data: new Uint8Array(10)},
      {op: 'add-directory', name: 'junk/', data: new Uint8Array(7), method: 0, declared: 'honest'},
      {op: 'gap', entry: 1, bytes: new Uint8Array(3)},
    ])
    assert.deepEqual(freeFormBytes(mutant), {total: 5 + 28 + 7 + 3, extraFields: 28, comments: 5, directoryData: 7, unaccounted: 3})
    const emptyDirectory = mutateArchive(archive, [{op: 'add-directory', name: 'junk/', data: new Uint8Array(0), method: 8, declared: 'honest'}])
    assert.equal(freeFormBytes(emptyDirectory)?.total, 0, 'the empty deflate stream of a directory entry hides nothing')
  })

  it('re-encodes an entry without changing what it holds', async () => {
    const before = await digestsOf(archive)
    // Entry 0 is manifest.json, deflated; the writer stores the tiny payload files (deflate would not shrink them).
    const first = parseZip(archive)?.entries[0]
    assert.deepEqual({name: first?.central.name.toString('utf8'), method: first?.central.method}, {name: 'manifest.json', method: 8})
    for (const as of ['stored', 0] as const) {
      const mutant = mutateArchive(archive, [{op: 'reencode', entry: 0, as}])
      assert.notDeepEqual(mutant, archive)
      assert.deepEqual(await digestsOf(mutant), before)
    }
  })

  it('keeps a structural lie consistent, so the reader meets it past the layout checks', async () => {
    const mutant = mutateArchive(archive, [{op: 'duplicate-entry', entry: 1, rename: 'same'}])
    await assert.rejects(digestsOf(mutant), (error: unknown) => error instanceof ArchiveError && error.details.reason === 'duplicate-name')
  })
})

describe('manifest document trees', () => {
  it('write what JSON.stringify cannot: duplicate keys, own __proto__ members, raw number literals', () => {
    const tree = new JsonObject([['__proto__', 1], ['a', new RawJson('1e400')], ['a', [true]]])
    assert.equal(renderTree(tree, 0), '{"__proto__":1,"a":1e400,"a":[true]}')
    assert.deepEqual(treeOf(JSON.parse('{"__proto__":{"x":null}}')), new JsonObject([['__proto__', new JsonObject([['x', null]])]]))
  })

  it('apply a mutation at a path, creating what is missing', () => {
    const tree = treeOf({id: 'x'})
    const mutated = mutateTree(tree, [{op: 'set-path', path: ['languages', 0], value: new JsonObject([['valueOf', 1]])}])
    assert.equal(renderTree(mutated, 0), '{"id":"x","languages":[{"valueOf":1}]}')
    assert.equal(renderTree(tree, 0), '{"id":"x"}', 'the seed tree is left alone')
  })
})

describe('the oracle', () => {
  it('tells a typed refusal from a crash and a hang', async () => {
    const refused = await attempt('typed', () => Promise.reject(new ArchiveError('archive-malformed', 'no', {reason: 'crc-mismatch'})), 1000)
    assert.equal(refused.outcome, 'refused')
    const crashed = await attempt('untyped', () => JSON.parse('{'), 1000)
    assert.equal(crashed.outcome === 'finding' && crashed.finding.kind, 'crash')
    const hung = await attempt('never', () => new Promise(() => undefined), 20)
    assert.equal(hung.outcome === 'finding' && hung.finding.kind, 'hang')
  })

  it('flags a report whose problems lack a code or a position of the right type', () => {
    const report = {valid: true, pluginId: null, version: null, level: 'development', file: 'm', subject: {kind: 'manifest', path: 'm'}, problems: [{code: 'invalid-name', severity: 'error', message: 'x', pointer: '/name', line: 0, column: 1}]}
    const checks = checkReport('validateManifest', report as unknown as ValidationReport).map((finding) => finding.message)
    assert.deepEqual(checks, ['validateManifest: a line or column is not a positive integer or null (problem "invalid-name": 0:1)', 'validateManifest: valid disagrees with the errors (valid true)'])
  })
})
