import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'

import {asksForMore, compareManifests, describeChanges, type ManifestChanges} from '../../src/manifest/changes.js'

// Invariant: for any two manifests, `compareManifests` reports as added exactly what the newer one asks for
// and the older did not, as removed exactly the reverse, each sorted and without repeats, for permissions,
// dependency ids and runtime identifiers alike; `asksForMore` is true iff anything was added. Members of
// the wrong shape (not a list, entries that are not text, a dependency without a text id) declare nothing.

const permissionPool = ['net:outbound', 'fs:user-files', 'process:spawn', 'host:deck', 'custom:thing']
const dependencyPool = ['com.example.a', 'com.example.b', 'com.example.c']
const ridPool = ['linux-x64', 'linux-arm64', 'osx-arm64', 'win-x64']

/** What a generated manifest asks for, as sets. */
interface Requests {
  permissions: string[]
  dependencies: string[]
  runtimes: string[]
}

const requests: fc.Arbitrary<Requests> = fc.record({
  permissions: fc.subarray(permissionPool),
  dependencies: fc.subarray(dependencyPool),
  runtimes: fc.subarray(ridPool),
})

/** A manifest document asking for `wanted`, with repeats, noise a validator would refuse, and other members. */
const manifestOf = (wanted: Requests): fc.Arbitrary<Record<string, unknown>> =>
  fc.record({repeat: fc.boolean(), optional: fc.boolean(), noise: fc.boolean()}).map(({repeat, optional, noise}) => {
    const permissions: unknown[] = repeat ? [...wanted.permissions, ...wanted.permissions] : [...wanted.permissions]
    const dependencies: unknown[] = wanted.dependencies.map((id) => ({id, versionRange: '>=1.0.0', ...(optional ? {optional: true} : {})}))
    if (noise) permissions.push(7, null, {name: 'net:outbound'})
    if (noise) dependencies.push({versionRange: '1'}, 'com.example.z', {id: 3})
    const entrypoints = Object.fromEntries(wanted.runtimes.map((rid) => [rid, {executable: `runtimes/${rid}/x`}]))
    const manifest: Record<string, unknown> = {manifestVersion: 1, id: 'com.example.x', version: '1.0.0', entrypoints, name: 'X'}
    if (permissions.length > 0 || noise) manifest.permissions = permissions
    if (dependencies.length > 0 || noise) manifest.dependencies = dependencies
    return manifest
  })

const manifestPair = fc.tuple(requests, requests).chain(([older, newer]) => fc.tuple(fc.constant(older), fc.constant(newer), manifestOf(older), manifestOf(newer)))

const minus = (a: readonly string[], b: readonly string[]) => a.filter((item) => !b.includes(item)).sort()

describe('compareManifests', () => {
  it('adds exactly what the newer asks for anew, removes exactly what it dropped, and asks for more iff anything was added', () => {
    fc.assert(
      fc.property(manifestPair, ([older, newer, olderManifest, newerManifest]) => {
        const changes = compareManifests(olderManifest, newerManifest)
        const expected: ManifestChanges = {
          permissions: {added: minus(newer.permissions, older.permissions), removed: minus(older.permissions, newer.permissions)},
          dependencies: {added: minus(newer.dependencies, older.dependencies), removed: minus(older.dependencies, newer.dependencies)},
          runtimes: {added: minus(newer.runtimes, older.runtimes), removed: minus(older.runtimes, newer.runtimes)},
        }
        assert.deepEqual(changes, expected)
        const added = expected.permissions.added.length + expected.dependencies.added.length + expected.runtimes.added.length
        assert.equal(asksForMore(changes), added > 0)
        assert.equal(describeChanges(changes, 'added').length, added)
        // The comparison is its own mirror: swapped, additions become removals.
        const mirrored = compareManifests(newerManifest, olderManifest)
        for (const kind of ['permissions', 'dependencies', 'runtimes'] as const) assert.deepEqual(mirrored[kind], {added: changes[kind].removed, removed: changes[kind].added})
      }),
      {numRuns: 500, seed: 0xc0de},
    )
  })

  it('names each addition and removal by its kind, permissions first, then dependencies, then runtime identifiers', () => {
    const changes = compareManifests(
      {permissions: ['host:deck'], dependencies: [{id: 'com.example.old'}], entrypoints: {'win-x64': {}}},
      {permissions: ['net:outbound', 'host:deck'], dependencies: [{id: 'com.example.new'}], entrypoints: {'linux-arm64': {}}},
    )
    assert.deepEqual(describeChanges(changes, 'added'), ['permission net:outbound', 'dependency com.example.new', 'runtime identifier linux-arm64'])
    assert.deepEqual(describeChanges(changes, 'removed'), ['dependency com.example.old', 'runtime identifier win-x64'])
  })

  it('reads a document that declares nothing (not an object where one is expected) as asking for nothing', () => {
    const changes = compareManifests({entrypoints: ['linux-x64'], permissions: 'net:outbound', dependencies: {id: 'com.example.a'}}, {})
    assert.deepEqual(changes, {permissions: {added: [], removed: []}, dependencies: {added: [], removed: []}, runtimes: {added: [], removed: []}})
  })
})
