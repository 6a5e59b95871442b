import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'
import * as cli from '../src/cli.js'
import * as root from '../src/index.js'
import * as store from '../src/store.js'
import * as tooling from '../src/tooling.js'

/**
 * The package's three public entries, one per audience, and the command line's private one: each exports
 * exactly the names its list in test/public-api/ holds, the host's entry stays small, no name has two
 * public homes, and the command line sees the public names and a few of its own, nothing else.
 */

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const entries = {root: {file: 'index.ts', module: root}, store: {file: 'store.ts', module: store}, tooling: {file: 'tooling.ts', module: tooling}} as const

/** One program over every entry, built on first use. */
let program: ts.Program | undefined

/** Every name an entry of src/ exports, values and types alike, as the compiler sees them. */
function exportedNames(file: string): string[] {
  const roots = Object.values(entries).map((entry) => path.join(repoRoot, 'src', entry.file))
  program ??= ts.createProgram(roots, {module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noEmit: true, skipLibCheck: true})
  const checker = program.getTypeChecker()
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(path.join(repoRoot, 'src', file))!)!
  return checker.getExportsOfModule(symbol).map((exported) => exported.getName()).sort()
}

/** The names test/public-api/<name>.txt lists. */
function listed(name: string): string[] {
  return readFileSync(path.join(repoRoot, 'test', 'public-api', `${name}.txt`), 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('#')).sort()
}

describe('the public entries', () => {
  for (const [name, {file}] of Object.entries(entries)) {
    it(`${file} exports exactly the names of test/public-api/${name}.txt: a change to it is a deliberate diff of that file`, () => {
      assert.deepEqual(exportedNames(file), listed(name))
    })
  }

  it('give a host at most 45 names it can call or compare at run time', () => {
    assert.ok(Object.keys(root).length <= 45, `${Object.keys(root).length}: ${Object.keys(root).join(', ')}`)
  })

  it('give each name one public home', () => {
    const homes = new Map<string, string[]>()
    for (const name of Object.keys(entries)) for (const exported of listed(name)) homes.set(exported, [...(homes.get(exported) ?? []), name])
    assert.deepEqual([...homes].filter(([, where]) => where.length > 1), [])
  })

  it('give the command line every public name and, besides them, only what it alone needs', () => {
    const publicNames = new Set(Object.values(entries).flatMap(({module}) => Object.keys(module)))
    assert.deepEqual(Object.keys(cli).filter((name) => !publicNames.has(name)).sort(), [
      'codePageFile',
      'codePagesFolder',
      'colorEnabled',
      'findRepositoryRoot',
      'formatMiB',
      'isGlobPattern',
      'jsonText',
      'plural',
      'removeTemporaryFilesSync',
      'renderStepSummary',
      'shellCommand',
      'subjectsTextLines',
      'textLines',
      'uploadTextLines',
      'visibleText',
      'withoutInvisibleCharacters',
    ])
    for (const name of publicNames) assert.ok(name in cli, name)
  })

  it('give every error class the SvcPluginError base, from the host entry, so callers branch on code', () => {
    const classes = Object.entries(root).filter(([name]) => /^[A-Z]\w*Error$/.test(name) && name !== 'SvcPluginError')
    assert.equal(classes.length, 17)
    for (const [name, value] of classes) {
      const ErrorClass = value as unknown as new (code: string, message: string, ...rest: unknown[]) => Error
      const error = new ErrorClass('some-code', 'a message', {reason: 'x'})
      assert.ok(error instanceof root.SvcPluginError, name)
      assert.equal((error as root.SvcPluginError).code, 'some-code', name)
    }
  })
})
