import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {colorEnabled} from '../../src/report/color.js'

describe('colorEnabled', () => {
  it('is on for a terminal with no NO_COLOR and no --no-color', () => {
    assert.equal(colorEnabled({isTTY: true, env: {}, noColor: false}), true)
  })

  it('is off when the output is not a terminal', () => {
    assert.equal(colorEnabled({isTTY: false, env: {}, noColor: false}), false)
    assert.equal(colorEnabled({isTTY: undefined, env: {}, noColor: false}), false)
  })

  it('is off with NO_COLOR set to anything non-empty', () => {
    assert.equal(colorEnabled({isTTY: true, env: {NO_COLOR: '1'}, noColor: false}), false)
    assert.equal(colorEnabled({isTTY: true, env: {NO_COLOR: 'false'}, noColor: false}), false)
  })

  it('ignores an empty NO_COLOR (no-color.org)', () => {
    assert.equal(colorEnabled({isTTY: true, env: {NO_COLOR: ''}, noColor: false}), true)
  })

  it('is off with --no-color', () => {
    assert.equal(colorEnabled({isTTY: true, env: {}, noColor: true}), false)
  })
})
