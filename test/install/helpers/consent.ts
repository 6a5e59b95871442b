import assert from 'node:assert/strict'
import path from 'node:path'
import fc from 'fast-check'

import {install} from '../../../src/install/install.js'
import type {ManifestChanges} from '../../../src/manifest/changes.js'
import {snapshotTree, testNow, writeArtifact} from './artifacts.js'
import {installError} from './workspace.js'

// Invariant: an update is asked for consent iff its manifest adds a permission, a dependency or a runtime
// identifier to what the active version asks for; refused (no consent callback, or one answering false),
// it ends in `consent-required` with the changes in its details and the data root unchanged byte for byte
// but for the revocation record; consented to (or adding nothing) it installs and reports the same changes.
// A first install never asks.

const id = 'com.example.consent'
const permissionPool = ['net:outbound', 'fs:user-files', 'process:spawn', 'host:deck']
const dependencyPool = ['com.example.dep-a', 'com.example.dep-b']
const ridPool = ['linux-x64', 'linux-arm64', 'osx-arm64']

/** What one version asks for. */
interface Requests {
  permissions: string[]
  dependencies: string[]
  runtimes: string[]
}

/** How the update is answered: no callback, a callback answering false, one answering true (sync or async). */
type Answer = 'none' | 'refuse' | 'accept' | 'accept-async'

const requests: fc.Arbitrary<Requests> = fc.record({
  permissions: fc.subarray(permissionPool),
  dependencies: fc.subarray(dependencyPool),
  runtimes: fc.subarray(ridPool, {minLength: 1}),
})

const answers = fc.constantFrom<Answer>('none', 'refuse', 'accept', 'accept-async')

/** A generated pair of versions and how the update is answered. */
const cases = fc.tuple(requests, requests, answers)

async function writeVersion(file: string, version: string, wanted: Requests): Promise<string> {
  const payload = Object.fromEntries(wanted.runtimes.map((rid) => [`runtimes/${rid}/consent`, `ELF ${rid} ${version}\n`]))
  const manifest: Record<string, unknown> = {
    entrypoints: Object.fromEntries(wanted.runtimes.map((rid) => [rid, {executable: `runtimes/${rid}/consent`}])),
    permissions: wanted.permissions.length === 0 ? undefined : wanted.permissions,
    dependencies: wanted.dependencies.length === 0 ? undefined : wanted.dependencies.map((dependency) => ({id: dependency, versionRange: '>=1.0.0'})),
  }
  return writeArtifact(file, {id, version, manifest, payload: {...payload, 'assets/readme.txt': `About ${version}\n`}})
}

const minus = (a: readonly string[], b: readonly string[]) => a.filter((item) => !b.includes(item)).sort()

/** The changes from `older` to `newer`, computed from the sets themselves. */
function expectedChanges(older: Requests, newer: Requests): ManifestChanges {
  const change = (kind: keyof Requests) => ({added: minus(newer[kind], older[kind]), removed: minus(older[kind], newer[kind])})
  return {permissions: change('permissions'), dependencies: change('dependencies'), runtimes: change('runtimes')}
}

// The revocation record is the one file an install writes before anything can refuse it.
const notTheRevocationRecord = (relative: string) => relative === 'plugins/_revocations.json'

/** Runs one case in a fresh data root under `dir`. */
async function checkCase(dir: string, [older, newer, answer]: [Requests, Requests, Answer]): Promise<void> {
  const dataRoot = path.join(dir, 'data')
  const options = {dataRoot, hostRid: 'linux-x64', now: testNow, allowUnsigned: true}
  const asked: ManifestChanges[] = []
  const consent = answer === 'none' ? undefined : (changes: ManifestChanges) => {
    asked.push(changes)
    return answer === 'accept-async' ? Promise.resolve(true) : answer === 'accept'
  }
  const first = await install(await writeVersion(path.join(dir, 'old.svcPlugin'), '1.0.0', older), {...options, ...(consent === undefined ? {} : {consent})})
  assert.equal(first.changes, null)
  assert.equal(asked.length, 0, 'a first install never asks')

  const expected = expectedChanges(older, newer)
  const addsAnything = expected.permissions.added.length + expected.dependencies.added.length + expected.runtimes.added.length > 0
  const update = await writeVersion(path.join(dir, 'new.svcPlugin'), '2.0.0', newer)
  const before = await snapshotTree(dataRoot, {exclude: notTheRevocationRecord})
  const run = install(update, {...options, ...(consent === undefined ? {} : {consent})})
  if (addsAnything && (answer === 'none' || answer === 'refuse')) {
    await assert.rejects(run, installError('consent-required', {id, version: '2.0.0', activeVersion: '1.0.0', changes: expected}))
    assert.deepEqual(await snapshotTree(dataRoot, {exclude: notTheRevocationRecord}), before)
  } else {
    const result = await run
    assert.deepEqual(result.changes, expected)
    assert.equal(result.version, '2.0.0')
  }
  assert.deepEqual(asked, addsAnything && answer !== 'none' ? [expected] : [], 'consent is asked iff something was added')
}

/** Checks `runs` generated cases (seeded), each in its own directory under `dir`. */
export async function checkConsentCases(dir: string, runs: number, seed: number): Promise<void> {
  let round = 0
  await fc.assert(
    fc.asyncProperty(cases, (generated) => checkCase(path.join(dir, `case-${++round}`), generated)),
    {numRuns: runs, seed, endOnFailure: true},
  )
}
