import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {findNodeAtLocation, parseTree} from 'jsonc-parser'
import {maxJsonContainers, maxJsonNesting, readJsonDocument} from '../../src/json/strict-json.js'
import {maxManifestBytes} from '../../src/model/manifest-size.js'
import type {ReadJsonResult} from '../../src/json/strict-json.js'
import {firstInvalidUtf8} from '../../src/json/utf8.js'

const encoder = new TextEncoder()

function read(text: string): ReadJsonResult {
  return readJsonDocument(encoder.encode(text), {maxBytes: maxManifestBytes})
}

/** Reads text that must be refused and returns its one diagnostic. */
function refused(input: string | Uint8Array, options?: {maxBytes?: number}) {
  const result = readJsonDocument(typeof input === 'string' ? encoder.encode(input) : input, {maxBytes: options?.maxBytes ?? maxManifestBytes})
  assert.equal(result.ok, false, 'the input was accepted')
  if (result.ok) throw new Error('unreachable')
  return result.problem
}

function bytes(...parts: Array<string | number[]>): Uint8Array {
  return Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...encoder.encode(part)] : part)))
}

describe('readJsonDocument: strict JSON', () => {
  describe('a line comment', () => {
    it('is malformed at the comment', () => {
      const diagnostic = refused('{\n  "a": 1 // note\n}')
      assert.deepEqual([diagnostic.line, diagnostic.column, diagnostic.pointer], [2, 10, null])
      assert.match(diagnostic.message, /comments are not allowed/)
      assert.match(diagnostic.message, /line 2, column 10/)
    })
  })

  describe('a block comment before the object', () => {
    it('is malformed at line 1, column 1', () => {
      const diagnostic = refused('/* header */{}')
      assert.deepEqual([diagnostic.line, diagnostic.column], [1, 1])
      assert.match(diagnostic.message, /comments/)
    })
  })

  describe('a trailing comma in an object', () => {
    it('is malformed at the closing brace', () => {
      const diagnostic = refused('{\n  "a": 1,\n}')
      assert.deepEqual([diagnostic.line, diagnostic.column], [3, 1])
      assert.match(diagnostic.message, /trailing comma/)
    })
  })

  describe('a trailing comma in an array', () => {
    it('is malformed at the closing bracket', () => {
      const diagnostic = refused('{"a": [1, 2,]}')
      assert.deepEqual([diagnostic.line, diagnostic.column], [1, 13])
      assert.match(diagnostic.message, /trailing comma/)
    })
  })

  describe('a duplicate top-level key', () => {
    it('is malformed at the second occurrence with the member pointer', () => {
      const diagnostic = refused('{\n  "id": "a",\n  "id": "b"\n}')
      assert.deepEqual([diagnostic.pointer, diagnostic.line, diagnostic.column], ['/id', 3, 3])
      assert.match(diagnostic.message, /"id" appears twice/)
      assert.match(diagnostic.message, /line 2, column 3/)
    })
  })

  describe('a duplicate nested key spelled with an escape', () => {
    it('is compared after unescaping', () => {
      const diagnostic = refused('{"a": {"x": 1, "\\u0078": 2}}')
      assert.deepEqual([diagnostic.pointer, diagnostic.line, diagnostic.column], ['/a/x', 1, 16])
    })
  })

  describe('a duplicate key holding a slash inside an array element', () => {
    it('gets an escaped pointer', () => {
      const diagnostic = refused('{"list": [{"a/b": 1, "a/b": 2}]}')
      assert.equal(diagnostic.pointer, '/list/0/a~1b')
    })
  })

  describe('the same key in two different objects', () => {
    it('is not a duplicate', () => {
      assert.equal(read('{"a": {"x": 1}, "b": {"x": 2}}').ok, true)
    })
  })

  describe('a UTF-8 byte order mark', () => {
    it('is malformed at line 1, column 1', () => {
      const diagnostic = refused(bytes([0xef, 0xbb, 0xbf], '{}'))
      assert.deepEqual([diagnostic.line, diagnostic.column, diagnostic.pointer], [1, 1, null])
      assert.match(diagnostic.message, /byte order mark/)
    })
  })

  describe('invalid UTF-8', () => {
    for (const [name, bad] of [
      ['a stray 0xFF', [0xff]],
      ['an overlong slash', [0xc0, 0xaf]],
      ['an encoded surrogate', [0xed, 0xa0, 0x80]],
      ['a lone continuation byte', [0x80]],
    ] as const) {
      it(`locates ${name} inside a string`, () => {
        const diagnostic = refused(bytes('{\n  "name": "', [...bad], '"\n}'))
        assert.deepEqual([diagnostic.line, diagnostic.column], [2, 12])
        assert.match(diagnostic.message, /not valid UTF-8/)
      })
    }

    it('locates a sequence truncated by the end of the file', () => {
      const diagnostic = refused(bytes('{"a": "x"}\n', [0xe2, 0x82]))
      assert.deepEqual([diagnostic.line, diagnostic.column], [2, 1])
    })

    it('counts columns in UTF-16 code units after multi-byte characters', () => {
      const diagnostic = refused(bytes('{"n": "é😀', [0xff], '"}'))
      assert.deepEqual([diagnostic.line, diagnostic.column], [1, 11])
    })
  })

  describe('a top-level value that is not an object', () => {
    for (const [text, kind] of [
      ['[1, 2]', 'an array'],
      ['"text"', 'a string'],
      ['42', 'a number'],
      ['null', 'null'],
      ['true', 'a boolean'],
    ] as const) {
      it(`refuses ${text} naming ${kind}`, () => {
        const diagnostic = refused(text)
        assert.deepEqual([diagnostic.line, diagnostic.column], [1, 1])
        assert.ok(diagnostic.message.includes(`is ${kind}`), diagnostic.message)
      })
    }

    it('reports where the value starts', () => {
      const diagnostic = refused('\n  [1]')
      assert.deepEqual([diagnostic.line, diagnostic.column], [2, 3])
    })
  })

  describe('an empty file', () => {
    it('is malformed as empty', () => {
      for (const text of ['', '  \n ']) {
        const diagnostic = refused(text)
        assert.match(diagnostic.message, /empty/)
        assert.equal(diagnostic.line, 1)
      }
    })
  })

  describe('a file over the size limit', () => {
    it('is refused by size before its bytes are decoded', () => {
      const diagnostic = refused(new Uint8Array(maxManifestBytes + 1).fill(0xff))
      assert.deepEqual([diagnostic.line, diagnostic.column, diagnostic.pointer], [null, null, null])
      assert.match(diagnostic.message, /larger than 8 MiB/)
    })

    it('honours maxBytes', () => {
      const diagnostic = refused('{"a": 1234567890}', {maxBytes: 10})
      assert.match(diagnostic.message, /larger than <0\.01 MiB/)
      assert.equal(read('{"a": 1234567890}').ok, true)
    })

    it('accepts exactly maxBytes', () => {
      assert.equal(readJsonDocument(encoder.encode('{"a": 1}'), {maxBytes: 8}).ok, true)
    })
  })

  describe('JSON5 and JavaScript leniencies', () => {
    for (const [name, text, line, column, pattern] of [
      ['single quotes', "{'a': 1}", 1, 2, /double quotes/],
      ['an unquoted name', '{a: 1}', 1, 2, /"a" is not a JSON value/],
      ['NaN', '{"a": NaN}', 1, 7, /"NaN"/],
      ['a leading zero', '{"a": 01}', 1, 8, /leading zeros/],
      ['a leading plus', '{"a": +1}', 1, 7, /"\+1"/],
      ['a raw tab in a string', '{"a": "x\ty"}', 1, 9, /control character U\+0009/],
      ['a raw line break in a string', '{"a": "x\ny"}', 1, 9, /control character U\+000A|not terminated/],
      ['an invalid escape', '{"a": "\\x41"}', 1, 7, /escape/],
      ['a missing colon', '{"a" 1}', 1, 6, /colon/],
      ['a missing comma', '{"a": 1\n "b": 2}', 2, 2, /comma/],
      ['an unclosed object', '{"a": 1', 1, 8, /not closed|ends/],
      ['text after the object', '{"a": 1}\nx', 2, 1, /nothing may follow|not a JSON value/],
      ['a second object', '{}{}', 1, 3, /nothing may follow/],
      ['a no-break space as whitespace', '{\u00a0"a": 1}', 1, 2, /not a JSON value/],
      ['a form feed as whitespace', '{"a": 1}\f', 1, 9, /not a JSON value/],
    ] as const) {
      it(`refuses ${name} at line ${line}, column ${column}`, () => {
        const diagnostic = refused(text)
        assert.deepEqual([diagnostic.line, diagnostic.column], [line, column], diagnostic.message)
        assert.match(diagnostic.message, pattern)
      })
    }
  })

  describe('line counting', () => {
    it('counts CR LF as one line break', () => {
      assert.deepEqual(lineColumn(refused('{\r\n  "a": 1,\r\n}')), [3, 1])
    })

    it('counts a lone CR as a line break', () => {
      assert.deepEqual(lineColumn(refused('{\r  "a": 1,\r}')), [3, 1])
    })
  })

  describe('nesting', () => {
    it(`accepts ${maxJsonNesting} levels`, () => {
      const depth = maxJsonNesting - 1
      assert.equal(read(`{"a": ${'['.repeat(depth)}${']'.repeat(depth)}}`).ok, true)
    })

    it('refuses deeper nesting without overflowing the stack', () => {
      const depth = 100_000
      const diagnostic = refused(`{"a": ${'['.repeat(depth)}${']'.repeat(depth)}}`)
      assert.match(diagnostic.message, /nests more than/)
      assert.deepEqual(lineColumn(diagnostic), [1, 7 + maxJsonNesting - 1])
    })

    it('still reports an earlier syntax error first', () => {
      const diagnostic = refused(`{"a": "x\n${'['.repeat(100_000)}`)
      assert.deepEqual(lineColumn(diagnostic), [1, 9])
      assert.match(diagnostic.message, /control character U\+000A/)
    })

    it('does not count brackets inside strings', () => {
      assert.equal(read(`{"a": "${'['.repeat(5000)}"}`).ok, true)
    })
  })

  describe('objects and arrays', () => {
    /** `{"x": [{},{},…]}` with `count` objects, padded with spaces to `length` characters. */
    const emptyObjects = (count: number, length: number) => {
      const text = `{"x": [${Array.from({length: count}, () => '{}').join(',')}]}`
      return text + ' '.repeat(Math.max(0, length - text.length))
    }

    it('accepts one for every 32 characters, and any number up to 1,000', () => {
      assert.equal(maxJsonContainers(100), 1000)
      const length = 200_000
      // The top-level object and the array count too.
      assert.equal(read(emptyObjects(maxJsonContainers(length) - 2, length)).ok, true)
      assert.equal(read(emptyObjects(998, 0)).ok, true)
    })

    it('refuses one more, naming where the one past the limit opens', () => {
      const length = 200_000
      const diagnostic = refused(emptyObjects(maxJsonContainers(length) - 1, length))
      assert.match(diagnostic.message, /^The JSON holds more than 6250 objects and arrays \(one for every 32 characters of its text\) at line 1, column /)
      // The last `{` opens the container past the limit.
      assert.deepEqual(lineColumn(diagnostic), [1, 7 + (maxJsonContainers(length) - 2) * 3 + 1])
    })

    it('refuses 8 MiB of empty objects (2.8 million of them, each costing memory its 3 bytes do not)', () => {
      const text = `{"x": [${'{},'.repeat(2_796_000)}{}]}`
      assert.ok(text.length <= maxManifestBytes)
      assert.match(refused(text).message, /objects and arrays/)
    })

    it('does not count brackets inside strings', () => {
      assert.equal(read(`{"a": "${'{}'.repeat(50_000)}"}`).ok, true)
    })
  })

  describe('a strict document', () => {
    const text = '{\n  "a": {\n    "b": [1, {"c": "é😀", "d": 2}]\n  },\n  "x/y~z": null\n}\n'
    const document = read(text)
    if (!document.ok) throw new Error(document.problem.message)

    it('holds the JSON.parse value', () => {
      assert.deepEqual(document.value, JSON.parse(text))
    })

    it('locates values by pointer', () => {
      assert.deepEqual(document.locate(''), {line: 1, column: 1})
      assert.deepEqual(document.locate('/a'), {line: 2, column: 8})
      assert.deepEqual(document.locate('/a/b'), {line: 3, column: 10})
      assert.deepEqual(document.locate('/a/b/0'), {line: 3, column: 11})
      assert.deepEqual(document.locate('/a/b/1/c'), {line: 3, column: 20})
      // "é😀" is three UTF-16 code units: d's value starts 12 columns after c's.
      assert.deepEqual(document.locate('/a/b/1/d'), {line: 3, column: 32})
      assert.deepEqual(document.locate('/x~1y~0z'), {line: 5, column: 12})
    })

    it('answers null for what is not there', () => {
      for (const pointer of ['/missing', '/a/b/2', '/a/b/01', '/a/b/-', '/a/b/0/x', 'a']) assert.equal(document.locate(pointer), null, pointer)
    })

    it('finds the closest existing ancestor of a missing value', () => {
      assert.deepEqual(document.locateNearest('/a/b/1/missing'), {pointer: '/a/b/1', line: 3, column: 14})
      assert.deepEqual(document.locateNearest('/nothing/here'), {pointer: '', line: 1, column: 1})
    })
  })

  describe('positions without the whole tree', () => {
    /** Where jsonc-parser's own tree places the value at `pointer` (line and UTF-16 column, from 1), or null. */
    function treePosition(text: string, pointer: string): {line: number; column: number} | null {
      const tokens = pointer === '' ? [] : pointer.slice(1).split('/').map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
      if (pointer !== '' && !pointer.startsWith('/')) return null
      let node = parseTree(text)
      for (const token of tokens) {
        if (node === undefined) return null
        if (node.type === 'array') {
          if (!/^(0|[1-9][0-9]*)$/.test(token)) return null
          node = node.children?.[Number(token)]
        } else if (node.type === 'object') {
          node = findNodeAtLocation(node, [token])
        } else {
          return null
        }
      }
      if (node === undefined) return null
      const lines = text.slice(0, node.offset).split(/\r\n|\r|\n/)
      return {line: lines.length, column: lines.at(-1)!.length + 1}
    }
    const key = fc.constantFrom('a', 'b', 'x/y', 'm~n', '__proto__', 'constructor', '0', '')
    const json = fc.letrec((tie) => ({
      value: fc.oneof({depthSize: 'small'}, fc.constantFrom(null, true, 1, 'é😀'), tie('array'), tie('object')),
      array: fc.array(tie('value'), {maxLength: 3}),
      object: fc.dictionary(key, tie('value'), {maxKeys: 4}),
    }))
    const escape = (token: string) => token.replaceAll('~', '~0').replaceAll('/', '~1')
    const pointer = fc.array(fc.oneof(key.map(escape), fc.constantFrom('0', '1', '01', '-', '~', '~2')), {maxLength: 4}).map((tokens) => tokens.map((token) => `/${token}`).join(''))

    it('locates every pointer, present or not, where the tree does, and its nearest ancestor too, whatever the line breaks', () => {
      fc.assert(
        fc.property(json.object, fc.constantFrom('', ' ', '\n\t '), fc.constantFrom(0, 2, '\t'), fc.constantFrom('\n', '\r\n', '\r'), fc.array(pointer, {minLength: 1, maxLength: 6}), (value, lead, indent, lineBreak, pointers) => {
          const text = (lead + JSON.stringify(value, null, indent)).replaceAll('\n', lineBreak)
          const document = read(text)
          if (!document.ok) throw new Error(document.problem.message)
          for (const asked of ['', ...pointers]) {
            assert.deepEqual(document.locate(asked), treePosition(text, asked), asked)
            let nearest = asked
            while (treePosition(text, nearest) === null) nearest = nearest.includes('/') ? nearest.slice(0, nearest.lastIndexOf('/')) : ''
            assert.deepEqual(document.locateNearest(asked), {pointer: nearest, ...treePosition(text, nearest)}, asked)
          }
        }),
        {numRuns: 300, seed: 20261128},
      )
    })
  })

  describe('fuzzing', () => {
    it('never throws on arbitrary bytes and answers ok or one malformed diagnostic', () => {
      fc.assert(
        fc.property(fc.uint8Array({maxLength: 300}), (input) => {
          const result = readJsonDocument(input, {maxBytes: maxManifestBytes})
          if (result.ok) assert.equal(typeof result.value, 'object')
          else assert.equal(result.ok, false)
        }),
        {numRuns: 2000},
      )
    })

    it('never throws on JSON-shaped text with mutations, and accepts only what JSON.parse accepts', () => {
      const alphabet = fc.constantFrom('{', '}', '[', ']', ',', ':', '"', '\\', 'a', '1', '0', '-', '.', 'e', ' ', '\n', 'true', 'null', '/', '*', '\u00a0')
      const mutated = fc.tuple(fc.json(), fc.array(fc.tuple(fc.nat(), alphabet), {maxLength: 4})).map(([json, edits]) =>
        edits.reduce((text, [at, insert]) => text.slice(0, at % (text.length + 1)) + insert + text.slice(at % (text.length + 1)), json),
      )
      fc.assert(
        fc.property(fc.oneof(mutated, fc.string({unit: 'binary', maxLength: 60})), (text) => {
          const result = read(text)
          if (!result.ok) return
          const parsed: unknown = JSON.parse(text)
          assert.ok(typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
          assert.deepEqual(result.value, parsed)
        }),
        {numRuns: 3000},
      )
    })

    it('accepts every JSON object without duplicate keys', () => {
      fc.assert(
        fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.constantFrom(0, 2), (object, indent) => {
          const text = JSON.stringify(object, null, indent)
          const result = read(text)
          assert.ok(result.ok, result.ok ? '' : result.problem.message)
          assert.deepEqual(result.value, JSON.parse(text))
        }),
        {numRuns: 1000},
      )
    })
  })
})

