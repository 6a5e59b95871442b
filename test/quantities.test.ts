import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import ts from 'typescript'
import {formatMiB, plural} from '../src/quantities.js'
import {repoRoot} from './helpers/cli.js'

const mebibyte = 1024 * 1024

/** The text of every string literal and template part of TypeScript source. */
function literals(source: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, source)
  const texts: string[] = []
  const textKinds = new Set([ts.SyntaxKind.StringLiteral, ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateHead, ts.SyntaxKind.TemplateMiddle, ts.SyntaxKind.TemplateTail])
  const braces: boolean[] = []
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    // A `}` that closes a template's substitution goes on with the template's text.
    if (kind === ts.SyntaxKind.CloseBraceToken && braces.pop() === true) kind = scanner.reScanTemplateToken(false)
    if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle) braces.push(true)
    else if (kind === ts.SyntaxKind.OpenBraceToken) braces.push(false)
    if (textKinds.has(kind)) texts.push(scanner.getTokenValue())
  }
  return texts
}

/** Every .ts file under `folder` of the repository. */
function sources(folder: string): string[] {
  return readdirSync(path.join(repoRoot, folder), {recursive: true, encoding: 'utf8'})
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(folder, name))
}

describe('quantities for people', () => {
  it('a count takes the singular noun for one and the plural for any other count', () => {
    fc.assert(
      fc.property(fc.nat(10_000), (count) => {
        assert.equal(plural(count, 'plugin'), `${count} ${count === 1 ? 'plugin' : 'plugins'}`)
        assert.equal(plural(count, 'entry', 'entries'), `${count} ${count === 1 ? 'entry' : 'entries'}`)
      }),
    )
  })

  it('a size is in MiB, exact for whole (and short) numbers, never reading as a whole number it is not, and close to the truth', () => {
    assert.deepEqual([0, 8 * mebibyte, 64 * 1024, 1234, 12_944_671, 512 * mebibyte + 1].map(formatMiB), ['0 MiB', '8 MiB', '0.0625 MiB', '<0.01 MiB', '12.35 MiB', '512.000001 MiB'])
    fc.assert(
      fc.property(fc.oneof(fc.nat(4 * 1024 * mebibyte), fc.tuple(fc.nat(64), fc.integer({min: -2, max: 2})).map(([mib, off]) => mib * mebibyte + off)), (bytes) => {
        fc.pre(bytes >= 0)
        const text = formatMiB(bytes)
        const mib = bytes / mebibyte
        if (text === '<0.01 MiB') return assert.ok(mib < 0.01 && mib > 0, `${bytes} bytes`)
        const match = /^(\d+(?:\.\d+)?) MiB$/.exec(text)
        assert.ok(match, text)
        const shown = Number(match[1])
        assert.equal(Number.isInteger(shown), Number.isInteger(mib), `${bytes} bytes as ${text}`)
        assert.ok(Math.abs(shown - mib) <= 0.005, `${bytes} bytes as ${text}`)
      }),
      {numRuns: 2000},
    )
  })

  it('no text of the library or the command line writes a count as "(s)": every one goes through plural()', () => {
    const found = [...sources('src'), ...sources('commands')].flatMap((file) => literals(readFileSync(path.join(repoRoot, file), 'utf8')).filter((text) => /[a-z]\((?:s|es)\)/.test(text)).map((text) => `${file}: ${text}`))
    assert.deepEqual(found, [])
  })
})
