import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import type {PackageContent} from '../../src/manifest/content.js'
import type {Level} from '../../src/manifest/levels.js'
import type {SubjectKind, ValidationReport} from '../../src/manifest/report.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {completeManifest, manifestText} from './helpers.js'

type Manifest = Record<string, any>

const levels: readonly Level[] = ['development', 'package', 'publication']
const digest = (byte: string) => `sha256:${byte.repeat(64)}`
const absent = Symbol('absent')

/** Per top-level field: values that are valid, invalid, or absent. */
const fieldOptions: Record<string, readonly unknown[]> = {
  id: ['com.example.weather', 'Bad', 5],
  name: ['Weather', '', 'x\u0007', absent],
  version: ['1.2.3', '1.0', '2.0.0-beta.1+build.5'],
  entrypoints: [
    {'win-x64': {executable: 'runtimes/win-x64/Weather.exe'}, 'linux-x64': {executable: 'runtimes/linux-x64/weather'}},
    {},
    {'win-x64': {executable: 'Weather.exe'}},
    {'win-x64': {executable: 'bin/Weather.exe'}, 'linux-x64': {executable: 'BIN/weather'}},
    {'linux-x64': {executable: 'runtimes/linux-x64/run.sh'}},
    {'win-x64': {executable: 'runtimes/win-x64/Weather.dll', runtime: {kind: 'frameworkDependent', dotnetVersion: '8.0'}}},
    {'win x64': {executable: 'runtimes/win-x64/Weather.exe'}},
    {'win-x64': {executable: '../Weather.exe'}},
  ],
  description: ['Shows the weather.', '', 5, absent],
  icon: ['assets/icon.png', '../icon.png', 'missing/icon.png', absent],
  publisher: [{name: 'Example'}, {}, {name: 'X', id: 'Bad'}, {name: 'X', url: 'ftp://x'}, absent],
  license: ['MIT', ' ', absent],
  repository: ['https://github.com/example/weather', 'ftp://x', absent],
  compatibility: [{svc: '>=1.0.0'}, {}, {sdk: '^1.0.0'}, {protocol: {minimum: 2, maximum: 1}}, {protocol: {minimum: 1}}, absent],
  homepage: ['https://example.com', 'example.com', absent],
  permissions: [['net:outbound'], ['camera:use'], ['net:outbound', 'net:outbound'], absent],
  languages: [['en', 'de'], ['en', 'EN'], ['english'], absent],
  dependencies: [[{id: 'com.example.core', versionRange: '>=1.0.0, <2.0.0'}], [{id: 'com.example.weather'}], [{id: 'com.example.core', versionRange: '~1'}], absent],
  conflicts: [[{id: 'com.example.core'}], [{id: 'com.example.other'}], absent],
  health: [{intervalSeconds: 1000, timeoutSeconds: 0}, {intervalSeconds: 2.5}, absent],
  files: ['matching', 'stale', [{}], absent],
  signature: [{algorithm: 'ed25519', keyId: 'cert_1', value: 'AAAA', signedAt: '2024-01-01T00:00:00Z'}, {}, absent],
}

/** The packaged files: each known path present or not, plus an unlisted extra. */
const knownPaths = ['runtimes/win-x64/Weather.exe', 'runtimes/linux-x64/weather', 'runtimes/win-x64/Weather.dll', 'assets/icon.png', 'Weather.exe', 'bin/Weather.exe', 'BIN/weather']

interface Subject {
  manifest: Manifest
  content: PackageContent
  subjectKind: SubjectKind
}

const subjectArbitrary: fc.Arbitrary<Subject> = fc
  .record({
    picks: fc.record(Object.fromEntries(Object.entries(fieldOptions).map(([field, options]) => [field, fc.nat({max: options.length - 1})]))),
    present: fc.array(fc.boolean(), {minLength: knownPaths.length, maxLength: knownPaths.length}),
    extra: fc.boolean(),
    kind: fc.constantFrom<PackageContent['kind']>('directory', 'artifact', 'installed'),
    subjectKind: fc.constantFrom<SubjectKind>('manifest', 'directory', 'artifact', 'installed'),
  })
  .map(({picks, present, extra, kind, subjectKind}) => {
    const files = new Map<string, {size: number; sha256: string}>()
    knownPaths.forEach((name, i) => present[i] && files.set(name, {size: 7, sha256: digest('a')}))
    if (extra) files.set('extra.txt', {size: 1, sha256: digest('b')})
    const manifest = completeManifest()
    for (const [field, options] of Object.entries(fieldOptions)) {
      const value = options[picks[field] as number]
      if (value === absent) delete manifest[field]
      else if (value === 'matching') manifest[field] = [...files].map(([path, file]) => ({path, ...file}))
      else if (value === 'stale') manifest[field] = [...files].map(([path]) => ({path, sha256: digest('c'), size: 7}))
      else manifest[field] = structuredClone(value)
    }
    return {manifest, content: {kind, files}, subjectKind}
  })

