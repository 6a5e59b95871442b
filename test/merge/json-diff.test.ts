import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {firstJsonDifference} from '../../src/merge/json-diff.js'

describe('firstJsonDifference', () => {
  it('finds no difference between objects whose members come in another order', () => {
    assert.equal(firstJsonDifference({a: 1, b: {c: [1, 2], d: null}}, {b: {d: null, c: [1, 2]}, a: 1}), null)
  })

  it('points at the first differing array element: order inside arrays matters', () => {
    assert.equal(firstJsonDifference({list: ['x', 'y']}, {list: ['y', 'x']}), '/list/0')
  })

  it('points at the first extra element of a longer array', () => {
    assert.equal(firstJsonDifference({list: [1]}, {list: [1, 2]}), '/list/1')
  })

  it('points at a member present on one side only, whichever side', () => {
    assert.equal(firstJsonDifference({a: 1}, {a: 1, z: 2}), '/z')
    assert.equal(firstJsonDifference({a: 1, z: 2}, {a: 1}), '/z')
  })

  it('reports the same pointer whichever value comes first', () => {
    const left = {b: 1, a: {x: 1}}
    const right = {a: {x: 2}, b: 2}
    assert.equal(firstJsonDifference(left, right), '/a/x')
    assert.equal(firstJsonDifference(right, left), '/a/x')
  })

  it('tells an object from an array, null and a primitive', () => {
    assert.equal(firstJsonDifference({v: {}}, {v: []}), '/v')
    assert.equal(firstJsonDifference({v: {}}, {v: null}), '/v')
    assert.equal(firstJsonDifference({v: '1'}, {v: 1}), '/v')
  })

  it('escapes member names in the pointer (RFC 6901)', () => {
    assert.equal(firstJsonDifference({'a/b': {'c~d': 1}}, {'a/b': {'c~d': 2}}), '/a~1b/c~0d')
  })
})
