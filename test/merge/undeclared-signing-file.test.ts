/** A defect the fuzzer found, reduced to its smallest input: merge threw a TypeError instead of refusing. */
import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {MergeError} from '../../src/merge/errors.js'
import {merge} from '../../src/merge/merge.js'
import {tempDir} from '../helpers/cli.js'
import {writeArtifact} from '../install/helpers/artifacts.js'

describe('merge of an unsigned input holding a signing file its files[] does not list', () => {
  // In an unsigned input the signing files are payload like any other, but the names check exempted
  // them as if the input were signed: the undeclared file then had no files[] entry to plan from, and
  // merge threw a TypeError instead of refusing the input.
  let work: {dir: string; cleanup: () => Promise<void>}
  let windows: string
  before(async () => {
    work = await tempDir('svc-plugin-regression-')
    windows = await writeArtifact(path.join(work.dir, 'windows.svcPlugin'), {
      manifest: {entrypoints: {'win-x64': {executable: 'runtimes/win-x64/alpha.exe'}}},
      payload: {'runtimes/win-x64/alpha.exe': 'MZ', 'assets/readme.txt': 'About com.example.alpha\n'},
    })
  })
  after(() => work.cleanup())

  for (const name of ['certificate.json', 'certificate.sig', 'issuer.json', 'issuer.sig']) {
    it(`refuses an undeclared ${name} as hash-mismatch (undeclared-file), naming the input and the path`, async () => {
      const linux = await writeArtifact(path.join(work.dir, `linux-${name}.svcPlugin`), {extraEntries: {[name]: 'not a signing file\n'}})
      await assert.rejects(merge([linux, windows], {output: path.join(work.dir, 'merged.svcPlugin')}), (error: unknown) => {
        assert.ok(error instanceof MergeError, String(error))
        assert.equal(error.code, 'hash-mismatch')
        assert.deepEqual({input: error.details['input'], path: error.details['path'], reason: error.details['reason']}, {input: linux, path: name, reason: 'undeclared-file'})
        return true
      })
    })
  }
})
