import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {diagnosticCodes} from '../../src/manifest/diagnostic.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {completeManifest, lineOf, manifestText, minimalManifest, summary} from './helpers.js'

type Manifest = Record<string, any>

function validate(change: (manifest: Manifest) => void, base: () => Manifest = minimalManifest) {
  const manifest = base()
  change(manifest)
  const text = manifestText(manifest)
  return {text, report: validateManifest(text)}
}

function codesAt(change: (manifest: Manifest) => void): string[] {
  return validate(change).report.problems.map((problem) => `${problem.code} ${problem.pointer}`)
}

describe('one mistake gives one diagnostic', () => {
  const cases: Array<[string, (manifest: Manifest) => void, string[]]> = [
    ['an empty version (fails minLength and pattern)', (m) => (m['version'] = ''), ['invalid-version /version']],
    ['an id over 128 characters (fails maxLength)', (m) => (m['id'] = `a.${'b'.repeat(200)}`), ['invalid-plugin-id /id']],
    ['empty entrypoints (fails minProperties)', (m) => (m['entrypoints'] = {}), ['no-entrypoints /entrypoints']],
    ['a repeated permission (fails uniqueItems)', (m) => (m['permissions'] = ['net:outbound', 'net:outbound']), ['invalid-permission /permissions/1']],
    ['a repeated language (fails uniqueItems)', (m) => (m['languages'] = ['en', 'en']), ['invalid-language /languages/1']],
    ['an empty language (fails pattern)', (m) => (m['languages'] = ['']), ['invalid-language /languages/0']],
    ['protocol minimum 0 (fails minimum)', (m) => (m['compatibility'] = {protocol: {minimum: 0, maximum: 0}}), ['invalid-compatibility /compatibility/protocol/minimum']],
    ['protocol minimum 0.5 (fails type and minimum)', (m) => (m['compatibility'] = {protocol: {minimum: 0.5, maximum: 2}}), ['schema:type /compatibility/protocol/minimum']],
    ['an empty executable (fails minLength)', (m) => (m['entrypoints']['win-x64']['executable'] = ''), ['entrypoint-outside-version-directory /entrypoints/win-x64/executable']],
    ['an executable that leaves the directory and is a script', (m) => (m['entrypoints']['win-x64']['executable'] = '../run.sh'), ['entrypoint-outside-version-directory /entrypoints/win-x64/executable']],
    [
      'a FrameworkDependent script',
      (m) => (m['entrypoints']['win-x64'] = {executable: 'run.cmd', runtime: {kind: 'FrameworkDependent', dotnetVersion: '8.0'}}),
      ['invalid-entrypoint-runtime /entrypoints/win-x64/executable'],
    ],
    ['an empty icon (fails minLength)', (m) => (m['icon'] = ''), ['invalid-icon /icon']],
    ['an empty publisher name (fails minLength)', (m) => (m['publisher'] = {name: ''}), ['invalid-publisher /publisher/name']],
    ['a bad publisher id (fails pattern)', (m) => (m['publisher'] = {name: 'X', id: 'X'}), ['invalid-publisher /publisher/id']],
    ['a bad dependency id (fails pattern)', (m) => (m['dependencies'] = [{id: 'Core'}]), ['invalid-dependency /dependencies/0/id']],
    ['a files[] entry with a bad digest (fails pattern)', (m) => (m['files'] = [{path: 'a', sha256: 'md5:1', size: 1}]), ['generated-field-authored /files', 'invalid-file-digest /files/0/sha256']],
    ['a signedAt that is not a date-time (fails format)', (m) => (m['signature'] = {algorithm: 'ed25519', keyId: 'k', value: 'AAAA', signedAt: 'now'}), ['generated-field-authored /signature', 'invalid-signature /signature/signedAt']],
    ['an id of the wrong type', (m) => (m['id'] = 5), ['schema:type /id']],
    ['entrypoints as an array', (m) => (m['entrypoints'] = []), ['schema:type /entrypoints']],
    ['permissions as a string', (m) => (m['permissions'] = 'net:outbound'), ['schema:type /permissions']],
    ['repeated languages of the wrong type', (m) => (m['languages'] = [1, 1]), ['schema:type /languages/0', 'schema:type /languages/1']],
    ['a runtime kind of the wrong type', (m) => (m['entrypoints']['win-x64']['runtime'] = {kind: 5}), ['schema:type /entrypoints/win-x64/runtime/kind']],
    ['a dotnetVersion of the wrong type', (m) => (m['entrypoints']['win-x64'] = {executable: 'a/a.dll', runtime: {kind: 'FrameworkDependent', dotnetVersion: 8}}), ['schema:type /entrypoints/win-x64/runtime/dotnetVersion']],
  ]
  for (const [name, change, expected] of cases) {
    it(`${name}: ${expected.join(', ')}`, () => {
      assert.deepEqual(codesAt(change).sort(), [...expected].sort())
    })
  }

  it('never reports a schema error and a coded error at the same value', () => {
    const {report} = validate((m) => {
      m['id'] = 'Bad'
      m['version'] = '1'
      m['name'] = ''
      m['icon'] = '/abs'
      m['languages'] = ['en', 'EN', '']
      m['permissions'] = ['a', 'a']
      m['entrypoints'] = {'win-x64': {executable: ''}}
    })
    const pointers = new Map<string, string[]>()
    for (const problem of report.problems) {
      if (problem.code === 'schema:required' || problem.severity !== 'error') continue
      pointers.set(problem.pointer as string, [...(pointers.get(problem.pointer as string) ?? []), problem.code])
    }
    for (const [pointer, codes] of pointers) assert.equal(codes.length, 1, `${pointer}: ${codes.join(', ')}`)
  })
})

