import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import type {PackageContent} from '../../src/manifest/content.js'
import type {DiagnosticCode, Severity} from '../../src/manifest/diagnostic.js'
import type {Level} from '../../src/manifest/levels.js'
import type {SubjectKind} from '../../src/manifest/report.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {completeManifest, lineOf, manifestText, summary} from './helpers.js'

type Manifest = Record<string, any>

/** What a case expects: `line` is a number or a needle (and occurrence) found by text search. */
interface Expected {
  code: DiagnosticCode
  severity?: Severity
  pointer: string | null
  line: number | string | [string, number] | {after: string; plus: number}
  requiredBy?: Level
}

interface Case {
  name: string
  /** Changes a complete manifest into the subject. */
  change: (manifest: Manifest) => void
  expect: Expected[]
  level?: Level
  subjectKind?: SubjectKind
  content?: (manifest: Manifest) => PackageContent
}

const digest = (byte: string) => `sha256:${byte.repeat(64)}`

/** A declared path as a packed file is named: `/` separators, no `.` segments. */
const packedName = (declared: string) =>
  declared
    .split(/[\\/]/)
    .filter((segment) => segment !== '.')
    .join('/')

/** Content with every entrypoint executable and the icon present. */
function packedContent(manifest: Manifest, extra: Record<string, {size: number; sha256?: string}> = {}, kind: PackageContent['kind'] = 'directory'): PackageContent {
  const files = new Map<string, {size: number; sha256?: string}>()
  for (const entry of Object.values(manifest['entrypoints'] ?? {}) as Array<{executable?: unknown}>) {
    if (typeof entry.executable === 'string') files.set(packedName(entry.executable), {size: 10})
  }
  if (typeof manifest['icon'] === 'string') files.set(packedName(manifest['icon']), {size: 5})
  for (const [name, file] of Object.entries(extra)) files.set(name, file)
  return {kind, files}
}

function run(testCase: Case, change: (manifest: Manifest) => void = testCase.change) {
  const manifest = completeManifest()
  change(manifest)
  const text = manifestText(manifest)
  const report = validateManifest(text, {
    level: testCase.level ?? 'development',
    subjectKind: testCase.subjectKind ?? 'manifest',
    content: (testCase.content ?? ((m: Manifest) => packedContent(m)))(manifest),
  })
  return {text, report}
}

function expectedSummary(text: string, expected: readonly Expected[]) {
  return expected.map(({code, severity, pointer, line, requiredBy}) => ({
    code,
    severity: severity ?? 'error',
    pointer,
    line:
      typeof line === 'number' ? line : typeof line === 'string' ? lineOf(text, line) : Array.isArray(line) ? lineOf(text, line[0], line[1]) : lineOf(text, line.after) + line.plus,
    ...(requiredBy === undefined ? {} : {requiredBy}),
  }))
}

const byText = (a: object, b: object) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)

