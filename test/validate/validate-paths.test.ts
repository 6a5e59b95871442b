import assert from 'node:assert/strict'
import {copyFile, mkdir} from 'node:fs/promises'
import {createRequire} from 'node:module'
import path from 'node:path'
import {describe, it} from 'node:test'
import {isSubjectFailure} from '../../src/manifest/report.js'
import {validatePath} from '../../src/validate/validate-path.js'
import {isGlobPattern, validatePaths} from '../../src/validate/validate-paths.js'
import {repoRoot, tempDir} from '../helpers/cli.js'

const require = createRequire(import.meta.url)
const fastGlobLoaded = (): boolean => Object.keys(require.cache).some((file) => file.includes(`${path.sep}fast-glob${path.sep}`))

// This file runs in a process of its own: the first test sees what a single subject loads.
describe('validatePaths', () => {
  const cwd = path.join(repoRoot, 'fixtures')

  it('loads fast-glob only when a pattern must be expanded', async () => {
    await validatePath({path: 'example-plugin'}, {cwd})
    await validatePaths(['example-plugin', 'broken-plugin/manifest.json'], {cwd})
    assert.equal(fastGlobLoaded(), false)
    await validatePaths(['*-plugin'], {cwd})
    assert.equal(fastGlobLoaded(), true)
  })

  it('reports subjects in the order given, a pattern by its sorted matches', async () => {
    const results = await validatePaths(['example-plugin', '*-plugin/manifest.json'], {cwd})
    assert.deepEqual(
      results.map((result) => (isSubjectFailure(result) ? result.path : result.subject.path)),
      ['example-plugin', 'broken-plugin/manifest.json', 'example-plugin/manifest.json'],
    )
    assert.deepEqual(
      results.map((result) => !isSubjectFailure(result) && result.valid),
      [true, false, true],
    )
  })

  it('turns a subject that cannot be read, or a pattern matching nothing, into a failure with its code', async () => {
    const [missing, nothing, readme] = await validatePaths(['missing', 'nothing-*', 'example-plugin/README.md'], {cwd})
    assert.ok(missing !== undefined && isSubjectFailure(missing) && missing.code === 'file-not-found')
    assert.ok(nothing !== undefined && isSubjectFailure(nothing) && nothing.code === 'file-not-found' && nothing.message === 'No file or folder matches nothing-*.')
    // A README is judged (it is not JSON), not refused.
    assert.ok(readme !== undefined && !isSubjectFailure(readme) && readme.problems[0]?.code === 'malformed')
  })

  it('takes a path that exists literally as itself, even with pattern characters', async () => {
    assert.equal(isGlobPattern('[draft]'), true)
    assert.equal(isGlobPattern('plugins/weather'), false)
    const scratch = await tempDir('svc-plugin-paths-')
    try {
      await mkdir(path.join(scratch.dir, '[draft]'))
      await copyFile(path.join(cwd, 'example-plugin', 'manifest.json'), path.join(scratch.dir, '[draft]', 'manifest.json'))
      const [result] = await validatePaths(['[draft]'], {cwd: scratch.dir})
      assert.ok(result !== undefined && !isSubjectFailure(result) && result.subject.path === '[draft]' && result.subject.kind === 'directory')
    } finally {
      await scratch.cleanup()
    }
  })
})
