import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {builtinModules} from 'node:module'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import ts from 'typescript'
import {repoRoot, tempDir} from './helpers/cli.js'

/**
 * The package as npm publishes it and a host installs it: each byte shipped once, nothing to install
 * besides it, no script run at install, and an entry that loads only what its audience uses.
 */

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>
  scripts: Record<string, string>
  exports: Record<string, unknown>
}
/** What each file of dist/bundle holds (written by the build): packages and source folders. */
const bundleContents = JSON.parse(readFileSync(path.join(repoRoot, 'dist', 'bundle.json'), 'utf8')) as Record<string, string[]>

let dir: string
let cleanup: () => Promise<void>
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-package-'))
})
after(async () => cleanup())

describe('the published package', () => {
  it('ships the bundle, the type declarations, the schema and the documents, each once (no source maps, no compiled modules beside the bundle), within 600 kB packed and 5 MB installed', () => {
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {cwd: repoRoot, encoding: 'utf8'})
    assert.equal(packed.status, 0, packed.stderr)
    const [{files, size, unpackedSize}] = JSON.parse(packed.stdout) as [{files: {path: string}[]; size: number; unpackedSize: number}]
    const paths = files.map((file) => file.path)
    const outside = paths.filter((file) => !/^(bin\/run\.js|dist\/bundle\/.+\.(mjs|cjs)|dist\/types\/.+\.d\.ts|schema\/.+|docs\/.+|README\.md|LICENSE|package\.json|oclif\.manifest\.json)$/.test(file))
    assert.deepEqual(outside, [])
    // At most 600 kB to download and 5 MB installed: with no dependency, what npm unpacks is all a host installs.
    assert.ok(size <= 600_000, `${size} bytes packed`)
    assert.ok(unpackedSize <= 5_000_000, `${unpackedSize} bytes installed`)
    for (const file of ['bin/run.js', 'dist/bundle/index.mjs', 'dist/bundle/store.mjs', 'dist/bundle/tooling.mjs', 'dist/bundle/cli/main.mjs', 'dist/types/index.d.ts', 'dist/types/store.d.ts', 'dist/types/tooling.d.ts', 'oclif.manifest.json']) assert.ok(paths.includes(file), file)
  })

  it('ships declarations a host compiles against, every one of them checked, with nothing but Node.js types', () => {
    const entries = ['index', 'store', 'tooling'].map((entry) => path.join(repoRoot, 'dist', 'types', `${entry}.d.ts`))
    const program = ts.createProgram(entries, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
      typeRoots: [path.join(repoRoot, 'node_modules', '@types')],
    })
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`)
    assert.deepEqual(problems, [])
    const declarations = program.getSourceFiles().filter((file) => file.fileName.includes('/dist/types/'))
    const shipped = readdirSync(path.join(repoRoot, 'dist', 'types'), {recursive: true}).map(String).filter((file) => file.endsWith('.d.ts'))
    assert.equal(declarations.length, shipped.length, 'a declaration is shipped that no public entry reaches')
  })

  it('declares no dependency (what it runs is in its bundle) and runs no script at install', () => {
    assert.deepEqual(packageJson.dependencies ?? {}, {})
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare', 'prepublish']) assert.equal(packageJson.scripts[script], undefined, script)
  })
})

describe('what an entry loads', () => {
  /** The files of dist/bundle a fresh process loads when it imports `specifier`. */
  function loadedBy(specifier: string): string[] {
    return loadedByProcess(['--input-type=module', '-e', `await import(${JSON.stringify(specifier)})`])
  }

  /** The files of dist/bundle a fresh `node` process with the arguments `argv` loads (it must exit 0): ES modules and CommonJS files alike. */
  function loadedByProcess(argv: readonly string[]): string[] {
    const hook = path.join(dir, 'record-loads.mjs')
    const requireHook = path.join(dir, 'record-requires.cjs')
    const log = path.join(dir, 'loads.txt')
    const recorder = `import {appendFileSync} from 'node:fs'\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context) }`
    writeFileSync(hook, `import {register} from 'node:module'\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(recorder)}`)})\n`)
    // What require() loaded (the bundle's CommonJS files) is in require's cache when the process exits.
    writeFileSync(requireHook, `process.on('exit', () => require('node:fs').appendFileSync(${JSON.stringify(log)}, Object.keys(require.cache).filter((file) => file !== __filename).map((file) => require('node:url').pathToFileURL(file).href + '\\n').join('')))\n`)
    writeFileSync(log, '')
    // An entry is imported by its name from inside the package, as package.json's `exports` resolves it for a host.
    const child = spawnSync(process.execPath, ['--import', hook, '--require', requireHook, ...argv], {cwd: repoRoot, encoding: 'utf8'})
    assert.equal(child.status, 0, child.stderr)
    const files = readFileSync(log, 'utf8')
      .split('\n')
      .filter((url) => url.startsWith('file:'))
      .map((url) => path.relative(path.join(repoRoot, 'dist', 'bundle'), new URL(url).pathname))
    assert.deepEqual(files.filter((file) => file.startsWith('..') && file !== path.join('..', '..', 'bin', 'run.js')), [], `${argv.join(' ')} loads files outside the bundle`)
    return files
  }

  for (const [specifier, entry] of [['svc-plugin', 'index.mjs'], ['svc-plugin/store', 'store.mjs'], ['svc-plugin/tooling', 'tooling.mjs']] as const) {
    it(`${specifier} loads its own chunks: no oclif, no credential rules, nothing of the command line`, () => {
      const files = loadedBy(specifier)
      assert.ok(files.includes(entry), files.join(', '))
      assert.deepEqual(files.filter((file) => file.startsWith('cli/')), [])
      for (const file of files) {
        const holds = bundleContents[file]
        assert.ok(holds !== undefined, `${file} is not in dist/bundle.json`)
        assert.deepEqual(holds.filter((what) => what === 'commands' || what.startsWith('@oclif/') || what.startsWith('@secretlint/')), [], file)
      }
    })
  }

  it('svc-plugin pack of a plugin without secrets loads neither the ZIP reader nor the credential rules, nor what oclif seldom needs', () => {
    const files = loadedByProcess(['bin/run.js', 'pack', 'fixtures/example-plugin', '--output', path.join(dir, 'loads.svcPlugin'), '--force'])
    assert.ok(files.includes('cli/commands/pack.mjs'), files.join(', '))
    // The schema's compiled validator is required (CommonJS): the record sees require() too.
    assert.ok(files.includes(path.join('chunks', 'manifest-validator.generated.cjs')), files.join(', '))
    assert.deepEqual(files.filter((file) => file.startsWith(path.join('chunks', 'oclif-'))), [])
    const held = files.flatMap((file) => bundleContents[file] ?? [])
    assert.deepEqual(held.filter((what) => what === 'yauzl' || what.startsWith('@secretlint/')), [])
  })

  it("takes Node's own modules without importing them, so that Node builds no facade that loads what they keep for first use", () => {
    const builtins = new Set(builtinModules)
    const importing: string[] = []
    const modules = readdirSync(path.join(repoRoot, 'dist', 'bundle'), {recursive: true, encoding: 'utf8'}).filter((name) => /\.m?js$/.test(name))
    assert.ok(modules.length > 100, `the bundle's ES modules: ${modules.length}`)
    for (const file of modules) {
      const text = readFileSync(path.join(repoRoot, 'dist', 'bundle', file), 'utf8')
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false, ts.ScriptKind.JS)
      for (const statement of source.statements) {
        const specifier = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier !== undefined ? (statement.moduleSpecifier as ts.StringLiteral).text : null
        if (specifier !== null && builtins.has(specifier.replace(/^node:/, ''))) importing.push(`${file}: ${statement.getText(source)}`)
      }
    }
    assert.deepEqual(importing, [])
    // A facade of node:crypto would load Web Crypto, and one of node:util its argument parser.
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('svc-plugin'); process.stdout.write(process.moduleLoadList.join('\\n'))"], {cwd: repoRoot, encoding: 'utf8'})
    assert.equal(child.status, 0, child.stderr)
    const loaded = child.stdout.split('\n')
    assert.ok(loaded.includes('NativeModule crypto'), 'the library loads node:crypto')
    assert.deepEqual(loaded.filter((name) => /webcrypto|parse_args|internal\/mime/.test(name)), [])
  })

  it('resolves each public entry of package.json, and nothing else, from outside', () => {
    assert.deepEqual(Object.keys(packageJson.exports).sort(), ['.', './package.json', './schema/manifest.schema.json', './store', './tooling'])
    const privateEntry = spawnSync(process.execPath, ['--input-type=module', '-e', "await import('svc-plugin/cli')"], {cwd: repoRoot, encoding: 'utf8'})
    assert.match(privateEntry.stderr, /ERR_PACKAGE_PATH_NOT_EXPORTED/)
  })
})
