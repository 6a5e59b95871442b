import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import {cruise, type ICruiseResult, type IViolation} from 'dependency-cruiser'
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

describe('the direction of imports (.dependency-cruiser.cjs, docs/architecture.md)', () => {
  it('has no import cycle, no upward or sideways import inside src/, and commands reach src/ only through src/cli.ts', async () => {
    const options = await extractDepcruiseOptions(path.join(root, '.dependency-cruiser.cjs'))
    const cwd = process.cwd()
    process.chdir(root)
    try {
      const result = await cruise(['src', 'commands'], {...options, validate: true})
      const output = result.output as {summary: {violations: IViolation[]}}
      const violations = output.summary.violations.map((violation) => `${violation.rule.name}: ${violation.from} -> ${violation.to}`)
      assert.deepEqual(violations, [])
    } finally {
      process.chdir(cwd)
    }
  })

  it('opens an artifact in one place: outside src/archive/ only src/artifact/open.ts imports the archive reader, and nothing outside src/archive/ imports the ZIP library', async () => {
    const options = await extractDepcruiseOptions(path.join(root, '.dependency-cruiser.cjs'))
    const cwd = process.cwd()
    process.chdir(root)
    try {
      const result = (await cruise(['src', 'commands'], options)).output as ICruiseResult
      const importers = (target: (resolved: string) => boolean): string[] =>
        result.modules
          .filter((module) => !module.source.startsWith('src/archive/') && module.dependencies.some((dependency) => target(dependency.resolved)))
          .map((module) => module.source)
          .sort()
      // Everything that reads an artifact (validate --artifact, inspect, verify, sign, merge, the store,
      // install) gets its contents from openArtifact/withArtifact; install's extraction streams the entries
      // of the archive that openArtifact opened, through the types and entry streams of src/archive/.
      assert.deepEqual(importers((resolved) => resolved === 'src/archive/reader.ts'), ['src/artifact/open.ts'])
      assert.deepEqual(importers((resolved) => /(^|\/)node_modules\/yauzl\//.test(resolved)), [])
      // The check sees real imports: the reader itself is found, and it does use the ZIP library.
      assert.ok(result.modules.some((module) => module.source === 'src/archive/reader.ts'))
      assert.ok(result.modules.some((module) => module.source.startsWith('src/archive/') && module.dependencies.some((dependency) => dependency.resolved.includes('node_modules/yauzl/'))))
    } finally {
      process.chdir(cwd)
    }
  })
})

describe('where a test lives', () => {
  /** Every test file under test/, relative to it, with the src/ folders its imports reach ('.' for the entries at src/'s top). */
  function testFiles(): {file: string; folder: string; srcFolders: Set<string>}[] {
    const files = readdirSync(path.join(root, 'test'), {recursive: true}).map(String).filter((file) => file.endsWith('.test.ts'))
    return files.map((file) => {
      const text = readFileSync(path.join(root, 'test', file), 'utf8')
      const srcFolders = new Set([...text.matchAll(/from '(?:\.\.\/)+src\/([^']+)'/g)].map(([, target]) => (target!.includes('/') ? target!.split('/')[0]! : '.')))
      return {file, folder: file.includes(path.sep) ? file.split(path.sep)[0]! : '.', srcFolders}
    })
  }

  for (const mirrored of ['pki', 'revocation']) {
    it(`test/${mirrored}/ mirrors src/${mirrored}/: each of its tests imports src/${mirrored}/, and a test of nothing but src/${mirrored}/ lives there`, () => {
      const files = testFiles()
      assert.ok(files.some(({folder}) => folder === mirrored), `test/${mirrored}/ has no test`)
      assert.deepEqual(files.filter(({folder, srcFolders}) => folder === mirrored && !srcFolders.has(mirrored)).map(({file}) => file), [])
      // A test elsewhere may use keys, certificates or lists to test its own folder (test/cli/ tests commands/, which has no src/ folder).
      const sourceFolders = new Set(readdirSync(path.join(root, 'src'), {withFileTypes: true}).filter((entry) => entry.isDirectory()).map((entry) => entry.name))
      const strays = files.filter(({folder, srcFolders}) => folder !== mirrored && sourceFolders.has(folder) && srcFolders.size === 1 && srcFolders.has(mirrored))
      assert.deepEqual(strays.map(({file}) => file), [])
    })
  }
})
