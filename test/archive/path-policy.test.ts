import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {checkEntryPath, checkEntryPathByRule, describeEntryPathProblem, entryCollisionKey, maxEntryPathDepth, maxEntryPathLength, maxEntrySegmentBytes, type EntryPathProblem} from '../../src/archive/path-policy.js'

const refused: [string, EntryPathProblem][] = [
  ['', 'empty'],
  ['a\u0000b.txt', 'control-character'],
  ['notes\u0007.txt', 'control-character'],
  ['line\nbreak.txt', 'control-character'],
  ['del\u007f.txt', 'control-character'],
  ['c1\u009b.txt', 'control-character'],
  [`${'a'.repeat(197)}.txt`, 'too-long'],
  [`${'d/'.repeat(32)}f.txt`, 'too-deep'],
  ['/etc/passwd', 'absolute'],
  ['\\\\server\\share\\x.dll', 'absolute'],
  ['C:/Windows/x.dll', 'drive-letter'],
  ['c:relative.txt', 'drive-letter'],
  ['runtimes\\win-x64\\App.exe', 'backslash'],
  ['..\\evil.txt', 'backslash'],
  ['../evil.txt', 'parent-segment'],
  ['a/../b.txt', 'parent-segment'],
  ['a/b/..', 'parent-segment'],
  ['./a.txt', 'dot-segment'],
  ['a/./b.txt', 'dot-segment'],
  ['a//b.txt', 'empty-segment'],
  ['a/b/', 'empty-segment'],
  ['what?.txt', 'reserved-character'],
  ['a<b.txt', 'reserved-character'],
  ['a>b.txt', 'reserved-character'],
  ['notes.txt:stream', 'reserved-character'],
  ['say"hi".txt', 'reserved-character'],
  ['a|b.txt', 'reserved-character'],
  ['star*.txt', 'reserved-character'],
  ['docs./a.txt', 'trailing-dot-or-space'],
  ['notes.txt.', 'trailing-dot-or-space'],
  ['notes.txt ', 'trailing-dot-or-space'],
  ['folder /a.txt', 'trailing-dot-or-space'],
  ['CON', 'device-name'],
  ['assets/con.png', 'device-name'],
  ['Prn.tar.gz', 'device-name'],
  ['aux', 'device-name'],
  ['NUL.txt', 'device-name'],
  ['COM1', 'device-name'],
  ['lpt9.log', 'device-name'],
  ['COM\u00b9.txt', 'device-name'],
  ['con .txt', 'device-name'],
]

const accepted = [
  'manifest.json',
  'a/b/c.txt',
  'runtimes/linux-x64/weather-station',
  'Localization/Strings.fr-FR.resx',
  'assets/my icon.png',
  'docs/read me first.md',
  'caf\u00e9/r\u00e9sum\u00e9.txt',
  '\u65e5\u672c\u8a9e/\u30d5\u30a1\u30a4\u30eb.txt',
  'emoji-\u{1f600}.txt',
  '.hidden/config',
  '..hidden',
  'a..b.txt',
  'CONSOLE.txt',
  'COM10.txt',
  'LPT.txt',
  'console/con-fig.json',
  `${'a'.repeat(196)}.txt`,
  `${'d/'.repeat(31)}f.txt`,
]

describe('checkEntryPath on archive names', () => {
  for (const [path, reason] of refused) {
    it(`refuses ${JSON.stringify(path.length > 40 ? `${path.slice(0, 40)}…` : path)} as ${reason}`, () => {
      assert.equal(checkEntryPath(path), reason)
    })
  }
  for (const path of accepted) {
    it(`accepts ${JSON.stringify(path.length > 40 ? `${path.slice(0, 40)}…` : path)}`, () => {
      assert.equal(checkEntryPath(path), null)
    })
  }
  it('counts the 200-character limit in UTF-16 code units', () => {
    assert.equal(checkEntryPath('a'.repeat(200)), null)
    assert.equal(checkEntryPath('a'.repeat(201)), 'too-long')
    assert.equal(checkEntryPath('\u{1f600}'.repeat(101)), 'too-long')
  })
})

