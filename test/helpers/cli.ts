import {spawn} from 'node:child_process'
import {Config, run} from '@oclif/core'
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
 * the binary, capturing what it writes to stdout and stderr and the exit status it ends with. Commands run
 * one at a time (each test file is its own process, and its tests run in turn). Use {@link spawnCli} where
 * the process itself is the point.
 */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  if (options.input !== undefined) return spawnCli(args, options)
  loadedConfig ??= Config.load({root: repoRoot})
  const config = await loadedConfig
  const stdout: string[] = []
  const stderr: string[] = []
  const writes = {out: process.stdout.write, err: process.stderr.write}
  const capture = (sink: string[]) =>
    ((chunk: string | Uint8Array, encoding?: unknown, callback?: unknown) => {
      sink.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))
      const done = typeof encoding === 'function' ? encoding : callback
      if (typeof done === 'function') process.nextTick(done as () => void)
      return true
    }) as typeof process.stdout.write
  const cwd = process.cwd()
  const env = {...process.env}
  const listeners = {SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM')}
  const exitCode = process.exitCode
  process.exitCode = undefined
  Object.assign(process.env, {NO_COLOR: '1'}, options.env)
  if (options.cwd !== undefined) process.chdir(options.cwd)
  process.stdout.write = capture(stdout)
  process.stderr.write = capture(stderr)
  let status: number
  try {
    await run(args, config)
    status = typeof process.exitCode === 'number' ? process.exitCode : 0
  } catch (error) {
    const exit = (error as {oclif?: {exit?: number}}).oclif?.exit
    if (typeof exit !== 'number') throw error
    status = exit
  } finally {
    process.stdout.write = writes.out
    process.stderr.write = writes.err
    process.chdir(cwd)
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key]
    Object.assign(process.env, env)
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!listeners[signal].includes(listener)) process.removeListener(signal, listener)
    }
    process.exitCode = exitCode
  }
  return {status, signal: null, stdout: stdout.join(''), stderr: stderr.join('')}
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
