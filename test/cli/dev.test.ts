import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {cp, readFile, readdir, rename, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {setTimeout as sleep} from 'node:timers/promises'
import {cliPath, fixturesDir, runCli, tempDir} from '../helpers/cli.js'

/** Polls `check` until it holds; fails after a deadline generous enough for a loaded machine (never a measure of speed). */
async function eventually(what: string, check: () => Promise<boolean> | boolean, describeState: () => string): Promise<void> {
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(50)) if (await check()) return
  assert.fail(`${what} did not happen; ${describeState()}`)
}

/** The bytes of `file` in the active version of the example plugin, or null while there is none. */
async function activeFile(dataRoot: string, file: string): Promise<string | null> {
  const plugin = path.join(dataRoot, 'plugins', 'com.example.weather-station')
  try {
    const {version} = JSON.parse(await readFile(path.join(plugin, 'current.json'), 'utf8')) as {version: string}
    return await readFile(path.join(plugin, 'versions', version, file), 'utf8')
  } catch {
    return null
  }
}

describe('svc-plugin dev, as a real process', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let folder: string
  let dataRoot: string
  before(async () => {
    scratch = await tempDir('dev-cli-')
    folder = path.join(scratch.dir, 'weather-station')
    dataRoot = path.join(scratch.dir, 'data')
    await cp(path.join(fixturesDir, 'example-plugin'), folder, {recursive: true})
  })
  after(() => scratch.cleanup())

  it('installs on start and after each edit, keeps the last good version while the manifest is broken, and stops on SIGINT with status 0 and a settled data root', async () => {
    const child = spawn(process.execPath, [cliPath, 'dev', folder, '--data-root', dataRoot], {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const exited = new Promise<{status: number | null; signal: NodeJS.Signals | null}>((resolve) => child.on('close', (status, signal) => resolve({status, signal})))
    const state = () => `stdout: ${JSON.stringify(stdout)}, stderr: ${JSON.stringify(stderr)}`
    try {
      const original = await readFile(path.join(folder, 'README.md'), 'utf8')
      await eventually('the first install', async () => (await activeFile(dataRoot, 'README.md')) === original, state)
      await eventually('the round printed', () => /^installed com\.example\.weather-station 1\.4\.2 \(dev\) in \d+ ms$/m.test(stdout), state)

      await writeFile(path.join(folder, 'README.md'), 'edited once\n')
      await eventually('the edit installed', async () => (await activeFile(dataRoot, 'README.md')) === 'edited once\n', state)

      const manifest = path.join(folder, 'manifest.json')
      const good = await readFile(manifest, 'utf8')
      await writeFile(manifest, good.replace('"version": "1.4.2"', '"version": "1.4"'))
      await eventually('the problem printed', () => /^1 error; kept 1\.4\.2$/m.test(stdout), state)
      // The problem as validate prints it, then the round's line.
      assert.match(stdout, /^error invalid-version: .*\n {2}at .*manifest\.json:\d+:\d+\n.*1 error, 0 warnings\.\n1 error; kept 1\.4\.2$/m)
      assert.equal(await activeFile(dataRoot, 'README.md'), 'edited once\n')

      // The fix arrives as an editor saves: a new file renamed over the manifest.
      await writeFile(path.join(folder, 'README.md'), 'edited twice\n')
      await writeFile(`${manifest}.new`, good)
      await rename(`${manifest}.new`, manifest)
      await eventually('the fix installed', async () => (await activeFile(dataRoot, 'README.md')) === 'edited twice\n', state)
    } finally {
      child.kill('SIGINT')
    }
    const {status, signal} = await exited
    assert.deepEqual({status, signal}, {status: 0, signal: null}, state())
    assert.deepEqual(await readdir(path.join(dataRoot, 'plugins', '_staging')), [])
    assert.ok(!(await readdir(path.join(dataRoot, 'plugins', 'com.example.weather-station'))).includes('.lock'))
  })

  it('--once runs one round: 0 when it installs, 1 with the problem when the folder is invalid', async () => {
    const once = path.join(scratch.dir, 'once')
    await cp(path.join(fixturesDir, 'example-plugin'), once, {recursive: true})
    const installed = await runCli(['dev', once, '--data-root', path.join(scratch.dir, 'data-once'), '--once'])
    assert.equal(installed.status, 0, installed.stderr)
    assert.match(installed.stdout, /^installed com\.example\.weather-station 1\.4\.2 \(dev\) in \d+ ms\n$/)
    await writeFile(path.join(once, 'manifest.json'), '{"manifestVersion": 1}\n')
    const invalid = await runCli(['dev', once, '--data-root', path.join(scratch.dir, 'data-once'), '--once', '--json'])
    assert.equal(invalid.status, 1, invalid.stderr)
    const round = JSON.parse(invalid.stdout) as {outcome: string; errors: number; kept: unknown; problems: {code: string}[]}
    assert.equal(round.outcome, 'invalid')
    assert.equal(round.kept, null)
    assert.equal(round.errors, round.problems.filter((problem) => (problem as {severity?: string}).severity === 'error').length)
    assert.ok(round.problems.some((problem) => problem.code === 'schema:required'), invalid.stdout)
  })
})