describe('checkEntryPath on source paths', () => {
  it('treats a backslash as a separator instead of refusing it', () => {
    assert.equal(checkEntryPath('runtimes\\win-x64\\App.exe', {source: true}), null)
  })
  it('still finds a .. segment behind a backslash', () => {
    assert.equal(checkEntryPath('a\\..\\b.txt', {source: true}), 'parent-segment')
  })
  it('tolerates . and empty segments', () => {
    assert.equal(checkEntryPath('./a//b.txt', {source: true}), null)
  })
  it('applies every other rule', () => {
    assert.equal(checkEntryPath('/abs/a.txt', {source: true}), 'absolute')
    assert.equal(checkEntryPath('D:\\x.txt', {source: true}), 'drive-letter')
    assert.equal(checkEntryPath('a\\CON.txt', {source: true}), 'device-name')
    assert.equal(checkEntryPath('a?.txt', {source: true}), 'reserved-character')
    assert.equal(checkEntryPath('a.\\b', {source: true}), 'trailing-dot-or-space')
    assert.equal(checkEntryPath('tab\t.txt', {source: true}), 'control-character')
  })
})

describe('entryCollisionKey', () => {
  it('maps names differing only in case to one key', () => {
    assert.equal(entryCollisionKey('README.md'), entryCollisionKey('readme.MD'))
  })
  it('maps NFC and NFD spellings to one key', () => {
    assert.equal(entryCollisionKey('caf\u00e9.txt'), entryCollisionKey('cafe\u0301.txt'))
    assert.equal(entryCollisionKey('CAF\u00c9.txt'), entryCollisionKey('cafe\u0301.txt'))
  })
  it('folds sharp s onto ss', () => {
    assert.equal(entryCollisionKey('stra\u00dfe.txt'), entryCollisionKey('STRASSE.txt'))
  })
  it('keeps different names apart', () => {
    assert.notEqual(entryCollisionKey('a/b.txt'), entryCollisionKey('a/c.txt'))
  })
  it('gives every ASCII name the key of the full fold (NFC, upper, lower, NFC)', () => {
    const fullFold = (name: string) => name.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC')
    const ascii = Array.from({length: 128}, (_, code) => String.fromCharCode(code))
    for (const character of ascii) assert.equal(entryCollisionKey(`Dir/${character}`), fullFold(`Dir/${character}`))
    fc.assert(fc.property(fc.string({unit: fc.constantFrom(...ascii)}), (name) => entryCollisionKey(name) === fullFold(name)))
  })
})

/**
 * Default_Ignorable_Code_Point as DerivedCoreProperties.txt lists it (unchanged from Unicode 15.1 to 17.0):
 * the table the engine's property is checked against, so the test does not take the engine's word for it.
 */
const defaultIgnorableRanges: [number, number][] = [
  [0x00ad, 0x00ad], [0x034f, 0x034f], [0x061c, 0x061c], [0x115f, 0x1160], [0x17b4, 0x17b5], [0x180b, 0x180f],
  [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff],
  [0xffa0, 0xffa0], [0xfff0, 0xfff8], [0x1bca0, 0x1bca3], [0x1d173, 0x1d17a], [0xe0000, 0xe0fff],
]
const defaultIgnorable = defaultIgnorableRanges.flatMap(([first, last]) => Array.from({length: last - first + 1}, (_, i) => String.fromCodePoint(first + i)))

describe('checkEntryPath on names that display as another name', () => {
  it("the engine's Default_Ignorable_Code_Point is the table's, code point for code point", () => {
    const engine: string[] = []
    const property = /\p{Default_Ignorable_Code_Point}/u
    for (let code = 0; code <= 0x10ffff; code++) if ((code < 0xd800 || code > 0xdfff) && property.test(String.fromCodePoint(code))) engine.push(String.fromCodePoint(code))
    assert.deepEqual(engine, defaultIgnorable)
  })
  it('refuses every default-ignorable code point, in every position of a segment, in archive and source paths', () => {
    // Around the segment's start, inside it, before its extension, at its end, as the whole segment, in a folder's name.
    const spellings = (c: string) => [`${c}README.md`, `READ${c}ME.md`, `README${c}.md`, `README.md${c}`, `docs/${c}/README.md`, `docs/README.md${c}`, `do${c}cs/README.md`, `${c}`]
    for (const character of defaultIgnorable) {
      for (const name of spellings(character)) {
        assert.equal(checkEntryPath(name), 'format-character', JSON.stringify(name))
        assert.equal(checkEntryPath(name.replaceAll('/', '\\'), {source: true}), 'format-character', JSON.stringify(name))
        const shown = describeEntryPathProblem(name, 'format-character')
        assert.ok(!shown.includes(character) && shown.includes(`\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`), shown)
      }
    }
  })
  it('refuses every other formatting character (Unicode category Cf) too', () => {
    for (let code = 0; code <= 0x10ffff; code++) {
      const character = String.fromCodePoint(code)
      if (!/\p{Cf}/u.test(character)) continue
      for (const name of [`${character}a.txt`, `a${character}.txt`, `a.txt${character}`]) assert.equal(checkEntryPath(name), 'format-character', JSON.stringify(name))
    }
  })
  it('accepts visible neighbours of the property: a combining accent, Hangul letters, the ideographic space, a hyphen, an emoji', () => {
    for (const name of ['caf\u0065\u0301.txt', '\u1100\u1161.txt', 'a\u3000b.txt', 'emoji-\u{1f600}.txt', 'a\u2010b.txt']) assert.equal(checkEntryPath(name), null, name)
  })
})

