import {spawn} from 'node:child_process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {ChildRequest} from './install-child.js'

/** How a child process ended, and what it printed. */
export interface ChildRun {
  status: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** How a child install ended. */
export interface ChildOutcome {
  status: number | null
  signal: NodeJS.Signals | null
  /** The parsed stdout line, null when the child was killed before printing it. */
  reply: {ok: true; result: {version: string}} | {ok: false; code: string; message: string} | null
  stderr: string
}

// Tests run from dist/ as .js, or from source through tsx; the children run the same way.
const here = fileURLToPath(import.meta.url)
const extension = path.extname(here)

/** Runs the helper script `name` (beside this file) as a child process with `request` as its one argument. */
export function runChildScript(name: string, request: unknown): Promise<ChildRun> {
  const script = path.join(path.dirname(here), `${name}${extension}`)
  const args = extension === '.ts' ? ['--import', 'tsx', script] : [script]
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...args, JSON.stringify(request)], {stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (status, signal) => resolve({status, signal, stdout, stderr}))
  })
}

/** Runs one install in a child process (install-child.ts). */
export async function runChildInstall(request: ChildRequest): Promise<ChildOutcome> {
  const {status, signal, stdout, stderr} = await runChildScript('install-child', request)
  const line = stdout.trim().split('\n').pop() ?? ''
  let reply: ChildOutcome['reply'] = null
  try {
    reply = line === '' ? null : (JSON.parse(line) as ChildOutcome['reply'])
  } catch {
    reply = null
  }
  return {status, signal, reply, stderr}
}
