import {spawn} from 'node:child_process'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

import type {ChildRequest} from './install-child.js'

/** How a child install ended. */
export interface ChildOutcome {
  status: number | null
  signal: NodeJS.Signals | null
  /** The parsed stdout line, null when the child was killed before printing it. */
  reply: {ok: true; result: {version: string}} | {ok: false; code: string; message: string} | null
  stderr: string
}

/** When the parent kills the child from outside: a while after it started, whatever it reached then. */
export type ExternalKill = {afterMs: number}

// Tests run from dist/ as .js, or from source through tsx; the child runs the same way.
const here = fileURLToPath(import.meta.url)
const extension = path.extname(here)
const childScript = path.join(path.dirname(here), `install-child${extension}`)
const childArgs = extension === '.ts' ? ['--import', 'tsx', childScript] : [childScript]

/** Runs one install in a child process, optionally killing it (SIGKILL) from outside. */
export function runChildInstall(request: ChildRequest, kill?: ExternalKill): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...childArgs, JSON.stringify(request)], {stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    let exited = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    child.on('error', reject)
    child.on('close', (status, signal) => {
      exited = true
      const line = stdout.trim().split('\n').pop() ?? ''
      let reply: ChildOutcome['reply'] = null
      try {
        reply = line === '' ? null : (JSON.parse(line) as ChildOutcome['reply'])
      } catch {
        reply = null
      }
      resolve({status, signal, reply, stderr})
    })
    if (kill !== undefined) setTimeout(() => !exited && child.kill('SIGKILL'), kill.afterMs)
  })
}
