import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {makeHostileArchives, type HostileCase} from '../../scripts/make-hostile-archives.js'
import {runCli, tempDir} from '../helpers/cli.js'

// Every archive of the hostile corpus, through the two commands that read artifacts without judging
// a signature: validate --artifact (a diagnostic with the archive's code) and inspect (the error).

const cases: HostileCase[] = []
let scratch: {dir: string; cleanup: () => Promise<void>}

before(async () => {
  scratch = await tempDir()
  cases.push(...(await makeHostileArchives(path.join(scratch.dir, 'hostile'))))
})
after(() => scratch.cleanup())

/** Runs `run` over every case, a few processes at a time, and collects the failures per case. */
async function forEachCase(run: (item: HostileCase) => Promise<void>): Promise<void> {
  const failures: string[] = []
  let next = 0
  const worker = async () => {
    while (next < cases.length) {
      const item = cases[next++]!
      await run(item).catch((error: Error) => failures.push(`${item.name}: ${error.message}`))
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()])
  assert.deepEqual(failures, [])
}

function parse(stdout: string, name: string): any {
  try {
    return JSON.parse(stdout)
  } catch {
    throw new Error(`${name}: stdout is not JSON: ${stdout.slice(0, 200)}`)
  }
}

describe('the hostile corpus through the command line', () => {
  it('has archives for the commands to refuse', () => {
    assert.ok(cases.length >= 40, `${cases.length} archives`)
  })

  it('validate --artifact refuses each with its code (exit 1), or as not an artifact (exit 3)', async () => {
    await forEachCase(async (item) => {
      const result = await runCli(['validate', '--artifact', item.file, '--json'])
      const json = parse(result.stdout, item.name)
      if (item.expect.code === 'not-an-artifact') {
        assert.equal(result.status, 3, result.stderr)
        assert.equal(json.error.code, 'not-an-artifact')
        return
      }
      assert.equal(result.status, 1, result.stderr)
      assert.equal(json.valid, false)
      assert.deepEqual(
        json.problems.map((problem: {code: string}) => problem.code),
        [item.expect.code],
      )
    })
  })

  it('inspect refuses each archive the reader refuses on opening with its code and reason; a payload lie is refused once its bytes are read (--show-digest)', async () => {
    await forEachCase(async (item) => {
      const result = await runCli(['inspect', item.file, '--json'])
      const expectedStatus = item.expect.code === 'not-an-artifact' ? 3 : 1
      if (result.status === 0) {
        // inspect reads only manifest.json: a lie inside another entry shows when every byte is read.
        assert.equal(item.expect.at, 'read', `${item.name} was described although the reader refuses it on opening`)
        const digest = await runCli(['inspect', item.file, '--show-digest', '--json'])
        assert.equal(digest.status, expectedStatus, digest.stderr)
        const json = parse(digest.stdout, item.name)
        assert.deepEqual([json.error.code, json.error.reason], [item.expect.code, item.expect.reason])
        return
      }
      assert.equal(result.status, expectedStatus, result.stderr)
      const json = parse(result.stdout, item.name)
      assert.deepEqual([json.error.code, json.error.reason], [item.expect.code, item.expect.reason])
    })
  })
})
