import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {mkdir, rm, symlink} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {cliPath, repoRoot, runCli, tempDir, type CliResult} from '../helpers/cli.js'

/**
 * The binary as a process: what it loads for a command, and what the process around the command line does
 * to it (a stdout closed early, a working directory removed, something piped to stdin, a link to it).
 */

let dir: string
let cleanup: () => Promise<void>
const fixture = (...parts: string[]): string => path.join(repoRoot, 'fixtures', ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-process-'))
})
after(async () => cleanup())

interface SpawnOptions {
  cwd: string
  /** What stdin holds (it is closed after). */
  input?: string
  /** Close the reading end of stdout at once, as `| head -c 0` does. */
  closeStdout?: boolean
  /** Run in a folder removed before node starts. */
  removedCwd?: boolean
}

/** Runs `node <script> <args>` and collects what it prints and its exit status. */
function spawnScript(script: string, args: readonly string[], options: SpawnOptions): Promise<CliResult> {
  const command = options.removedCwd === true ? ['/bin/sh', '-c', 'mkdir gone && cd gone && rmdir ../gone && exec "$0" "$@"', process.execPath] : [process.execPath]
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, [...command.slice(1), script, ...args], {cwd: options.cwd, env: {...process.env, NO_COLOR: '1'}, stdio: ['pipe', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    if (options.closeStdout === true) child.stdout.destroy()
    else child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (status, signal) => resolve({status, signal, stdout, stderr}))
    child.stdin.end(options.input ?? '')
  })
}

