import assert from 'node:assert/strict'
import {readFile, readdir} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'
import {documentedCodes} from '../../src/report/descriptions.js'
import {verdictOf, verifyCodes} from '../../src/signing/result.js'
import {repoRoot} from '../helpers/cli.js'

const docs = path.join(repoRoot, 'docs')

/** The rows of every Markdown table in `text`, each as its header cells and its own cells. */
function tableRows(text: string): Array<{header: string[]; cells: string[]; line: number}> {
  const rows: Array<{header: string[]; cells: string[]; line: number}> = []
  const lines = text.split('\n')
  const cellsOf = (line: string) => line.trim().replace(/^\||\|$/g, '').split('|').map((cell) => cell.trim())
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\|\s*-{3}/.test(lines[i + 1]!.trim())) continue
    const header = cellsOf(lines[i]!)
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++) rows.push({header, cells: cellsOf(lines[j]!), line: j + 1})
  }
  return rows
}

/** The `code-like` names quoted in a cell. */
const codesIn = (cell: string): string[] => [...cell.matchAll(/`([a-z][a-z0-9]*(?:-[a-z0-9]+)*)`/g)].map((match) => match[1]!)

describe('the codes the documentation names', () => {
  it('every table column headed Code or Codes in docs/*.md names only codes the library has (no retired code)', async () => {
    // Error and diagnostic codes, and the problem codes of a verification result.
    const known = new Set<string>([...documentedCodes(), ...verifyCodes])
    const unknown: string[] = []
    for (const name of (await readdir(docs)).filter((file) => file.endsWith('.md')).sort()) {
      for (const {header, cells, line} of tableRows(await readFile(path.join(docs, name), 'utf8'))) {
        header.forEach((title, column) => {
          if (title !== 'Code' && title !== 'Codes') return
          for (const code of codesIn(cells[column] ?? '')) if (!known.has(code)) unknown.push(`docs/${name}:${line}: ${code}`)
        })
      }
    }
    assert.deepEqual(unknown, [])
  })

  it('the verification checklist and verdict tables of docs/signing.md give each code the verdict the library gives it, and name every code', async () => {
    const rows = tableRows(await readFile(path.join(docs, 'signing.md'), 'utf8'))
    const named = new Set<string>()
    const wrong: string[] = []
    for (const {header, cells, line} of rows) {
      const codeColumn = header.indexOf(header.includes('Code') ? 'Code' : 'Codes')
      const verdictColumn = header.indexOf('Verdict')
      if (codeColumn < 0 || verdictColumn < 0) continue
      const verdict = cells[verdictColumn]!
      if (!/^[A-Z][A-Za-z]+$/.test(verdict)) continue // step 7 points to the chain sub-table, which names its own verdicts
      for (const code of codesIn(cells[codeColumn]!)) {
        named.add(code)
        if (verdictOf[code as keyof typeof verdictOf] !== verdict) wrong.push(`docs/signing.md:${line}: ${code} is ${verdictOf[code as keyof typeof verdictOf]}, not ${verdict}`)
      }
    }
    assert.deepEqual(wrong, [])
    assert.deepEqual(verifyCodes.filter((code) => !named.has(code)), [])
  })
})
