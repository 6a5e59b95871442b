import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {checkCompatibility, type HostCompatibility} from '../../src/install/compatibility.js'
import {InstallError} from '../../src/install/errors.js'
import {assertExtractableTree} from '../../src/install/extract.js'
import type {ActivePlugin} from '../../src/install/installed.js'
import {selectPrunable, sortVersionsDescending} from '../../src/install/prune.js'
import {dependentsOf, evaluateRelations} from '../../src/install/relations.js'
import {admitVersion, assertNoTrustDowngrade, assertSamePublisher, forgetVersions, type TrustRecord} from '../../src/install/trust-record.js'
import type {Manifest} from '../../src/model/manifest.js'
import type {ArchiveEntry} from '../../src/archive/types.js'

function manifest(extra: Partial<Manifest> = {}): Manifest {
  return {manifestVersion: 1, id: 'com.example.subject', name: 'Subject', version: '2.0.0', entrypoints: {'linux-x64': {executable: 'bin/subject'}}, ...extra}
}

function active(id: string, activeVersion: string, extra: Partial<Manifest> = {}): [string, ActivePlugin] {
  return [id, {id, activeVersion, manifest: manifest({id, version: activeVersion, ...extra})}]
}

const host: HostCompatibility = {hostVersion: '1.5.0', protocol: {minimum: 1, maximum: 3}}

function incompatible(direction: string, member: string) {
  return (error: unknown) => error instanceof InstallError && error.code === 'incompatible' && error.details['direction'] === direction && error.details['member'] === member
}

describe('checkCompatibility', () => {
  it('accepts a protocol range that overlaps the host one', () => {
    assert.deepEqual(checkCompatibility(manifest({compatibility: {protocol: {minimum: 3, maximum: 5}}}), host), [])
  })
  it('refuses a plugin that needs newer protocol majors: host-too-old', () => {
    assert.throws(() => checkCompatibility(manifest({compatibility: {protocol: {minimum: 4, maximum: 5}}}), host), incompatible('host-too-old', 'protocol'))
  })
  it('refuses a plugin that speaks only older protocol majors: host-too-new', () => {
    assert.throws(() => checkCompatibility(manifest({compatibility: {protocol: {minimum: 1, maximum: 1}}}), {...host, protocol: {minimum: 2, maximum: 3}}), incompatible('host-too-new', 'protocol'))
  })
  it('refuses an svc lower bound above the host version: host-too-old', () => {
    assert.throws(() => checkCompatibility(manifest({compatibility: {svc: '>=2.0.0'}}), host), incompatible('host-too-old', 'svc'))
  })
  it('refuses an svc upper bound below the host version: host-too-new', () => {
    assert.throws(() => checkCompatibility(manifest({compatibility: {svc: '>=1.0.0, <1.5.0'}}), host), incompatible('host-too-new', 'svc'))
  })
  it('refuses an exact svc version by comparing it', () => {
    assert.throws(() => checkCompatibility(manifest({compatibility: {svc: '=1.6.0'}}), host), incompatible('host-too-old', 'svc'))
    assert.throws(() => checkCompatibility(manifest({compatibility: {svc: '1.4.0'}}), host), incompatible('host-too-new', 'svc'))
  })
  it('skips the svc range on a development host, with svc-compatibility-unchecked', () => {
    const warnings = checkCompatibility(manifest({compatibility: {svc: '>=9.0.0'}}), {...host, hostVersion: '0.0.0-dev'})
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['svc-compatibility-unchecked', false]])
  })
  it('records the sdk range only: sdk-compatibility-unchecked', () => {
    const warnings = checkCompatibility(manifest({compatibility: {sdk: '>=99.0.0'}}), host)
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['sdk-compatibility-unchecked', false]])
  })
})

describe('evaluateRelations', () => {
  it('reports a missing hard dependency as blocking and a missing optional one as not', () => {
    const warnings = evaluateRelations(manifest({dependencies: [{id: 'com.example.hard'}, {id: 'com.example.soft', optional: true}]}), new Map())
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['dependency-missing', true], ['dependency-missing', false]])
  })
  it('reports an active dependency outside its range: dependency-out-of-range', () => {
    const warnings = evaluateRelations(manifest({dependencies: [{id: 'com.example.dep', versionRange: '>=2.0.0'}]}), new Map([active('com.example.dep', '1.9.0')]))
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['dependency-out-of-range', true]])
  })
  it('is silent for a dependency whose active version satisfies the range', () => {
    assert.deepEqual(evaluateRelations(manifest({dependencies: [{id: 'com.example.dep', versionRange: '>=1.0.0'}]}), new Map([active('com.example.dep', '1.9.0')])), [])
  })
  it('blocks on a conflicting plugin whose active version is in the range, and only notes one outside it', () => {
    const inRange = evaluateRelations(manifest({conflicts: [{id: 'com.example.rival', versionRange: '<2.0.0'}]}), new Map([active('com.example.rival', '1.0.0')]))
    assert.deepEqual(inRange.map((item) => [item.code, item.blocking]), [['conflict-installed', true]])
    const outside = evaluateRelations(manifest({conflicts: [{id: 'com.example.rival', versionRange: '<2.0.0'}]}), new Map([active('com.example.rival', '3.0.0')]))
    assert.deepEqual(outside.map((item) => [item.code, item.blocking]), [['conflict-installed', false]])
  })
  it('blocks when an installed plugin declares a conflict with this version', () => {
    const warnings = evaluateRelations(manifest(), new Map([active('com.example.rival', '1.0.0', {conflicts: [{id: 'com.example.subject', versionRange: '>=2.0.0'}]})]))
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['conflict-installed', true]])
  })
  it('reports an icon pack that is not installed: icon-pack-unresolved, not blocking', () => {
    const warnings = evaluateRelations(manifest({iconPacks: [{id: 'com.example.icons'}]}), new Map())
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['icon-pack-unresolved', false]])
  })
  it('reports every unknown permission, not blocking', () => {
    const warnings = evaluateRelations(manifest({permissions: ['host:variables', 'host:teleport']}), new Map())
    assert.deepEqual(warnings.map((item) => [item.code, item.blocking]), [['unknown-permission', false]])
    assert.match(warnings[0]?.message ?? '', /host:teleport/)
  })
})

