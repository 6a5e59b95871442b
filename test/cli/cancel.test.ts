import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {mkdir, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {setTimeout as sleep} from 'node:timers/promises'
import {cliPath, tempDir} from '../helpers/cli.js'

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
