import {spawn} from 'node:child_process'
import {Config, run, type Interfaces} from '@oclif/core'
import {readFileSync} from 'node:fs'
import {io} from '../../commands/io.js'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The repository root (tests run from dist/test/…, sources live beside dist). */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
/** The CLI entry point, run as a real process. */
export const cliPath = path.join(repoRoot, 'bin', 'run.js')
/** The bundled fixtures folder. */
export const fixturesDir = path.join(repoRoot, 'fixtures')

export interface CliResult {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Options of {@link runCli} and {@link spawnCli}. */
export interface CliOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  input?: string
  /** spawnCli only: kill the child (SIGTERM) after this many milliseconds; the result then has its signal. */
  timeout?: number
}

/**
 * Runs `svc-plugin <args>` as a real child process and collects its output: for what only a process shows
 * (its exit status as the shell sees it, signals, a terminal, a crash, two processes at once).
 */
export function spawnCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      cwd: options.cwd ?? repoRoot,
      env: {...process.env, NO_COLOR: '1', ...options.env},
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.timeout === undefined ? {} : {timeout: options.timeout}),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (status, signal) => resolve({status, signal, stdout, stderr}))
    child.stdin.end(options.input ?? '')
  })
}

let loadedConfig: Promise<Config> | undefined

/**
 * Runs `svc-plugin <args>` in this process, through the same oclif configuration and command classes as
 * the binary, taking what the command writes to its stdout and stderr channels (commands/io.ts) and the exit
 * status it ends with. Commands run one at a time (each test file is its own process, and its tests run in
 * turn). What oclif itself prints (help, version) is not taken: use {@link spawnCli} for those, and where
 * the process itself is the point.
 */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (options.input !== undefined) return spawnCli(args, options)
  // One command at a time: they share the process's working directory, environment and exit code.
  const result = queue.then(() => runInProcess(args, options))
  queue = result.then(
    () => undefined,
    () => undefined,
  )
  return result
}

let queue: Promise<void> = Promise.resolve()

/** package.json with oclif pointed at the compiled commands instead of the bundled command line. */
function unbundledPackageJson(): Interfaces.PJSON {
  const pjson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Interfaces.PJSON
  pjson.oclif.commands = {strategy: 'explicit', target: './dist/commands/index.js', identifier: 'COMMANDS'}
  pjson.oclif.hooks = {command_not_found: './dist/commands/unknown-command.js'}
  return pjson
}

async function runInProcess(args: string[], options: CliOptions): Promise<CliResult> {
  // The unbundled commands (dist/commands), so that what they write goes through this process's io channels.
  loadedConfig ??= Config.load({root: repoRoot, pjson: unbundledPackageJson()})
  const config = await loadedConfig
  const result = await inThisProcess(options, async () => {
    try {
      await run(args, config)
      return typeof process.exitCode === 'number' ? process.exitCode : 0
    } catch (error) {
      const exit = (error as {oclif?: {exit?: number}}).oclif?.exit
      if (typeof exit !== 'number') throw error
      return exit
    }
  })
  return result as CliResult
}

/**
 * Runs `body` with the process as a command sees it (working directory, environment, NO_COLOR) and the
 * command's io channels captured; restores everything after, and gives the status `body` returns with
 * what was written (`undefined` when `body` gives none).
 */
async function inThisProcess(options: CliOptions, body: () => Promise<number | undefined>): Promise<CliResult | undefined> {
  const stdout: string[] = []
  const stderr: string[] = []
  const channels = {stdout: io.stdout, stderr: io.stderr}
  const cwd = process.cwd()
  const env = {...process.env}
  const listeners = {SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM')}
  const exitCode = process.exitCode
  process.exitCode = undefined
  Object.assign(process.env, {NO_COLOR: '1'}, options.env)
  if (options.cwd !== undefined) process.chdir(options.cwd)
  io.stdout = {write: (text: string) => stdout.push(text), isTTY: false}
  io.stderr = {write: (text: string) => stderr.push(text), isTTY: false}
  let status: number | undefined
  try {
    status = await body()
  } finally {
    io.stdout = channels.stdout
    io.stderr = channels.stderr
    process.chdir(cwd)
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key]
    Object.assign(process.env, env)
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!listeners[signal].includes(listener)) process.removeListener(signal, listener)
    }
    process.exitCode = exitCode
  }
  if (status === undefined && stdout.length + stderr.length === 0) return undefined
  return {status: status ?? null, signal: null, stdout: stdout.join(''), stderr: stderr.join('')}
}

/** Runs `svc-plugin <args> --json` and parses stdout. */
export async function runCliJson<T = any>(args: string[], options: CliOptions = {}): Promise<CliResult & {json: T}> {
  const result = await runCli([...args, '--json'], options)
  let json: T
  try {
    json = JSON.parse(result.stdout) as T
  } catch {
    throw new Error(`stdout is not JSON (exit ${result.status}):\n${result.stdout}\nstderr:\n${result.stderr}`)
  }
  return {...result, json}
}

/** A fresh temporary directory, removed by the returned cleanup. */
export async function tempDir(prefix = 'svc-plugin-test-'): Promise<{dir: string; cleanup: () => Promise<void>}> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix))
  return {dir, cleanup: () => rm(dir, {recursive: true, force: true})}
}