describe('dependentsOf', () => {
  it('names the active plugins that hard-depend on an id, not optional dependents', () => {
    const plugins = new Map([
      active('com.example.b', '1.0.0', {dependencies: [{id: 'com.example.a'}]}),
      active('com.example.c', '1.0.0', {dependencies: [{id: 'com.example.a', optional: true}]}),
      active('com.example.d', '1.0.0'),
    ])
    assert.deepEqual(dependentsOf('com.example.a', plugins), ['com.example.b'])
  })
})

describe('selectPrunable', () => {
  const installed = ['1.0.0', '1.1.0', '1.2.0', '2.0.0-beta.1', '2.0.0']
  it('keeps the active, the previous and nothing more with retain 0', () => {
    assert.deepEqual(selectPrunable(installed, ['2.0.0', '1.2.0'], 0).sort(), ['1.0.0', '1.1.0', '2.0.0-beta.1'])
  })
  it('keeps the newest others up to retain', () => {
    assert.deepEqual(selectPrunable(installed, ['2.0.0', '1.0.0'], 2), ['1.1.0'])
  })
  it('never prunes a kept version even when retain is 0', () => {
    assert.deepEqual(selectPrunable(['1.0.0'], ['1.0.0', null], 0), [])
  })
  it('sorts versions by SemVer precedence, newest first', () => {
    assert.deepEqual(sortVersionsDescending(['1.10.0', '1.9.0', '1.10.0-rc.1']), ['1.10.0', '1.10.0-rc.1', '1.9.0'])
  })
})

describe('trust records', () => {
  const publisher = {kind: 'creator', id: 'com.example'}
  const trusted: TrustRecord = {verdict: 'Trusted', certificateId: 'cert_a', publisher, versions: {'1.0.0': {verdict: 'Trusted', certificateId: 'cert_a', publisher, admittedAt: ''}}}
  it('refuse an Unsigned version once the plugin was Trusted: trust-downgrade', () => {
    assert.throws(() => assertNoTrustDowngrade(trusted, 'Unsigned', 'com.example.subject', '2.0.0'), (error: unknown) => error instanceof InstallError && error.code === 'trust-downgrade')
  })
  it('accept a Trusted version after an Unsigned one, and the plugin verdict rises', () => {
    const unsigned: TrustRecord = {verdict: 'Unsigned', certificateId: null, publisher: null, versions: {}}
    assertNoTrustDowngrade(unsigned, 'Trusted', 'com.example.subject', '2.0.0')
    const next = admitVersion(unsigned, '2.0.0', {verdict: 'Trusted', certificateId: 'cert_b', publisher, admittedAt: 'now'})
    assert.equal(next.verdict, 'Trusted')
    assert.equal(next.certificateId, 'cert_b')
    assert.deepEqual(next.publisher, publisher)
  })
  it('keep the plugin verdict when versions are forgotten', () => {
    assert.deepEqual(forgetVersions(trusted, []), {verdict: 'Trusted', certificateId: 'cert_a', publisher, versions: {}})
  })
  it('refuse a Trusted version signed by another subject: publisher-changed', () => {
    assert.throws(
      () => assertSamePublisher(trusted, {kind: 'creator', id: 'org.other'}, 'com.example.subject', '2.0.0'),
      (error: unknown) => error instanceof InstallError && error.code === 'publisher-changed' && (error.details.pinned as {id: string}).id === 'com.example',
    )
    assertSamePublisher(trusted, {kind: 'creator', id: 'com.example'}, 'com.example.subject', '2.0.0')
    assertSamePublisher({...trusted, publisher: null}, {kind: 'creator', id: 'org.other'}, 'com.example.subject', '2.0.0')
  })
})

describe('assertExtractableTree', () => {
  const entry = (name: string): ArchiveEntry => ({name, method: 8, compressedSize: 1, uncompressedSize: 1, crc32: 0, mode: 0})
  it('refuses a file that is also a directory of another entry: unsafe-entry', () => {
    assert.throws(() => assertExtractableTree([entry('a'), entry('a/b')]), (error: unknown) => error instanceof InstallError && error.code === 'unsafe-entry' && error.details['reason'] === 'file-directory-conflict')
  })
  it('refuses two spellings of one directory', () => {
    assert.throws(() => assertExtractableTree([entry('Bin/a'), entry('bin/b')]), (error: unknown) => error instanceof InstallError && error.details['reason'] === 'case-conflict')
  })
  it('accepts a plain tree', () => {
    assertExtractableTree([entry('manifest.json'), entry('bin/a'), entry('bin/sub/b')])
  })
})
