import assert from 'node:assert/strict'
import {mkdirSync, renameSync, rmSync} from 'node:fs'
import {rename, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'
import {install} from '../../src/install/install.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {createSigner, testNow} from './helpers/artifacts.js'
import {inWorkspace, installError} from './helpers/workspace.js'

const id = 'com.example.alpha'

/**
 * A signal that never aborts, and runs `change` (synchronously, as another process would change the data
 * root while the check reads it) at its `at`th check: the launch gate checks its signal between the
 * folders and files it reads.
 */
function changingAt(at: number, change: () => void): AbortSignal {
  const {signal} = new AbortController()
  let checks = 0
  Object.defineProperty(signal, 'aborted', {
    get(): boolean {
      checks += 1
      if (checks === at) change()
      return false
    },
  })
  return signal
}

describe('verifyInstalled while another operation changes the plugin (it takes no lock)', () => {
  it('judges the tree the version resolves to when the layout step renames it mid-check', async () => {
    for (let at = 1; at <= 6; at += 1) {
      await inWorkspace(async (ws) => {
        const signer = createSigner()
        await install(await ws.artifact('a', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
        // A forced reinstall before its layout step: the active tree under `1.0.0_1`, current.json naming it.
        const versions = path.join(ws.plugin(id), 'versions')
        await rename(path.join(versions, '1.0.0'), path.join(versions, '1.0.0_1'))
        await writeFile(path.join(ws.plugin(id), 'current.json'), '{"version":"1.0.0","directory":"1.0.0_1"}\n')
        // The layout step runs while the launch gate reads the tree.
        const signal = changingAt(at, () => renameSync(path.join(versions, '1.0.0_1'), path.join(versions, '1.0.0')))
        const result = await verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, hostRid: 'linux-x64', signal})
        assert.deepEqual(result.problems, [], `change at check ${at}`)
        assert.equal(result.valid, true)
        assert.equal(result.directory, path.join(versions, '1.0.0'))
      })
    }
  })

  it('says not-installed, not io-error, when an uninstall takes the versions out mid-check', async () => {
    for (let at = 1; at <= 6; at += 1) {
      await inWorkspace(async (ws) => {
        const signer = createSigner()
        await install(await ws.artifact('a', {signer}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})
        const signal = changingAt(at, () => {
          // What uninstall does: current.json first, then versions/ renamed out into staging.
          rmSync(path.join(ws.plugin(id), 'current.json'))
          const staging = path.join(ws.dataRoot, 'plugins', '_staging', `${id}_${'a'.repeat(24)}`)
          mkdirSync(staging, {recursive: true})
          renameSync(path.join(ws.plugin(id), 'versions'), path.join(staging, 'discarded'))
        })
        await assert.rejects(verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, hostRid: 'linux-x64', signal}), installError('not-installed'), `change at check ${at}`)
      })
    }
  })
})
