import assert from 'node:assert/strict'
import {execFile} from 'node:child_process'
import path from 'node:path'
import {describe, it} from 'node:test'
import {repoRoot} from '../helpers/cli.js'

/** Runs `node dist/scripts/fuzz.js <args>` (what `npm run fuzz -- <args>` runs after building). */
function fuzz(args: string[]): Promise<{status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string}> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(repoRoot, 'dist', 'scripts', 'fuzz.js'), ...args], {cwd: repoRoot, timeout: 60_000}, (error, stdout, stderr) => {
      const failed = error as (Error & {code?: number | string; signal?: NodeJS.Signals | null}) | null
      resolve({status: failed === null ? 0 : typeof failed.code === 'number' ? failed.code : null, signal: failed?.signal ?? null, stdout, stderr})
    })
  })
}

describe('npm run fuzz: its command line', () => {
  it('prints its usage, options and exit statuses for --help on stdout and exits 0, fuzzing nothing', async () => {
    const result = await fuzz(['--help'])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stderr, '')
    assert.match(result.stdout, /^usage: npm run fuzz -- \[--seconds N\] \[--seed S\] \[--family manifest,archive,install\]/m)
    for (const option of ['--seconds', '--seed', '--family', '--timeout', '--out', '--replay', '--help']) assert.match(result.stdout, new RegExp(`^ {2}${option} `, 'm'), option)
    assert.match(result.stdout, /^Exit status: 0 no findings, 1 findings, 2 a usage error\.$/m)
    assert.doesNotMatch(result.stdout, /svc-plugin fuzz: seed/)
  })

  it('refuses an unknown flag with one fuzz: line and where the usage is, exit 2, no stack trace', async () => {
    const result = await fuzz(['--bogus'])
    assert.equal(result.status, 2, result.stderr)
    assert.equal(result.stdout, '')
    assert.match(result.stderr, /^fuzz: Unknown option '--bogus'[^\n]*\nSee: npm run fuzz -- --help\n$/)
  })
})