describe('what the binary loads', () => {
  /** The files the binary loads for `args`, relative to the repository, in the order it loads them. */
  function loadedFiles(args: string[], expectedStatus: number): string[] {
    const hook = path.join(dir, 'record-loads.mjs')
    const log = path.join(dir, 'loads.txt')
    const recorder = `import {appendFileSync} from 'node:fs'\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context) }`
    writeFileSync(hook, `import {register} from 'node:module'\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(recorder)}`)})\n`)
    writeFileSync(log, '')
    const child = spawnSync(process.execPath, ['--import', hook, cliPath, ...args], {cwd: dir, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
    assert.equal(child.status, expectedStatus, child.stderr)
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .map((url) => path.relative(repoRoot, new URL(url).pathname))
  }
  const cli = (...file: string[]) => path.join('dist', 'bundle', 'cli', ...file)

  // The command's module is asked for while oclif starts (commands/main.ts): still the one command alone.
  for (const {args, status, commandLine} of [
    {args: ['validate', fixture('example-plugin'), '--quiet'], status: 0, commandLine: [cli('commands', 'validate.mjs'), cli('main.mjs')]},
    {args: ['cert', 'root', '--output', 'root', '--quiet'], status: 0, commandLine: [cli('commands', 'cert', 'root.mjs'), cli('main.mjs')]},
    {args: ['valdate', 'x'], status: 2, commandLine: [cli('hooks', 'unknown-command.mjs'), cli('main.mjs')]},
  ]) {
    it(`loads oclif, the bundle, and for a command that one command alone: nothing else of the command line, nothing from node_modules (${args.slice(0, 2).join(' ')})`, () => {
      const files = loadedFiles(args, status)
      assert.deepEqual(files.filter((file) => !file.startsWith(path.join('dist', 'bundle'))), [path.join('bin', 'run.js')])
      assert.deepEqual(files.filter((file) => file.startsWith(cli())).sort(), commandLine)
    })
  }
})

describe('the process around the command line', () => {
  for (const {args, status} of [
    {args: ['schema'], status: 0},
    {args: ['validate', fixture('broken-plugin'), '--format', 'sarif'], status: 1},
  ]) {
    it(`keeps the exit status and prints no stack when stdout is closed early: ${args.join(' ')}`, async () => {
      const result = await spawnScript(cliPath, args, {cwd: dir, closeStdout: true})
      assert.deepEqual({status: result.status, stderr: result.stderr}, {status, stderr: ''})
    })
  }

  it('warns in a working directory that was removed', async () => {
    const result = await spawnScript(cliPath, ['schema'], {cwd: dir, removedCwd: true})
    assert.match(result.stderr, /^WARNING: current directory does not exist\n/)
    assert.equal(result.status, 0, result.stderr)
  })

  // oclif would read an argument that is not given from stdin when stdin is a pipe that has something in
  // it (within 10 ms), so that `… | svc-plugin pack` packed the folder named by the text piped in: every
  // argument is declared never to be read from stdin (commands/flags.ts `stringArgument`).
  for (const args of [['pack', '--dry-run'], ['validate'], ['init', '--id', 'com.example.piped']]) {
    it(`takes no argument from piped stdin: ${args.join(' ')}`, async () => {
      // A folder of its own, emptied before each run (init writes into it).
      const cwd = path.join(dir, `stdin-${args[0]}`)
      const empty = async (): Promise<void> => {
        await rm(cwd, {recursive: true, force: true})
        await mkdir(cwd)
      }
      await empty()
      const piped = await spawnScript(cliPath, args, {cwd, input: `${fixture('example-plugin')}\n`})
      await empty()
      assert.deepEqual(piped, await runCli(args, {cwd}))
    })
  }

  it('runs from another working directory, through a link to the binary', async () => {
    const link = path.join(dir, 'svc-plugin.js')
    await symlink(cliPath, link)
    const linked = await spawnScript(link, ['validate', fixture('example-plugin'), '--json'], {cwd: dir})
    assert.equal(linked.status, 0, linked.stderr)
    assert.deepEqual(linked, await runCli(['validate', fixture('example-plugin'), '--json'], {cwd: dir}))
  })
})

describe('the heap of a command process', () => {
  /** How the worker thread of {@link youngGenerationAroundWorker} ends. */
  const outcomes = {
    finishes: `new Worker('setTimeout(() => {}, 10)', {eval: true})`,
    throws: `new Worker('throw new Error("boom")', {eval: true})`,
    'cannot load': `new Worker(new URL('file:///nonexistent/worker.mjs'))`,
    'is stopped before it runs': `(() => { const worker = new Worker('setTimeout(() => {}, 1000)', {eval: true}); worker.terminate(); return worker })()`,
  }

  /**
   * Starts a worker thread in a fresh process (after the command line prepared it, or after only setting
   * the same flag by hand) and lets it end as `outcome` says, then keeps many small objects alive for a
   * while, as a command does: the size of V8's young generation in MiB before the worker and at the end.
   */
  async function youngGenerationAroundWorker(prepared: boolean, outcome: keyof typeof outcomes): Promise<{before: number; after: number}> {
    const commandProcess = path.join(repoRoot, 'dist', 'commands', 'command-process.js')
    const script = `
      import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'
      import {Worker} from 'node:worker_threads'
      import {prepareCommandProcess} from ${JSON.stringify(commandProcess)}
      if (${prepared}) prepareCommandProcess()
      else setFlagsFromString('--semi-space-growth-factor=1')
      const young = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 1048576
      const before = young()
      const worker = ${outcomes[outcome]}
      worker.on('error', () => {})
      await new Promise((resolve) => worker.on('exit', resolve))
      const kept = []
      for (let index = 0; index < 6e5; index++) {
        kept.push({index, text: 'x' + index})
        if (kept.length > 200000) kept.splice(0, 100000)
      }
      console.log(JSON.stringify({before, after: young()}))
      process.exit(0)
    `
    const child = await spawnScript('--input-type=module', ['-e', script], {cwd: dir})
    assert.equal(child.status, 0, child.stderr)
    return JSON.parse(child.stdout) as {before: number; after: number}
  }

  it('does not let its young generation grow once a worker thread has started (which puts V8 flags back for the whole process)', async () => {
    const names = Object.keys(outcomes) as (keyof typeof outcomes)[]
    const [unprepared, ...prepared] = await Promise.all([youngGenerationAroundWorker(false, 'finishes'), ...names.map((outcome) => youngGenerationAroundWorker(true, outcome))])
    // The premise: a flag set before a worker starts no longer holds once it has.
    assert.ok(unprepared!.after >= 4 * unprepared!.before, `premise: a worker undoes a flag set before it (${JSON.stringify(unprepared)})`)
    // Not grown: V8 may still shrink it (seen under load: 8 MiB before, 4 after).
    names.forEach((outcome, index) => assert.ok(prepared[index]!.after <= prepared[index]!.before, `a worker that ${outcome}: ${JSON.stringify(prepared[index])}`))
  })
})
