import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {readManifest} from '../../src/manifest/read-manifest.js'
import {completeManifest, lineOf, manifestText, minimalManifest, summary} from './helpers.js'

const encode = (manifest: unknown) => new TextEncoder().encode(manifestText(manifest))

describe('readManifest', () => {
  it('returns the manifest of a valid file with a valid development-level report', () => {
    const manifest = completeManifest()
    const {manifest: read, report} = readManifest(encode(manifest), {file: 'x.svcPlugin!manifest.json'})
    assert.deepEqual(read, manifest)
    assert.deepEqual([report.valid, report.level, report.file, report.subject.kind], [true, 'development', 'x.svcPlugin!manifest.json', 'installed'])
  })

  it('returns null and the report for an invalid file', () => {
    const {manifest, report} = readManifest(encode({...minimalManifest(), version: '1'}))
    assert.equal(manifest, null)
    assert.deepEqual(report.problems.map((problem) => problem.code), ['invalid-version'])
  })

  it('keeps files and signature without a generated-field warning (not a source tree)', () => {
    const signed = {...minimalManifest(), files: [], signature: {algorithm: 'ed25519', keyId: 'cert_1', value: 'AAAA', signedAt: '2024-01-01T00:00:00Z'}}
    assert.deepEqual(readManifest(encode(signed)).report.problems, [])
  })

  describe('an installed directory whose manifest disagrees', () => {
    it('reports id-mismatch at /id', () => {
      const text = manifestText(minimalManifest())
      const {manifest, report} = readManifest(new TextEncoder().encode(text), {expect: {id: 'com.example.other', version: '1.2.3'}})
      assert.equal(manifest, null)
      assert.deepEqual(summary(report.problems), [{code: 'id-mismatch', severity: 'error', pointer: '/id', line: lineOf(text, '"id"')}])
    })

    it('reports version-mismatch at /version', () => {
      const text = manifestText(minimalManifest())
      const {report} = readManifest(new TextEncoder().encode(text), {expect: {id: 'com.example.weather', version: '1.2.4'}})
      assert.deepEqual(summary(report.problems), [{code: 'version-mismatch', severity: 'error', pointer: '/version', line: lineOf(text, '"version"')}])
    })

    it('is valid when both agree', () => {
      const {manifest, report} = readManifest(encode(minimalManifest()), {expect: {id: 'com.example.weather', version: '1.2.3'}})
      assert.equal(report.valid, true)
      assert.equal(manifest?.id, 'com.example.weather')
    })

    it('does not also report a mismatch for an id that is already invalid', () => {
      const {report} = readManifest(encode({...minimalManifest(), id: 'Bad'}), {expect: {id: 'com.example.weather'}})
      assert.deepEqual(report.problems.map((problem) => problem.code), ['invalid-plugin-id'])
    })
  })

  it('never throws on garbage', () => {
    const {manifest, report} = readManifest(Uint8Array.from([0xff, 0x00, 0x7b]))
    assert.equal(manifest, null)
    assert.deepEqual(report.problems.map((problem) => problem.code), ['malformed'])
  })
})
