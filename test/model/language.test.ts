import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {isLanguageTag} from '../../src/model/index.js'

describe('language tags', () => {
  const valid: Array<[string, string]> = [
    ['a language', 'en'],
    ['a three-letter language', 'fil'],
    ['language and region', 'de-DE'],
    ['language, script and region', 'zh-Hans-CN'],
    ['a numeric region', 'es-419'],
    ['language and script', 'sr-Latn'],
    ['lowercase region (case is not checked)', 'de-de'],
    ['an unknown but well-shaped tag', 'qq-Zzzz-QQ'],
  ]
  for (const [name, tag] of valid) {
    it(`accepts ${name}: ${tag}`, () => {
      assert.equal(isLanguageTag(tag), true)
    })
  }

  const invalid: Array<[string, unknown]> = [
    ['a single letter', 'e'],
    ['a word', 'english'],
    ['an underscore', 'en_US'],
    ['a trailing hyphen', 'en-'],
    ['a private-use extension', 'en-US-x-private'],
    ['the empty string', ''],
    ['blank', '   '],
    ['surrounding whitespace', ' en '],
    ['a trailing newline', 'en\n'],
    ['a four-letter language', 'engl'],
    ['a two-digit region', 'en-12'],
    ['a three-letter region', 'en-USA'],
    ['region before script', 'zh-CN-Hans'],
    ['a variant', 'de-DE-1996'],
    ['a digit in the language', 'e1'],
    ['non-ASCII letters', 'ñe'],
    ['a number', 42],
    ['null', null],
  ]
  for (const [name, tag] of invalid) {
    it(`rejects ${name}: ${JSON.stringify(tag)}`, () => {
      assert.equal(isLanguageTag(tag), false)
    })
  }
})
