import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {mkdir, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {setTimeout as sleep} from 'node:timers/promises'
import {isTemporarySiblingOf} from '../../src/fs/durable.js'
import {acquireLock} from '../../src/fs/lock.js'
import {install} from '../../src/install/install.js'
import {pluginPaths} from '../../src/install/layout.js'
import {cliPath, tempDir} from '../helpers/cli.js'
import {createSigner, snapshotTree, writeArtifact} from '../install/helpers/artifacts.js'

describe('a pack interrupted by SIGINT', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let tree: string

  before(async () => {
    scratch = await tempDir()
    tree = path.join(scratch.dir, 'slow')
    await mkdir(path.join(tree, 'bin'), {recursive: true})
    const manifest = {manifestVersion: 1, id: 'com.example.slow', name: 'Slow', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'bin/slow'}}}
    await writeFile(path.join(tree, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    // Base64 text deflates slowly and only a little: the write phase lasts long enough to be interrupted.
    for (let i = 0; i < 8; i += 1) await writeFile(path.join(tree, 'bin', `part-${i}.txt`), randomBytes(6 * 1024 * 1024).toString('base64'))
    await writeFile(path.join(tree, 'bin', 'slow'), 'ELF')
  })
  after(() => scratch.cleanup())

  it('exits 4 and leaves neither the artifact, nor a partial file, nor the folders it created for them', async () => {
    const out = path.join(scratch.dir, 'out')
    await mkdir(out)
    const folder = path.join(out, 'new', 'deeper')
    const child = spawn(process.execPath, [cliPath, 'pack', tree, '--output', path.join(folder, 'slow.svcPlugin')], {stdio: ['ignore', 'pipe', 'pipe']})
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    // Interrupt once the partial archive exists, i.e. in the middle of the write.
    let interrupted = false
    for (let i = 0; i < 600 && child.exitCode === null; i += 1) {
      if ((await readdir(folder).catch(() => [])).some((name) => name.endsWith('.tmp'))) {
        child.kill('SIGINT')
        interrupted = true
        break
      }
      await sleep(10)
    }
    const status = await exited
    assert.ok(interrupted, 'the pack finished before it could be interrupted')
    assert.equal(status, 4, stderr)
    // The library call was cancelled through the command's AbortSignal, and the action reported it.
    assert.match(stderr, /^error cancelled: The operation was cancelled \(interrupted by SIGINT\)\.$/m)
    assert.deepEqual(await readdir(out), [])
  })
})

describe('an install interrupted by SIGINT', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  before(async () => {
    scratch = await tempDir()
  })
  after(() => scratch.cleanup())

  it('exits 4 with error cancelled, prints nothing on stdout, and leaves the data root as it was: 1.0.0 active, no staging, no lock', async () => {
    const id = 'com.example.interrupted'
    // Signed at the real clock: the command verifies at the current time.
    const signer = createSigner({now: new Date()})
    const trust = path.join(scratch.dir, 'trust.json')
    await writeFile(trust, `${JSON.stringify(signer.trust)}\n`)
    const dataRoot = path.join(scratch.dir, 'data')
    await install(await writeArtifact(path.join(scratch.dir, 'v1.svcPlugin'), {id, version: '1.0.0', signer}), {dataRoot, trust: signer.trust, now: signer.now, hostRid: 'linux-x64'})
    const v2 = await writeArtifact(path.join(scratch.dir, 'v2.svcPlugin'), {id, version: '1.1.0', signer})
    const before = await snapshotTree(dataRoot)

    // Another operation holds the plugin's lock: the install is interrupted while it waits for it, and it
    // could not have finished first (it would wait ten minutes).
    const {lock} = pluginPaths(dataRoot, id)
    const held = await acquireLock(lock)
    const child = spawn(process.execPath, [cliPath, 'install', v2, '--data-root', dataRoot, '--rid', 'linux-x64', '--trust', trust], {stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    try {
      // Its own attempt at the lock (a temporary directory beside it) shows that it waits.
      const waiting = async () => (await readdir(path.dirname(lock))).some((name) => isTemporarySiblingOf(name, '.lock') && name.includes(`.${child.pid}.`))
      while (child.exitCode === null && !(await waiting())) await sleep(10)
      assert.equal(child.exitCode, null, `the install ended before it waited for the lock: ${stderr}`)
      child.kill('SIGINT')
      assert.equal(await exited, 4, stderr)
    } finally {
      await held.release()
    }
    assert.match(stderr, /^error cancelled: The operation was cancelled \(interrupted by SIGINT\)\.$/m)
    assert.equal(stdout, '')
    assert.deepEqual(await snapshotTree(dataRoot), before)
  })
})
