import assert from 'node:assert/strict'
import {rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, describe, it} from 'node:test'

import {activate} from '../../src/install/activate.js'
import {install} from '../../src/install/install.js'
import {tempDir} from '../helpers/cli.js'
import {testNow} from './helpers/artifacts.js'
import {checkConsentCases} from './helpers/consent.js'
import {inWorkspace, installError} from './helpers/workspace.js'

// The invariant is stated in helpers/consent.ts; consent.exhaustive.test.ts checks many more pairs.

const sampleRuns = 16

const work = await tempDir('svc-plugin-consent-')
after(() => work.cleanup())

const options = (dataRoot: string) => ({dataRoot, hostRid: 'linux-x64', now: testNow, allowUnsigned: true})
const none = {added: [], removed: []}

describe('consent to what an update newly asks for', () => {
  it(`is asked iff the update adds something, and a refusal leaves the data root as it was: ${sampleRuns} seeded pairs of manifests`, async () => {
    await checkConsentCases(work.dir, sampleRuns, 0x5e7)
  })

  it('compares with the active version, not the newest installed one', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0'}), options(ws.dataRoot))
      const wider = {manifest: {permissions: ['net:outbound']}}
      await install(await ws.artifact('v2', {version: '2.0.0', ...wider}), {...options(ws.dataRoot), consent: () => true})
      await activate(ws.dataRoot, 'com.example.alpha', '1.0.0')
      // 3.0.0 asks for what 2.0.0 did, but 1.0.0 is the active version: net:outbound is new to it.
      await assert.rejects(install(await ws.artifact('v3', {version: '3.0.0', ...wider}), options(ws.dataRoot)), installError('consent-required', {
        activeVersion: '1.0.0',
        changes: {permissions: {added: ['net:outbound'], removed: []}, dependencies: none, runtimes: none},
      }))
    })
  })

  it('treats an active version whose manifest cannot be read as having been granted nothing', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('v1', {version: '1.0.0', manifest: {permissions: ['net:outbound']}}), options(ws.dataRoot))
      await writeFile(path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0', 'manifest.json'), '{"broken": ')
      await assert.rejects(install(await ws.artifact('v2', {version: '2.0.0', manifest: {permissions: ['net:outbound']}}), options(ws.dataRoot)), installError('consent-required', {
        changes: {permissions: {added: ['net:outbound'], removed: []}, dependencies: none, runtimes: {added: ['linux-x64'], removed: []}},
      }))
      await rm(path.join(ws.plugin('com.example.alpha'), 'versions', '1.0.0', 'manifest.json'))
      const result = await install(await ws.artifact('v2b', {version: '2.0.0'}), {...options(ws.dataRoot), consent: () => true})
      assert.deepEqual(result.changes, {permissions: none, dependencies: none, runtimes: {added: ['linux-x64'], removed: []}})
    })
  })

  it('asks nothing of a forced reinstall of the same version, and reports that nothing changed', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('v1', {version: '1.0.0', manifest: {permissions: ['net:outbound']}})
      await install(artifact, options(ws.dataRoot))
      const result = await install(artifact, {...options(ws.dataRoot), force: true, consent: () => assert.fail('asked')})
      assert.deepEqual(result.changes, {permissions: none, dependencies: none, runtimes: none})
    })
  })
})