describe('several independent problems', () => {
  it('are all reported in one run, ordered by line', () => {
    const {text, report} = validate((m) => {
      m['id'] = 'Com.Example'
      m['version'] = '1.0'
      m['homepage'] = 'ftp://example.com'
      m['permissions'] = ['camera:use']
      m['entrypoints']['linux-x64'] = {executable: 'runtimes/linux-x64/start.sh'}
      delete m['name']
    })
    assert.deepEqual(summary(report.problems), [
      {code: 'schema:required', severity: 'error', pointer: '', line: 1},
      {code: 'invalid-plugin-id', severity: 'error', pointer: '/id', line: lineOf(text, '"id"')},
      {code: 'invalid-version', severity: 'error', pointer: '/version', line: lineOf(text, '"version"')},
      {code: 'invalid-entrypoint-runtime', severity: 'error', pointer: '/entrypoints/linux-x64/executable', line: lineOf(text, 'start.sh')},
      {code: 'schema:pattern', severity: 'error', pointer: '/homepage', line: lineOf(text, '"homepage"')},
      {code: 'unknown-permission', severity: 'warning', pointer: '/permissions/0', line: lineOf(text, 'camera:use')},
    ])
    assert.equal(report.valid, false)
  })

  it('orders diagnostics on one line by column', () => {
    const report = validateManifest('{"manifestVersion": 1, "id": "X", "name": "", "version": "1", "entrypoints": {}}')
    assert.deepEqual(
      report.problems.map((problem) => [problem.column, problem.code]),
      [
        [30, 'invalid-plugin-id'],
        [43, 'invalid-name'],
        [58, 'invalid-version'],
        [78, 'no-entrypoints'],
      ],
    )
  })

  it('orders diagnostics at one position by code', () => {
    const manifest = minimalManifest()
    delete manifest['name']
    const report = validateManifest(manifestText(manifest), {level: 'package'})
    assert.deepEqual(
      report.problems.map((problem) => [problem.line, problem.column, problem.code]),
      [...Array.from({length: 6}, () => [1, 1, 'publication-metadata-missing']), [1, 1, 'schema:required']],
    )
  })
})

