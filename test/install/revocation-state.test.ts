import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'

import {install} from '../../src/install/install.js'
import {readRecordedRevocations, revocationStateFile} from '../../src/install/revocation-state.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {tempDir} from '../helpers/cli.js'
import {testNow} from './helpers/artifacts.js'
import {alpha, installOutcomes, listNames, prepareRevocationWorld, probes, runSteps, type RevocationWorld, type Step} from './helpers/revocation-world.js'

// Invariant: once a data root has recorded a revocation from any trusted root, no later install,
// activation or launch check on it admits what it revokes, whatever list (or none) it is given and in
// whatever order the lists of two roots arrive. A list is recorded the moment it verifies, however the
// operation it was given to ends: every way an install can end (each refusal code, and success) is a step.
// revocation-state.exhaustive.test.ts runs every order of the two roots' lists with every outcome.

/** Seeded sequences in the everyday suite. */
const sampleRuns = 12

const work = await tempDir('svc-plugin-revocation-state-')
after(() => work.cleanup())
let world: RevocationWorld
before(async () => {
  world = await prepareRevocationWorld(work.dir)
})

describe('the revocation state of a data root', () => {
  it('is reached by every way an install can end: each outcome ends with its own code on the template', async () => {
    await runSteps(world, path.join(work.dir, 'outcomes'), installOutcomes.map((outcome) => ({list: null, outcome})))
  })

  it(`never un-happens: ${sampleRuns} seeded sequences of installs ending every way, with lists of two roots in any order, each followed by a probe`, async () => {
    const list = fc.constantFrom(null, ...listNames)
    const pair = fc.tuple(list, fc.constantFrom(...installOutcomes), list, fc.constantFrom(...probes))
    const sequence = fc.array(pair, {minLength: 2, maxLength: 5}).map((pairs) => pairs.flatMap(([outcomeList, outcome, probeList, probe]): Step[] => [
      {list: outcomeList, outcome},
      {list: probeList, probe},
    ]))
    await fc.assert(
      fc.asyncProperty(sequence, (steps) => runSteps(world, path.join(work.dir, 'sequence'), steps)),
      {numRuns: sampleRuns, seed: 0x4e70c, endOnFailure: true},
    )
  })

  it('refuses, after root A revoked X, root B\'s older genuine list that lacks it: the install, the activation and the launch check', async () => {
    await runSteps(world, path.join(work.dir, 'two-roots'), [
      {list: 'A2', outcome: 'manifest-invalid'},
      {list: 'B1', probe: 'install'},
      {list: 'B1', probe: 'activate'},
      {list: 'B1', probe: 'launch'},
      {list: null, outcome: 'revocable'},
    ])
  })

  it('keeps the list itself: recorded, read back, and a record whose list is not the one it names fails closed', async () => {
    const dataRoot = path.join(work.dir, 'record')
    await runSteps(world, dataRoot, [{list: 'A2', outcome: 'ok'}])
    assert.deepEqual(await readRecordedRevocations(dataRoot), [world.lists.A2.content])
    const record = JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8'))
    record.roots.root_alpha.json = Buffer.from(world.lists.A1.json).toString('base64')
    await writeFile(revocationStateFile(dataRoot), JSON.stringify(record))
    await assert.rejects(verifyInstalled(dataRoot, alpha, {trust: world.trust, now: testNow}), {code: 'revocation-list-rollback'})
  })

  it('reads the record of an earlier version (sequences only): its sequences still refuse older lists', async () => {
    const dataRoot = path.join(work.dir, 'earlier')
    await mkdir(path.join(dataRoot, 'plugins'), {recursive: true})
    const sha256 = `sha256:${createHash('sha256').update(world.lists.A2.json).digest('hex')}`
    await writeFile(revocationStateFile(dataRoot), JSON.stringify({schemaVersion: 1, roots: {root_alpha: {sequence: 2, sha256, issuedAt: world.lists.A2.content.issuedAt}}}))
    assert.deepEqual(await readRecordedRevocations(dataRoot), [])
    const options = {dataRoot, trust: world.trust, now: testNow, hostRid: 'linux-x64'}
    await assert.rejects(install(world.artifacts['betaSigned'] as string, {...options, revocations: world.lists.A1}), {code: 'revocation-list-rollback'})
    // The next list of that root is recorded with the list itself.
    await assert.rejects(install(world.artifacts['probe'] as string, {...options, revocations: world.lists['A3-stale']}), {code: 'revocation-list-stale'})
    await assert.rejects(install(world.artifacts['probe'] as string, options), {code: 'signature-revoked'})
  })
})