describe('firstInvalidUtf8', () => {
  it('agrees with a fatal TextDecoder on arbitrary bytes', () => {
    const decoder = new TextDecoder('utf-8', {fatal: true})
    const decodes = (input: Uint8Array): boolean => {
      try {
        decoder.decode(input)
        return true
      } catch {
        return false
      }
    }
    const weighted = fc.uint8Array({maxLength: 40}).chain((raw) =>
      fc.constantFrom(raw, Uint8Array.from([...encoder.encode('ok é 😀 €'), ...raw]), Uint8Array.from(raw.map((byte) => byte | 0x80))),
    )
    fc.assert(
      fc.property(weighted, (input) => {
        const offset = firstInvalidUtf8(input)
        assert.equal(offset === -1, decodes(input))
        if (offset !== -1) assert.ok(decodes(input.subarray(0, offset)), 'the prefix before the offset decodes')
      }),
      {numRuns: 5000},
    )
  })
})

function lineColumn(diagnostic: {line: number | null; column: number | null}): [number | null, number | null] {
  return [diagnostic.line, diagnostic.column]
}

describe('a file of megabytes of whitespace', () => {
  it('keeps exact positions when long runs of whitespace are read in one piece', () => {
    const text = `{"a": 1${' '.repeat(5000)}\n${' '.repeat(3000)},}`
    const problem = refused(text)
    assert.deepEqual([problem.line, problem.column], [2, 3002])
    assert.match(problem.message, /trailing comma/)
    // The same mistake after a little whitespace reads the same.
    const short = refused(`{"a": 1 \n  ,}`)
    assert.equal(short.message.replace(/column \d+/, ''), problem.message.replace(/column \d+/, ''))
  })
  it('still refuses a real comment after a long run of whitespace', () => {
    const problem = refused(`{"a": 1${' '.repeat(1000)}/* note */}`)
    assert.match(problem.message, /comments are not allowed in JSON at line 1, column 1008/)
  })
  it('leaves whitespace inside strings alone', () => {
    const result = readJsonDocument(encoder.encode(`{"a": "${' '.repeat(2000)}", "b": 1, "b": 2}`), {maxBytes: maxManifestBytes})
    assert.equal(result.ok, false)
    if (!result.ok) assert.match(result.problem.message, /"b" appears twice/)
  })
})
