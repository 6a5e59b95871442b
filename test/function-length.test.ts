import assert from 'node:assert/strict'
import {readFileSync, readdirSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')

/** The most lines a function of `src/` may span, from its first token to its closing brace. */
const maxLines = 80

/**
 * Functions that are longer today and are being split: `file:name`. An entry that is no longer over the
 * limit fails the check too, so this list only ever shrinks.
 */
const awaitingSplit: readonly string[] = []

/** One function, method, accessor, constructor or arrow function of a source file, with its length in lines. */
interface Measured {
  where: string
  lines: number
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), {recursive: true})
    .map(String)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => path.join(dir, file).split(path.sep).join('/'))
    .sort()
}

function nameOf(node: ts.Node, file: ts.SourceFile): string {
  const named = node as ts.Node & {name?: ts.Node}
  if (named.name !== undefined) return named.name.getText(file)
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  // An arrow or a function expression takes the name it is bound to, if any.
  const parent = node.parent
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(file)
  return `<anonymous@${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}>`
}

/** Every function-like node of `file` (nested ones too, each measured on its own). */
function measure(relative: string): Measured[] {
  const text = readFileSync(path.join(root, relative), 'utf8')
  const file = ts.createSourceFile(relative, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: Measured[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line
      found.push({where: `${relative}:${nameOf(node, file)}`, lines: last - first + 1})
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

describe(`functions of src/ a reader can hold (at most ${maxLines} lines)`, () => {
  const measured = sourceFiles('src').flatMap(measure)

  it('sees the functions it judges: every kind of function in every folder', () => {
    assert.ok(measured.length > 500, `only ${measured.length} functions found`)
    assert.ok(measured.some((item) => item.where === 'src/archive/writer.ts:writeArchive'))
    assert.ok(measured.some((item) => item.where.endsWith(':constructor')))
  })

  it(`has no function over ${maxLines} lines but those awaiting their split`, () => {
    const long = measured.filter((item) => item.lines > maxLines && !awaitingSplit.includes(item.where)).map((item) => `${item.where} (${item.lines} lines)`)
    assert.deepEqual(long, [])
  })

  it('lists as awaiting a split only functions that are still over the limit', () => {
    const stillLong = new Set(measured.filter((item) => item.lines > maxLines).map((item) => item.where))
    assert.deepEqual(
      awaitingSplit.filter((where) => !stillLong.has(where)),
      [],
    )
  })
})
