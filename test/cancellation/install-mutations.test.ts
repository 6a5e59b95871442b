import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {pluginPaths} from '../../src/install/layout.js'
import {dataRootInputs, installCase, installDataRoot, pluginId, setCaseSize, type DataRootInputs} from './cases.js'
import {checkMutationAborts, journalMutation} from './mutation-aborts.js'

let dir: string
let inputs: DataRootInputs
before(async () => {
  setCaseSize('sample')
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-cancel-mutations-'))
  inputs = await dataRootInputs(await mkdtemp(path.join(dir, 'inputs-')))
})
after(() => rm(dir, {recursive: true, force: true}))

describe('an install whose signal is aborted just before one of its changes to the disk, at a fixed sample of 10 of them, spread over all', () => {
  it('rejects with AbortError and leaves the data root as it was (old version active, no staging, no lock) before the journal, and completes whole from it on', async () => {
    const work = await mkdtemp(path.join(dir, 'install-'))
    const pluginDirectory = path.dirname(pluginPaths(installDataRoot(work), pluginId).transaction)
    const seen = await checkMutationAborts(installCase(work, inputs), journalMutation(pluginDirectory), 10)
    assert.ok(seen.cancelled > 0 && seen.completed > 0, JSON.stringify(seen))
  })
})