function reportAt(subject: Subject, level: Level, text = manifestText(subject.manifest)): ValidationReport {
  return validateManifest(text, {level, content: subject.content, subjectKind: subject.subjectKind})
}

const errorKeys = (report: ValidationReport) => new Set(report.problems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.code} ${problem.pointer}`))

describe('levels are cumulative', () => {
  it('a manifest valid at publication is valid at package and development; every lower-level error stays an error higher up', () => {
    fc.assert(
      fc.property(subjectArbitrary, (subject) => {
        const [development, pack, publication] = levels.map((level) => reportAt(subject, level)) as [ValidationReport, ValidationReport, ValidationReport]
        if (publication.valid) assert.ok(pack.valid)
        if (pack.valid) assert.ok(development.valid)
        for (const key of errorKeys(development)) assert.ok(errorKeys(pack).has(key), `${key} is lost at package level`)
        for (const key of errorKeys(pack)) assert.ok(errorKeys(publication).has(key), `${key} is lost at publication level`)
      }),
      {numRuns: 400},
    )
  })

  it('finds valid manifests at every level among the generated ones (the property is not vacuous)', () => {
    const subject: Subject = {manifest: completeManifest(), content: {kind: 'directory', files: new Map(knownPaths.map((name) => [name, {size: 1}]))}, subjectKind: 'manifest'}
    for (const level of levels) assert.equal(reportAt(subject, level).valid, true, level)
  })
})

/** Own property names each fixed-shape object already knows; an added name must be none of them. */
const knownNames = new Set(['manifestVersion', 'id', 'name', 'version', 'entrypoints', 'executable', 'arguments', 'runtime', 'kind', 'dotnetVersion', 'email', 'url', 'sdk', 'protocol', 'svc', 'minimum', 'maximum', 'gracefulTimeoutSeconds', 'path', 'intervalSeconds', 'timeoutSeconds', 'unhealthyThreshold', 'versionRange', 'optional', 'sha256', 'size', 'algorithm', 'keyId', 'value', 'signedAt', ...Object.keys(fieldOptions), 'shutdown'])

/** Every object in the manifest with a fixed set of properties (the entrypoints map is keyed by RID, not one of them). */
function fixedShapeObjects(manifest: Manifest): Array<Record<string, unknown>> {
  const objects: Array<Record<string, unknown>> = [manifest]
  const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
  for (const key of ['publisher', 'compatibility', 'shutdown', 'health', 'signature']) if (isObject(manifest[key])) objects.push(manifest[key])
  if (isObject(manifest['compatibility']?.['protocol'])) objects.push(manifest['compatibility']['protocol'])
  if (isObject(manifest['entrypoints'])) {
    for (const entry of Object.values(manifest['entrypoints'])) {
      if (!isObject(entry)) continue
      objects.push(entry)
      if (isObject(entry['runtime'])) objects.push(entry['runtime'])
    }
  }
  for (const key of ['dependencies', 'conflicts', 'iconPacks', 'files']) {
    if (Array.isArray(manifest[key])) for (const item of manifest[key]) if (isObject(item)) objects.push(item)
  }
  return objects
}

describe('unknown properties (ignored everywhere)', () => {
  it('never change the verdict or the codes, at the top level or in nested objects', () => {
    const additions = fc.array(
      fc.record({
        target: fc.nat(),
        name: fc.oneof(fc.string({minLength: 1, maxLength: 8}), fc.constantFrom('__proto__', 'constructor', 'toString', 'x-vendor', '$schema', 'ID', 'Version')),
        value: fc.jsonValue({maxDepth: 2}),
      }),
      {minLength: 1, maxLength: 5},
    )
    fc.assert(
      fc.property(subjectArbitrary, additions, (subject, added) => {
        const before = levels.map((level) => reportAt(subject, level))
        const extended = structuredClone(subject.manifest)
        const objects = fixedShapeObjects(extended)
        for (const {target, name, value} of added) {
          const object = objects[target % objects.length] as Record<string, unknown>
          if (knownNames.has(name) || Object.hasOwn(object, name)) continue
          // defineProperty: `__proto__` must become an own property, as JSON.parse makes it.
          Object.defineProperty(object, name, {value, enumerable: true, writable: true, configurable: true})
        }
        const after = levels.map((level) => reportAt(subject, level, manifestText(extended)))
        for (let i = 0; i < levels.length; i++) {
          const codes = (report: ValidationReport) => report.problems.map((problem) => `${problem.severity} ${problem.code} ${problem.pointer}`).sort()
          assert.equal(after[i]?.valid, before[i]?.valid, levels[i])
          assert.deepEqual(codes(after[i] as ValidationReport), codes(before[i] as ValidationReport), levels[i])
        }
      }),
      {numRuns: 300},
    )
  })
})
