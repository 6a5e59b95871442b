import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {isPluginId, maxPluginIdLength, pluginIdPattern} from '../../src/model/index.js'

/** A valid id of exactly `length` characters: `com.` followed by letters. */
function idOfLength(length: number): string {
  return `com.${'a'.repeat(length - 4)}`
}

describe('plugin ids', () => {
  const valid: Array<[string, string]> = [
    ['two segments', 'com.example'],
    ['three segments', 'com.example.clock'],
    ['digits after the first letter', 'io.svc2.plugin9'],
    ['a hyphen between letters', 'com.my-company.clock'],
    ['a hyphen followed by a digit', 'com.a-1.b'],
    ['several hyphens', 'com.a-b-c.d-e-f'],
    ['single-letter segments', 'a.b'],
    ['exactly 128 characters', idOfLength(128)],
  ]
  for (const [name, id] of valid) {
    it(`accepts ${name} (${id.length > 40 ? `${id.length} chars` : id})`, () => {
      assert.equal(isPluginId(id), true)
    })
  }

  const invalid: Array<[string, unknown]> = [
    ['129 characters', idOfLength(129)],
    ['an underscore', 'com.my_plugin'],
    ['an underscore prefix (a reserved directory name)', '_staging.x'],
    ['an uppercase letter', 'com.Example'],
    ['a single segment', 'example'],
    ['a leading digit', '1com.example'],
    ['a segment starting with a digit', 'com.1example'],
    ['a segment starting with a hyphen', 'com.-example'],
    ['a double hyphen', 'com.my--plugin'],
    ['a trailing hyphen', 'com.example-'],
    ['a hyphen before a dot', 'com-.example'],
    ['a leading dot', '.com.example'],
    ['a trailing dot', 'com.example.'],
    ['an empty segment', 'com..example'],
    ['the empty string', ''],
    ['surrounding whitespace', ' com.example '],
    ['a trailing newline', 'com.example\n'],
    ['a space inside', 'com.my plugin'],
    ['a non-ASCII letter', 'com.exämple'],
    ['a slash', 'com.example/x'],
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
  ]
  for (const [name, id] of invalid) {
    it(`rejects ${name}`, () => {
      assert.equal(isPluginId(id), false)
    })
  }

  it('caps the length at 128', () => {
    assert.equal(maxPluginIdLength, 128)
  })

  it('leaves the length to isPluginId: the pattern alone accepts 129 characters', () => {
    assert.equal(pluginIdPattern.test(idOfLength(129)), true)
  })
})