describe('manifestVersion other than 1', () => {
  it('is the only diagnostic, whatever else is wrong', () => {
    const {text, report} = validate((m) => {
      m['manifestVersion'] = 2
      m['id'] = 'Bad Id'
      m['version'] = 'x'
      m['entrypoints'] = {}
      m['files'] = 'x'
      delete m['name']
    })
    assert.deepEqual(summary(report.problems), [{code: 'unsupported-manifest-version', severity: 'error', pointer: '/manifestVersion', line: lineOf(text, '"manifestVersion"')}])
    assert.equal(report.valid, false)
  })

  it('stops package-level checks too', () => {
    const manifest = {...minimalManifest(), manifestVersion: 0}
    const report = validateManifest(JSON.stringify(manifest), {level: 'publication', content: {kind: 'directory', files: new Map()}})
    assert.deepEqual(
      report.problems.map((problem) => problem.code),
      ['unsupported-manifest-version'],
    )
  })

  it('missing is schema:required, not unsupported', () => {
    assert.deepEqual(codesAt((m) => delete m['manifestVersion']), ['schema:required '])
  })
})

describe('a malformed file', () => {
  it('gives a report with only the malformed diagnostic and no identity', () => {
    const report = validateManifest('{"id": "com.example.a", "id": "com.example.b"}', {file: 'plugin/manifest.json'})
    assert.equal(report.valid, false)
    assert.equal(report.pluginId, null)
    assert.equal(report.version, null)
    assert.equal(report.file, 'plugin/manifest.json')
    assert.deepEqual(summary(report.problems), [{code: 'malformed', severity: 'error', pointer: '/id', line: 1}])
  })

  it('accepts bytes as well as text', () => {
    const report = validateManifest(Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))
    assert.equal(report.problems[0]?.code, 'malformed')
  })
})

describe('the report', () => {
  it('carries identity, level, file and subject', () => {
    const report = validateManifest(manifestText(completeManifest()), {level: 'package', file: 'x/manifest.json', subjectKind: 'directory', subjectPath: 'x'})
    assert.deepEqual(
      {...report, problems: report.problems.map((problem) => problem.code)},
      {valid: true, pluginId: 'com.example.weather', version: '1.2.3', level: 'package', file: 'x/manifest.json', subject: {kind: 'directory', path: 'x'}, problems: []},
    )
  })

  it('defaults to development level, manifest.json and a manifest subject', () => {
    const report = validateManifest(manifestText(minimalManifest()))
    assert.deepEqual([report.level, report.file, report.subject], ['development', 'manifest.json', {kind: 'manifest', path: 'manifest.json'}])
    assert.equal(report.valid, true)
  })

  it('names the identity even when it is invalid, as long as it is a string', () => {
    const report = validateManifest(manifestText({...minimalManifest(), id: 'Bad', version: 3}))
    assert.deepEqual([report.pluginId, report.version], ['Bad', null])
  })

  it('uses only declared codes', () => {
    const {report} = validate((m) => {
      m['id'] = 'X'
      m['languages'] = ['']
      m['files'] = [{}]
      m['signature'] = 5
    })
    for (const problem of report.problems) {
      assert.ok((diagnosticCodes as readonly string[]).includes(problem.code) || problem.code.startsWith('schema:'), problem.code)
    }
  })
})

describe('values that are clamped, not rejected', () => {
  it('give no diagnostic however far out of range', () => {
    for (const [interval, timeout, threshold, graceful] of [
      [0, 0, 0, 0],
      [100000, 99, 1000, 3600],
      [-5, -1, -2, -10],
    ]) {
      const {report} = validate((m) => {
        m['health'] = {intervalSeconds: interval, timeoutSeconds: timeout, unhealthyThreshold: threshold, path: ''}
        m['shutdown'] = {gracefulTimeoutSeconds: graceful}
      })
      assert.deepEqual(report.problems, [])
    }
  })
})

describe('unknown properties', () => {
  it('are accepted and never reported, at any depth', () => {
    const {report} = validate((m) => {
      m['x-build'] = {commit: 'abc'}
      m['$schema'] = '../schema/manifest.schema.json'
      m['entrypoints']['win-x64']['env'] = {A: '1'}
      m['entrypoints']['win-x64']['runtime'] = {kind: 'SelfContained', rollForward: 'major'}
      m['publisher'] = {name: 'X', twitter: '@x'}
      m['compatibility'] = {svc: '*', future: {}, protocol: {minimum: 1, maximum: 1, preferred: 1}}
      m['dependencies'] = [{id: 'com.example.core', reason: 'icons'}]
      m['health'] = {path: '/h', jitter: true}
    }, completeManifest)
    assert.deepEqual(report.problems, [])
  })
})
