import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'
import * as api from '../src/index.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const snapshotFile = path.join(root, 'test', 'public-api.txt')

/** Every name src/index.ts exports, values and types alike, as the compiler sees them. */
function exportedNames(): string[] {
  const entry = path.join(root, 'src', 'index.ts')
  const program = ts.createProgram([entry], {module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, noEmit: true, skipLibCheck: true})
  const checker = program.getTypeChecker()
  const symbol = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!
  return checker.getExportsOfModule(symbol).map((exported) => exported.getName()).sort()
}

describe('the public API (src/index.ts)', () => {
  it('exports exactly the curated names of test/public-api.txt: a change to the API is a deliberate diff of that file', () => {
    const expected = readFileSync(snapshotFile, 'utf8').split('\n').filter((line) => line !== '' && !line.startsWith('#')).sort()
    assert.deepEqual(exportedNames(), expected)
  })

  it('gives every error class the SvcPluginError base, so callers branch on code', () => {
    for (const name of ['ArchiveError', 'InputFileError', 'LockError', 'ValidationError', 'PackError', 'InspectError', 'SigningError', 'InstallError', 'MergeError', 'RevocationError', 'StoreError', 'ModelError'] as const) {
      const ErrorClass = api[name] as unknown as new (code: string, message: string, ...rest: unknown[]) => Error
      const error = new ErrorClass('some-code', 'a message', {reason: 'x'})
      assert.ok(error instanceof api.SvcPluginError, name)
      assert.equal((error as api.SvcPluginError).code, 'some-code', name)
    }
  })
})