/** Invalid cases; each names its code and has a counterpart (the unchanged complete manifest) with no diagnostic. */
const cases: Case[] = [
  // unsupported-manifest-version
  {name: 'manifestVersion 2', change: (m) => (m['manifestVersion'] = 2), expect: [{code: 'unsupported-manifest-version', pointer: '/manifestVersion', line: '"manifestVersion": 2'}]},
  {name: 'manifestVersion "1" (a string)', change: (m) => (m['manifestVersion'] = '1'), expect: [{code: 'unsupported-manifest-version', pointer: '/manifestVersion', line: '"manifestVersion": "1"'}]},
  // invalid-plugin-id
  {name: 'an id with capitals', change: (m) => (m['id'] = 'Com.Example'), expect: [{code: 'invalid-plugin-id', pointer: '/id', line: '"id": "Com.Example"'}]},
  {name: 'an id of one segment', change: (m) => (m['id'] = 'weather'), expect: [{code: 'invalid-plugin-id', pointer: '/id', line: '"id": "weather"'}]},
  {name: 'an id of 129 characters', change: (m) => (m['id'] = `a.${'b'.repeat(127)}`), expect: [{code: 'invalid-plugin-id', pointer: '/id', line: '"id": "a.bbb'}]},
  {name: 'an empty id', change: (m) => (m['id'] = ''), expect: [{code: 'invalid-plugin-id', pointer: '/id', line: '"id": ""'}]},
  // schema:required, schema:type, schema:pattern
  {name: 'no name', change: (m) => delete m['name'], expect: [{code: 'schema:required', pointer: '', line: 1}]},
  {name: 'no entrypoints', change: (m) => delete m['entrypoints'], expect: [{code: 'schema:required', pointer: '', line: 1}]},
  {name: 'a publisher without a name', change: (m) => delete m['publisher']['name'], expect: [{code: 'schema:required', pointer: '/publisher', line: '"publisher": {'}]},
  {name: 'an entrypoint without an executable', change: (m) => (m['entrypoints']['win-x64'] = {arguments: []}), expect: [{code: 'schema:required', pointer: '/entrypoints/win-x64', line: '"win-x64": {'}]},
  {name: 'a protocol without a maximum', change: (m) => (m['compatibility']['protocol'] = {minimum: 1}), expect: [{code: 'schema:required', pointer: '/compatibility/protocol', line: '"protocol": {'}]},
  {name: 'a name that is a number', change: (m) => (m['name'] = 5), expect: [{code: 'schema:type', pointer: '/name', line: '"name": 5'}]},
  {name: 'a version that is a number', change: (m) => (m['version'] = 1), expect: [{code: 'schema:type', pointer: '/version', line: '"version": 1'}]},
  {name: 'a non-integer health interval', change: (m) => (m['health']['intervalSeconds'] = 2.5), expect: [{code: 'schema:type', pointer: '/health/intervalSeconds', line: '"intervalSeconds": 2.5'}]},
  {name: 'a homepage on ftp', change: (m) => (m['homepage'] = 'ftp://example.com'), expect: [{code: 'schema:pattern', pointer: '/homepage', line: '"homepage"'}]},
  {name: 'a relative repository', change: (m) => (m['repository'] = 'github.com/example/weather'), expect: [{code: 'schema:pattern', pointer: '/repository', line: '"repository"'}]},
  {name: 'a publisher url without scheme', change: (m) => (m['publisher']['url'] = 'example.com'), expect: [{code: 'schema:pattern', pointer: '/publisher/url', line: '"url": "example.com"'}]},
  {
    name: 'an entrypoint key that is not a RID',
    change: (m) => (m['entrypoints']['win x64'] = {executable: 'runtimes/win/W.exe'}),
    expect: [{code: 'schema:pattern', pointer: '/entrypoints/win x64', line: '"win x64": {'}],
  },
  // invalid-version
  {name: 'version 1.0', change: (m) => (m['version'] = '1.0'), expect: [{code: 'invalid-version', pointer: '/version', line: '"version": "1.0"'}]},
  {name: 'version v1.0.0', change: (m) => (m['version'] = 'v1.0.0'), expect: [{code: 'invalid-version', pointer: '/version', line: '"version": "v1.0.0"'}]},
  {name: 'version 01.0.0', change: (m) => (m['version'] = '01.0.0'), expect: [{code: 'invalid-version', pointer: '/version', line: '"version": "01.0.0"'}]},
  {name: 'an empty version', change: (m) => (m['version'] = ''), expect: [{code: 'invalid-version', pointer: '/version', line: '"version": ""'}]},
  // 129 characters of valid SemVer: its folder name would not fit a file system (and the host refuses it).
  {name: 'a version of 129 characters', change: (m) => (m['version'] = `1.0.0-${'a'.repeat(123)}`), expect: [{code: 'invalid-version', pointer: '/version', line: '"version": "1.0.0-aaaa'}]},
  // no-entrypoints
  {name: 'empty entrypoints', change: (m) => (m['entrypoints'] = {}), expect: [{code: 'no-entrypoints', pointer: '/entrypoints', line: '"entrypoints": {}'}]},
  // entrypoint-outside-version-directory
  ...(
    [
      ['a parent segment', '../weather'],
      ['a parent segment behind a backslash', 'runtimes\\..\\..\\weather'],
      ['an absolute path', '/usr/bin/weather'],
      ['a drive path', 'C:\\weather.exe'],
      ['an empty path', ''],
    ] as const
  ).map(
    ([what, executable]): Case => ({
      name: `an executable with ${what}`,
      change: (m) => (m['entrypoints']['linux-x64']['executable'] = executable),
      expect: [{code: 'entrypoint-outside-version-directory', pointer: '/entrypoints/linux-x64/executable', line: `"executable": ${JSON.stringify(executable)}`}],
    }),
  ),
  // invalid-entrypoint-runtime
  {name: 'a shell script', change: (m) => (m['entrypoints']['linux-x64']['executable'] = 'runtimes/linux-x64/run.sh'), expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/linux-x64/executable', line: 'run.sh'}]},
  {name: 'a batch file in capitals', change: (m) => (m['entrypoints']['win-x64']['executable'] = 'runtimes/win-x64/RUN.CMD'), expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/win-x64/executable', line: 'RUN.CMD'}]},
  {
    name: 'FrameworkDependent without a .dll',
    change: (m) => (m['entrypoints']['win-x64']['runtime'] = {kind: 'FrameworkDependent', dotnetVersion: '8.0'}),
    expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/win-x64/executable', line: 'Weather.exe'}],
  },
  {
    name: 'FrameworkDependent without dotnetVersion',
    change: (m) => (m['entrypoints']['win-x64'] = {executable: 'runtimes/win-x64/Weather.dll', runtime: {kind: 'FrameworkDependent'}}),
    expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/win-x64/runtime', line: '"runtime": {'}],
  },
  {
    name: 'a dotnetVersion without a minor part',
    change: (m) => (m['entrypoints']['win-x64'] = {executable: 'runtimes/win-x64/Weather.dll', runtime: {kind: 'frameworkdependent', dotnetVersion: '8'}}),
    expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/win-x64/runtime/dotnetVersion', line: '"dotnetVersion": "8"'}],
  },
  {
    name: 'a self-contained .dll',
    change: (m) => (m['entrypoints']['win-x64']['executable'] = 'runtimes/win-x64/Weather.dll'),
    expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/win-x64/executable', line: 'Weather.dll'}],
  },
  {
    name: 'an unknown runtime kind',
    change: (m) => (m['entrypoints']['win-x64']['runtime'] = {kind: 'Native'}),
    expect: [{code: 'invalid-entrypoint-runtime', pointer: '/entrypoints/win-x64/runtime/kind', line: '"kind": "Native"'}],
  },
  // invalid-icon
  ...(
    [
      ['a parent segment', '../icon.png'],
      ['an absolute path', '/icon.png'],
      ['a backslash', 'assets\\icon.png'],
      ['a drive path', 'C:/icon.png'],
      ['nothing', ''],
    ] as const
  ).map((
    [what, icon]): Case => ({name: `an icon with ${what}`, change: (m) => (m['icon'] = icon), expect: [{code: 'invalid-icon', pointer: '/icon', line: '"icon"'}]}),
  ),
  // icon-declared-not-present
  {
    name: 'an icon that is not packed',
    level: 'package',
    change: () => {},
    content: (m) => ({kind: 'directory', files: new Map([...packedContent(m).files].filter(([name]) => name !== 'assets/icon.png'))}),
    expect: [{code: 'icon-declared-not-present', pointer: '/icon', line: '"icon"', requiredBy: 'package'}],
  },
  // invalid-permission, unknown-permission
  {name: 'a repeated permission', change: (m) => (m['permissions'] = ['net:outbound', 'host:deck', 'net:outbound']), expect: [{code: 'invalid-permission', pointer: '/permissions/2', line: ['"net:outbound"', 2]}]},
  {name: 'an unknown permission', change: (m) => m['permissions'].push('camera:use'), expect: [{code: 'unknown-permission', severity: 'warning', pointer: '/permissions/2', line: '"camera:use"'}]},
  // invalid-language
  {name: 'a language repeated in another case', change: (m) => (m['languages'] = ['en', 'de', 'EN']), expect: [{code: 'invalid-language', pointer: '/languages/2', line: '"EN"'}]},
  {name: 'a blank language', change: (m) => (m['languages'] = ['en', '']), expect: [{code: 'invalid-language', pointer: '/languages/1', line: '""'}]},
  {name: 'a language that is not a tag', change: (m) => (m['languages'] = ['english']), expect: [{code: 'invalid-language', pointer: '/languages/0', line: '"english"'}]},
  // invalid-compatibility
  {name: 'an sdk caret range', change: (m) => (m['compatibility']['sdk'] = '^2.0.0'), expect: [{code: 'invalid-compatibility', pointer: '/compatibility/sdk', line: '"sdk"'}]},
  {name: 'an svc wildcard range', change: (m) => (m['compatibility']['svc'] = '1.x'), expect: [{code: 'invalid-compatibility', pointer: '/compatibility/svc', line: '"svc"'}]},
  {name: 'protocol minimum 0', change: (m) => (m['compatibility']['protocol']['minimum'] = 0), expect: [{code: 'invalid-compatibility', pointer: '/compatibility/protocol/minimum', line: '"minimum": 0'}]},
  {
    name: 'protocol maximum below minimum',
    change: (m) => (m['compatibility']['protocol'] = {minimum: 3, maximum: 2}),
    expect: [{code: 'invalid-compatibility', pointer: '/compatibility/protocol/maximum', line: '"maximum": 2'}],
  },
  // invalid-dependency
  {
    name: 'an id both a dependency and a conflict',
    change: (m) => {
      m['dependencies'] = [{id: 'com.example.core', versionRange: '>=1.0.0'}]
      m['conflicts'] = [{id: 'com.example.core'}]
    },
    expect: [{code: 'invalid-dependency', pointer: '/conflicts/0/id', line: ['"id": "com.example.core"', 2]}],
  },
  {
    name: 'a dependency listed twice',
    change: (m) => (m['dependencies'] = [{id: 'com.example.core'}, {id: 'com.example.core', optional: true}]),
    expect: [{code: 'invalid-dependency', pointer: '/dependencies/1/id', line: ['"id": "com.example.core"', 2]}],
  },
  {name: 'a dependency on itself', change: (m) => (m['dependencies'] = [{id: 'com.example.weather'}]), expect: [{code: 'invalid-dependency', pointer: '/dependencies/0/id', line: ['"id": "com.example.weather"', 2]}]},
  {name: 'an icon pack with a bad id', change: (m) => (m['iconPacks'] = [{id: 'Icons'}]), expect: [{code: 'invalid-dependency', pointer: '/iconPacks/0/id', line: '"id": "Icons"'}]},
  {
    name: 'a dependency range with a tilde',
    change: (m) => (m['dependencies'] = [{id: 'com.example.core', versionRange: '~1.2.0'}]),
    expect: [{code: 'invalid-dependency', pointer: '/dependencies/0/versionRange', line: '"versionRange"'}],
  },
  // invalid-name
  {name: 'a blank name', change: (m) => (m['name'] = '   '), expect: [{code: 'invalid-name', pointer: '/name', line: '"name": "   "'}]},
  {name: 'an empty name', change: (m) => (m['name'] = ''), expect: [{code: 'invalid-name', pointer: '/name', line: '"name": ""'}]},
  {name: 'a name of 129 characters', change: (m) => (m['name'] = 'n'.repeat(129)), expect: [{code: 'invalid-name', pointer: '/name', line: '"name": "nnn'}]},
  {name: 'a name of 129 astral characters (counted as the schema counts: code points, not UTF-16 units)', change: (m) => (m['name'] = '😀'.repeat(129)), expect: [{code: 'invalid-name', pointer: '/name', line: '"name": "😀'}]},
  {name: 'a name with a bell character', change: (m) => (m['name'] = 'Weather\u0007'), expect: [{code: 'invalid-name', pointer: '/name', line: '"name": "Weather'}]},
  // invalid-publisher
  {name: 'a blank publisher name', change: (m) => (m['publisher']['name'] = ' '), expect: [{code: 'invalid-publisher', pointer: '/publisher/name', line: '"name": " "'}]},
  {name: 'an empty publisher name', change: (m) => (m['publisher']['name'] = ''), expect: [{code: 'invalid-publisher', pointer: '/publisher/name', line: '"name": ""'}]},
  {name: 'a publisher id with an underscore', change: (m) => (m['publisher']['id'] = 'com.example_labs'), expect: [{code: 'invalid-publisher', pointer: '/publisher/id', line: '"id": "com.example_labs"'}]},
  // generated-field-authored, invalid-file-digest, invalid-signature
  {
    name: 'files in a source manifest',
    change: (m) => (m['files'] = [{path: 'a.txt', sha256: digest('a'), size: 1}]),
    expect: [{code: 'generated-field-authored', severity: 'warning', pointer: '/files', line: '"files": ['}],
  },
  {
    name: 'a signature in a source directory',
    subjectKind: 'directory',
    change: (m) => (m['signature'] = {algorithm: 'ed25519', keyId: 'cert_1', value: 'AAAA', signedAt: '2024-05-01T12:00:00Z'}),
    expect: [{code: 'generated-field-authored', severity: 'warning', pointer: '/signature', line: '"signature": {'}],
  },
  ...(
    [
      ['a short digest', {path: 'a.txt', sha256: 'sha256:abc', size: 1}, '/files/0/sha256', '"sha256"'],
      ['an upper-case digest', {path: 'a.txt', sha256: `sha256:${'A'.repeat(64)}`, size: 1}, '/files/0/sha256', '"sha256"'],
      ['a negative size', {path: 'a.txt', sha256: digest('a'), size: -1}, '/files/0/size', '"size": -1'],
      ['a fractional size', {path: 'a.txt', sha256: digest('a'), size: 1.5}, '/files/0/size', '"size": 1.5'],
      ['a size that is a string', {path: 'a.txt', sha256: digest('a'), size: '1'}, '/files/0/size', '"size": "1"'],
      ['no path', {sha256: digest('a'), size: 1}, '/files/0', {after: '"files": [', plus: 1}],
      ['a backslash path', {path: 'dir\\a.txt', sha256: digest('a'), size: 1}, '/files/0/path', '"path": "dir'],
      ['a path leaving the package', {path: '../a.txt', sha256: digest('a'), size: 1}, '/files/0/path', '"path": "../a.txt"'],
    ] as const
  ).map(
    ([what, entry, pointer, line]): Case => ({
      name: `a files[] entry with ${what}`,
      subjectKind: 'artifact',
      change: (m) => (m['files'] = [entry]),
      expect: [{code: 'invalid-file-digest', pointer, line: line as Expected['line']}],
    }),
  ),
  {
    name: 'a files[] entry that is a string',
    subjectKind: 'artifact',
    change: (m) => (m['files'] = ['a.txt']),
    expect: [{code: 'invalid-file-digest', pointer: '/files/0', line: '"a.txt"'}],
  },
  {
    name: 'two files[] paths equal case-insensitively',
    subjectKind: 'artifact',
    change: (m) => (m['files'] = [{path: 'Readme.md', sha256: digest('a'), size: 1}, {path: 'README.md', sha256: digest('b'), size: 2}]),
    expect: [{code: 'invalid-file-digest', pointer: '/files/1/path', line: '"README.md"'}],
  },
  ...(
    [
      ['no signedAt', {algorithm: 'ed25519', keyId: 'cert_1', value: 'AAAA'}, '/signature', '"signature": {'],
      ['a blank keyId', {algorithm: 'ed25519', keyId: ' ', value: 'AAAA', signedAt: '2024-05-01T12:00:00Z'}, '/signature/keyId', '"keyId"'],
      ['an empty algorithm', {algorithm: '', keyId: 'cert_1', value: 'AAAA', signedAt: '2024-05-01T12:00:00Z'}, '/signature/algorithm', '"algorithm"'],
      ['a value that is not base64', {algorithm: 'ed25519', keyId: 'cert_1', value: 'not base64!', signedAt: '2024-05-01T12:00:00Z'}, '/signature/value', '"value"'],
      ['a signedAt that is not a date-time', {algorithm: 'ed25519', keyId: 'cert_1', value: 'AAAA', signedAt: 'yesterday'}, '/signature/signedAt', '"signedAt"'],
      ['a signedAt without a time zone', {algorithm: 'ed25519', keyId: 'cert_1', value: 'AAAA', signedAt: '2024-05-01T12:00:00'}, '/signature/signedAt', '"signedAt"'],
      ['a keyId that is a number', {algorithm: 'ed25519', keyId: 7, value: 'AAAA', signedAt: '2024-05-01T12:00:00Z'}, '/signature/keyId', '"keyId"'],
    ] as const
  ).map(
    ([what, signature, pointer, line]): Case => ({
      name: `a signature with ${what}`,
      subjectKind: 'artifact',
      change: (m) => (m['signature'] = signature),
      expect: [{code: 'invalid-signature', pointer, line}],
    }),
  ),
  {name: 'a signature that is a string', subjectKind: 'artifact', change: (m) => (m['signature'] = 'abc'), expect: [{code: 'invalid-signature', pointer: '/signature', line: '"signature"'}]},
  // entrypoint-not-packed, entrypoint-layout-invalid
  {
    name: 'an entrypoint whose executable is not packed',
    level: 'package',
    change: () => {},
    content: (m) => ({kind: 'directory', files: new Map([...packedContent(m).files].filter(([name]) => !name.startsWith('runtimes/win-x64/')))}),
    expect: [{code: 'entrypoint-not-packed', pointer: '/entrypoints/win-x64/executable', line: 'Weather.exe', requiredBy: 'package'}],
  },
  {
    name: 'an executable at the package root',
    level: 'package',
    change: (m) => (m['entrypoints']['win-x64']['executable'] = './Weather.exe'),
    expect: [{code: 'entrypoint-layout-invalid', pointer: '/entrypoints/win-x64/executable', line: 'Weather.exe', requiredBy: 'package'}],
  },
  {
    name: 'two RIDs sharing a directory (case-insensitively)',
    level: 'package',
    change: (m) => {
      m['entrypoints']['linux-x64']['executable'] = 'bin/weather'
      m['entrypoints']['win-x64']['executable'] = 'BIN\\Weather.exe'
    },
    expect: [
      {code: 'entrypoint-layout-invalid', pointer: '/entrypoints/linux-x64/executable', line: '"bin/weather"', requiredBy: 'package'},
      {code: 'entrypoint-layout-invalid', pointer: '/entrypoints/win-x64/executable', line: 'Weather.exe', requiredBy: 'package'},
    ],
  },
  // file-missing, file-size-mismatch, file-digest-mismatch, undeclared-file
  {
    name: 'a declared file that is not there',
    level: 'package',
    subjectKind: 'installed',
    change: (m) => (m['files'] = [{path: 'data/a.txt', sha256: digest('a'), size: 3}]),
    expect: [{code: 'file-missing', pointer: '/files/0', line: {after: '"files": [', plus: 1}, requiredBy: 'package'}],
  },
  {
    name: 'a declared file of another size',
    level: 'package',
    subjectKind: 'installed',
    change: (m) => (m['files'] = [{path: 'data/a.txt', sha256: digest('a'), size: 3}]),
    content: (m) => packedContent(m, {'data/a.txt': {size: 4, sha256: digest('a')}}),
    expect: [{code: 'file-size-mismatch', pointer: '/files/0', line: {after: '"files": [', plus: 1}, requiredBy: 'package'}],
  },
  {
    name: 'a declared file with other bytes',
    level: 'package',
    subjectKind: 'installed',
    change: (m) => (m['files'] = [{path: 'data/a.txt', sha256: digest('a'), size: 3}]),
    content: (m) => packedContent(m, {'data/a.txt': {size: 3, sha256: digest('b')}}),
    expect: [{code: 'file-digest-mismatch', pointer: '/files/0', line: {after: '"files": [', plus: 1}, requiredBy: 'package'}],
  },
  {
    name: 'an artifact file that files[] does not list',
    level: 'package',
    subjectKind: 'artifact',
    change: (m) => (m['files'] = [...packedContent(m).files].map(([path, file]) => ({path, sha256: digest('c'), size: file.size}))),
    content: (m) => {
      const files = new Map([...packedContent(m).files].map(([path, file]) => [path, {...file, sha256: digest('c')}]))
      files.set('extra.txt', {size: 1, sha256: digest('d')})
      // The signing files are exempt only in a signed artifact: in this unsigned one, certificate.json is a file like any other.
      files.set('certificate.json', {size: 9, sha256: digest('e')})
      return {kind: 'artifact', files}
    },
    expect: [
      {code: 'undeclared-file', pointer: '/files', line: '"files": [', requiredBy: 'package'},
      {code: 'undeclared-file', pointer: '/files', line: '"files": [', requiredBy: 'package'},
    ],
  },
]

describe('every diagnostic code, invalid case against its valid counterpart', () => {
  it('the counterpart, a complete manifest, has no diagnostic at any level', () => {
    for (const level of ['development', 'package', 'publication'] as const) {
      const {report} = run({name: 'complete', change: () => {}, expect: [], level})
      assert.deepEqual(report.problems, [], level)
      assert.equal(report.valid, true)
    }
  })

  for (const testCase of cases) {
    const codes = [...new Set(testCase.expect.map((expected) => expected.code))].join(', ')
    describe(testCase.name, () => {
      it(`reports exactly ${codes} at the offending value`, () => {
        const {text, report} = run(testCase)
        assert.deepEqual(summary(report.problems).sort(byText), expectedSummary(text, testCase.expect).sort(byText), JSON.stringify(report.problems, null, 2))
        assert.equal(report.valid, !testCase.expect.some((expected) => (expected.severity ?? 'error') === 'error'))
        for (const problem of report.problems) {
          assert.ok(problem.message.endsWith('.'), problem.message)
          assert.ok(problem.column !== null && problem.column >= 1)
        }
      })
    })
  }
})

describe('valid variants near each rule', () => {
  const variants: Array<[string, (manifest: Manifest) => void]> = [
    ['a FrameworkDependent .dll with dotnetVersion, kind in any case', (m) => (m['entrypoints']['win-x64'] = {executable: 'runtimes/win-x64/Weather.DLL', runtime: {kind: 'frameworkdependent', dotnetVersion: '8.0'}})],
    ['an explicit SelfContained runtime', (m) => (m['entrypoints']['win-x64']['runtime'] = {kind: 'SELFCONTAINED'})],
    ['a dotnetVersion that a self-contained runtime ignores', (m) => (m['entrypoints']['win-x64']['runtime'] = {dotnetVersion: 'anything'})],
    ['a bare RID and a dotted RID', (m) => (m['entrypoints'] = {linux: {executable: 'runtimes/linux/weather'}, 'ubuntu.22.04-x64': {executable: 'runtimes/ubuntu/weather'}})],
    ['an executable with backslashes and a dot segment', (m) => (m['entrypoints']['win-x64']['executable'] = '.\\runtimes\\win-x64\\Weather.exe')],
    ['a pre-release version with build metadata', (m) => (m['version'] = '2.0.0-rc.1+build.7')],
    ['the any range and a protocol of one major', (m) => (m['compatibility'] = {sdk: '*', svc: ' >= 1.0.0 ,<2.0.0-0 ', protocol: {minimum: 2, maximum: 2}})],
    ['script, region and numeric-region language tags', (m) => (m['languages'] = ['zh-Hant-TW', 'es-419', 'sr-Latn', 'xx'])],
    ['an icon with a dot segment', (m) => (m['icon'] = './assets/icon.png')],
    ['a name of exactly 128 characters', (m) => (m['name'] = 'n'.repeat(128))],
    ['an id of exactly 128 characters', (m) => (m['id'] = `a.${'b'.repeat(126)}`)],
    ['optional dependencies, conflicts and icon packs', (m) => Object.assign(m, {dependencies: [{id: 'com.example.core', versionRange: '>=1.0.0', optional: true}], conflicts: [{id: 'com.example.old'}], iconPacks: [{id: 'com.example.icons'}]})],
    ['a publisher with only a name', (m) => (m['publisher'] = {name: 'Example'})],
  ]
  for (const [name, change] of variants) {
    it(`${name}: no diagnostic at any level`, () => {
      // As packed: an artifact whose files[] lists what it holds (without files[], no-file-digests would warn).
      const packed = (m: Manifest) => {
        change(m)
        m['files'] = [...packedContent(m).files].map(([path, file]) => ({path, size: file.size, sha256: digest('a')}))
      }
      for (const level of ['development', 'package', 'publication'] as const) {
        const {report} = run({name, change: packed, expect: [], level, subjectKind: 'artifact', content: (m) => packedContent(m, {}, 'artifact')})
        assert.deepEqual(report.problems, [], level)
      }
    })
  }
})
