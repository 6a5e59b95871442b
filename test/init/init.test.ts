import assert from 'node:assert/strict'
import {mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {initPlugin, validatePath} from '../../src/tooling.js'
import {tempDir} from '../helpers/cli.js'

/** What a folder above the plugin holds: nothing, or a package.json of one kind. */
type Level = 'none' | 'unrelated' | 'dependencies' | 'devDependencies' | 'malformed'

const packageJson: Record<Exclude<Level, 'none'>, string> = {
  unrelated: JSON.stringify({name: 'tools', devDependencies: {typescript: '^5.0.0'}}),
  dependencies: JSON.stringify({name: 'app', dependencies: {'svc-plugin': '^0.1.0'}}),
  devDependencies: JSON.stringify({name: 'plugins', devDependencies: {'svc-plugin': '^0.1.0'}}),
  malformed: '{"name": "broken", "devDependencies": {"svc-plugin": ',
}

describe('initPlugin', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  before(async () => (scratch = await tempDir('init-')))
  after(() => scratch.cleanup())
  let count = 0

  it('points $schema at the schema in node_modules of the nearest project above the folder that depends on svc-plugin, and has none without one', async () => {
    // Folders from the top down, each holding nothing or a package.json; the plugin is created below the last.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom<Level>('none', 'unrelated', 'dependencies', 'devDependencies', 'malformed'), {minLength: 1, maxLength: 5}), async (levels) => {
        count += 1
        const top = path.join(scratch.dir, `tree-${count}`)
        const folders = levels.map((_, index) => path.join(top, ...Array.from({length: index}, (__, depth) => `level-${depth}`)))
        for (const [index, level] of levels.entries()) {
          await mkdir(folders[index]!, {recursive: true})
          if (level !== 'none') await writeFile(path.join(folders[index]!, 'package.json'), packageJson[level])
        }
        const plugin = path.join(folders.at(-1)!, 'plugins', 'weather-station')
        const result = await initPlugin(plugin, {runtimes: ['linux-x64']})
        const manifest = JSON.parse(await readFile(path.join(plugin, 'manifest.json'), 'utf8')) as {$schema?: string}
        const nearest = levels.map((level, index) => (level === 'dependencies' || level === 'devDependencies' ? index : -1)).filter((index) => index >= 0).at(-1)
        if (nearest === undefined) {
          assert.equal(manifest.$schema, undefined)
          assert.equal(result.schema, null)
          assert.match(result.schemaAdvice!, /npm install --save-dev svc-plugin, then add "\$schema": "[^"]*node_modules\/svc-plugin\/schema\/manifest\.schema\.json"/)
        } else {
          const expected = path.relative(plugin, path.join(folders[nearest]!, 'node_modules', 'svc-plugin', 'schema', 'manifest.schema.json')).split(path.sep).join('/')
          assert.equal(manifest.$schema, expected)
          assert.equal(result.schema, expected)
          assert.equal(result.schemaAdvice, null)
          // A relative path that does not climb past the project: it holds wherever the project is checked out.
          assert.ok(path.resolve(plugin, expected).startsWith(folders[nearest]! + path.sep))
        }
        await rm(top, {recursive: true})
      }),
      {numRuns: 25},
    )
  })

  it('writes a folder that validates at package level for every runtime it declares, with or without a publisher', async () => {
    const rid = fc.constantFrom('linux-x64', 'linux-arm64', 'win-x64', 'osx-arm64', 'osx-x64')
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(rid, {minLength: 1, maxLength: 4}), fc.option(fc.constantFrom('Example Labs', 'Ünïcode Publisher'), {nil: undefined}), async (runtimes, publisher) => {
        count += 1
        const plugin = path.join(scratch.dir, `valid-${count}`, 'clock')
        const result = await initPlugin(plugin, {runtimes, ...(publisher === undefined ? {} : {publisher})})
        assert.deepEqual(result.placeholders, runtimes.map((item) => `runtimes/${item}/clock${item.startsWith('win') ? '.exe' : ''}`))
        for (const host of runtimes) {
          const report = await validatePath({directory: plugin}, {level: 'package', host: {rid: host}})
          assert.deepEqual(report.problems.filter((problem) => problem.severity === 'error'), [], `${host}: ${JSON.stringify(report.problems)}`)
        }
        await rm(path.dirname(plugin), {recursive: true})
      }),
      {numRuns: 12},
    )
  })

  it('refuses an entrypoint given for several runtimes (invalid-argument) and writes nothing', async () => {
    const plugin = path.join(scratch.dir, 'two-runtimes')
    await assert.rejects(initPlugin(plugin, {runtimes: ['linux-x64', 'win-x64'], entrypoint: 'bin/clock'}), (error: {code?: string}) => error.code === 'invalid-argument')
    await assert.rejects(readFile(path.join(plugin, 'manifest.json')), {code: 'ENOENT'})
  })
})
