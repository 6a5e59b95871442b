import {spawn} from 'node:child_process'
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

/** Runs `svc-plugin <args>` as a child process and collects its output. */
export function runCli(args: string[], options: {cwd?: string; env?: NodeJS.ProcessEnv; input?: string} = {}): Promise<CliResult> {
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

/** Runs `svc-plugin <args> --json` and parses stdout. */
export async function runCliJson<T = any>(args: string[], options: {cwd?: string; env?: NodeJS.ProcessEnv} = {}): Promise<CliResult & {json: T}> {
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