describe('describeEntryPathProblem', () => {
  it('names the path with its control characters escaped', () => {
    assert.equal(describeEntryPathProblem('a\u001b[31m.txt', 'control-character'), 'The path "a\\u001b[31m.txt" contains a NUL or control character.')
  })
})

describe('the length of a segment in bytes', () => {
  it('refuses a segment of more than 255 bytes of UTF-8 that the path length lets through, and takes one of 255', () => {
    assert.equal(checkEntryPath(`lib/${'漢'.repeat(85)}`), null) // 255 bytes
    assert.equal(checkEntryPath(`lib/${'漢'.repeat(86)}`), 'segment-too-long') // 258 bytes, 90 code units
    assert.equal(checkEntryPath(`${'😀'.repeat(64)}/a`), 'segment-too-long') // 256 bytes, 128 code units
    assert.equal(checkEntryPath(`${'é'.repeat(127)}x`), null) // 255 bytes
    assert.equal(checkEntryPath(`${'é'.repeat(128)}`), 'segment-too-long')
    assert.equal(checkEntryPath(`${'a'.repeat(150)}/${'b'.repeat(49)}`), null) // ASCII: the path limit comes first
  })

  it('accepts no path with a segment a file system cannot name, in either mode', () => {
    const unit = fc.constantFrom('a', 'é', '漢', '😀', 'ß', '/', '-')
    fc.assert(
      fc.property(fc.array(unit, {maxLength: 200}), fc.boolean(), (units, source) => {
        const path = units.join('')
        if (checkEntryPath(path, {source}) !== null) return
        for (const segment of path.split('/')) assert.ok(Buffer.byteLength(segment, 'utf8') <= maxEntrySegmentBytes, JSON.stringify(path))
      }),
      {numRuns: 2000, seed: 20261129},
    )
  })
})

describe('the shortcut for plain names', () => {
  const token = fc.constantFrom('con', 'CON', 'Com1', 'com0', 'lpt9', 'nul', 'aux', 'prn', 'conin$', 'a', 'B', '0', '_', '-', '.', '..', '/', '//', '~', '~1', ' ', '\\', ':', 'c:', 'é', '\u200b', '\u0001', 'x.txt', 'lib', 'README.md', '¹')
  const paths = fc.oneof(
    fc.array(token, {maxLength: 12}).map((tokens) => tokens.join('')),
    // Near the length and depth bounds.
    fc.tuple(fc.integer({min: maxEntryPathLength - 3, max: maxEntryPathLength + 3}), fc.constantFrom('a', 'a/', 'ab/')).map(([length, unit]) => unit.repeat(length).slice(0, length)),
    fc.integer({min: maxEntryPathDepth - 2, max: maxEntryPathDepth + 2}).map((depth) => Array.from({length: depth}, () => 'd').join('/')),
  )

  it('gives every path, in either mode, what the rules give it one by one', () => {
    fc.assert(
      fc.property(paths, fc.boolean(), (path, source) => {
        assert.equal(checkEntryPath(path, {source}), checkEntryPathByRule(path, {source}), JSON.stringify(path))
      }),
      {numRuns: 3000, seed: 20261128},
    )
  })

  it('takes the plain names of a plugin at once, and leaves every near miss to the rules', () => {
    for (const path of ['lib/util/module-0639.js', 'Localization/Strings.de.resx', 'runtimes/win-x64/WeatherStation.dll', 'a', 'x_y-z.1.2']) assert.equal(checkEntryPath(path), null, path)
    const nearMisses: [string, EntryPathProblem][] = [['con.txt', 'device-name'], ['lib/COM1', 'device-name'], ['a./b', 'trailing-dot-or-space'], ['LONGDI~1/x', 'short-name-alias'], ['a//b', 'empty-segment'], ['a/./b', 'dot-segment'], ['a\\b', 'backslash']]
    for (const [path, problem] of nearMisses) assert.equal(checkEntryPath(path), problem, path)
  })
})
