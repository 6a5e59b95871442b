import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {ModelError, formatVersionRange, isVersionRange, parseVersionRange, satisfies} from '../../src/model/index.js'
import type {VersionRange} from '../../src/model/index.js'

describe('parseVersionRange: accepted forms', () => {
  const rows: Array<[string, string, VersionRange]> = [
    ['any', '*', {kind: 'any'}],
    ['any with surrounding whitespace', '  *  ', {kind: 'any'}],
    ['a bare version (means =)', '1.0.0', {kind: 'comparators', comparators: [{operator: '=', version: '1.0.0'}]}],
    ['=', '=1.0.0', {kind: 'comparators', comparators: [{operator: '=', version: '1.0.0'}]}],
    ['>', '>1.0.0', {kind: 'comparators', comparators: [{operator: '>', version: '1.0.0'}]}],
    ['>=', '>=1.0.0', {kind: 'comparators', comparators: [{operator: '>=', version: '1.0.0'}]}],
    ['<', '<2.0.0', {kind: 'comparators', comparators: [{operator: '<', version: '2.0.0'}]}],
    ['<=', '<=2.0.0', {kind: 'comparators', comparators: [{operator: '<=', version: '2.0.0'}]}],
    [
      'two comparators',
      '>=1.0.0,<2.0.0',
      {kind: 'comparators', comparators: [{operator: '>=', version: '1.0.0'}, {operator: '<', version: '2.0.0'}]},
    ],
    [
      'whitespace around comparators and commas',
      '  >=1.0.0 ,\t<2.0.0  ',
      {kind: 'comparators', comparators: [{operator: '>=', version: '1.0.0'}, {operator: '<', version: '2.0.0'}]},
    ],
    [
      'whitespace between operator and version',
      '>= 1.0.0, <  2.0.0',
      {kind: 'comparators', comparators: [{operator: '>=', version: '1.0.0'}, {operator: '<', version: '2.0.0'}]},
    ],
    [
      'three comparators',
      '>1.0.0, <=3.0.0, 2.0.0',
      {
        kind: 'comparators',
        comparators: [
          {operator: '>', version: '1.0.0'},
          {operator: '<=', version: '3.0.0'},
          {operator: '=', version: '2.0.0'},
        ],
      },
    ],
    [
      'pre-release and build versions',
      '>=1.0.0-beta.1, <2.0.0+build.5',
      {kind: 'comparators', comparators: [{operator: '>=', version: '1.0.0-beta.1'}, {operator: '<', version: '2.0.0+build.5'}]},
    ],
  ]
  for (const [name, text, expected] of rows) {
    it(`accepts ${name}: ${JSON.stringify(text)}`, () => {
      assert.deepEqual(parseVersionRange(text), expected)
      assert.equal(isVersionRange(text), true)
    })
  }
})

describe('parseVersionRange: rejected forms', () => {
  const rows: Array<[string, string]> = [
    ['the empty string', ''],
    ['whitespace only', '   '],
    ['a caret', '^1.0.0'],
    ['a tilde', '~1.0.0'],
    ['a tilde with >', '~>1.0.0'],
    ['||', '1.0.0 || 2.0.0'],
    ['|| between comparators', '>=1.0.0 || <0.5.0'],
    ['an x wildcard', '1.x'],
    ['an x wildcard in a full version', '1.x.0'],
    ['an X wildcard', '1.X.0'],
    ['a * wildcard inside a version', '1.0.*'],
    ['>= with a * wildcard', '>=1.*'],
    ['* combined with a comparator', '*, >=1.0.0'],
    ['= *', '=*'],
    ['a hyphen range', '1.0.0 - 2.0.0'],
    ['space-separated comparators (npm AND)', '>=1.0.0 <2.0.0'],
    ['a trailing comma', '>=1.0.0,'],
    ['a leading comma', ',>=1.0.0'],
    ['an empty comparator in the middle', '>=1.0.0,,<2.0.0'],
    ['a blank comparator between commas', '>=1.0.0, ,<2.0.0'],
    ['a partial version', '1.2'],
    ['a partial version after an operator', '>=1.2'],
    ['a major only', '>=1'],
    ['a v prefix', '>=v1.0.0'],
    ['an operator without a version', '>='],
    ['==', '==1.0.0'],
    ['=>', '=>1.0.0'],
    ['!=', '!=1.0.0'],
    ['a space inside the operator', '> =1.0.0'],
    ['a leading zero', '>=01.0.0'],
    ['a semicolon separator', '>=1.0.0;<2.0.0'],
    ['the word latest', 'latest'],
  ]
  for (const [name, text] of rows) {
    it(`rejects ${name}: ${JSON.stringify(text)}`, () => {
      assert.equal(parseVersionRange(text), null)
      assert.equal(isVersionRange(text), false)
    })
  }

  it('isVersionRange is false for a non-string', () => {
    assert.equal(isVersionRange(1), false)
    assert.equal(isVersionRange(null), false)
    assert.equal(isVersionRange({kind: 'any'}), false)
  })
})

describe('satisfies', () => {
  const rows: Array<[string, string, string, boolean]> = [
    // Pure SemVer 2.0 precedence, no pre-release exclusion.
    ['>= excludes a pre-release of its own bound', '1.0.0-beta.1', '>=1.0.0', false],
    ['< includes a pre-release of its bound', '2.0.0-beta.1', '<2.0.0', true],
    ['>= includes a pre-release of a higher core', '1.1.0-beta.1', '>=1.0.0', true],
    ['a pre-release inside a two-sided range', '1.5.0-rc.1', '>=1.0.0, <2.0.0', true],
    ['a pre-release bound admits a later pre-release', '1.0.0-beta.2', '>=1.0.0-beta.1', true],
    ['a pre-release bound admits its release', '1.0.0', '>=1.0.0-beta.1', true],
    ['a pre-release bound rejects an earlier pre-release', '1.0.0-alpha', '>=1.0.0-beta.1', false],
    ['* matches a release', '3.4.5', '*', true],
    ['* matches a pre-release', '0.0.1-alpha', '*', true],
    ['= ignores build metadata on the version', '1.0.0+build.5', '=1.0.0', true],
    ['= ignores build metadata on the bound', '1.0.0', '=1.0.0+build.5', true],
    ['a bare version means =', '1.0.0', '1.0.0', true],
    ['a bare version rejects another version', '1.0.1', '1.0.0', false],
    ['= rejects its own pre-release', '1.0.0-rc.1', '=1.0.0', false],
    ['> excludes the bound', '1.0.0', '>1.0.0', false],
    ['> excludes the bound with build metadata', '1.0.0+b', '>1.0.0', false],
    ['> includes the next patch', '1.0.1', '>1.0.0', true],
    ['> includes a pre-release of a higher patch', '1.0.1-0', '>1.0.0', true],
    ['>= includes the bound', '1.0.0', '>=1.0.0', true],
    ['< excludes the bound', '2.0.0', '<2.0.0', false],
    ['< includes below', '1.9.9', '<2.0.0', true],
    ['<= includes the bound', '2.0.0', '<=2.0.0', true],
    ['<= includes the bound with build metadata', '2.0.0+b', '<=2.0.0', true],
    ['<= excludes above', '2.0.1', '<=2.0.0', false],
    ['all comparators must hold: below', '0.9.0', '>=1.0.0, <2.0.0', false],
    ['all comparators must hold: inside', '1.9.9', '>=1.0.0, <2.0.0', true],
    ['all comparators must hold: above', '2.0.0', '>=1.0.0, <2.0.0', false],
    ['numeric not lexical order', '1.10.0', '>1.9.0', true],
    ['contradictory comparators match nothing', '1.5.0', '>2.0.0, <1.0.0', false],
    ['a version that does not parse', 'v1.0.0', '*', false],
    ['a partial version', '1.0', '>=1.0.0', false],
    ['a range that does not parse', '1.0.0', '^1.0.0', false],
    ['an empty range', '1.0.0', '', false],
  ]
  for (const [name, version, range, expected] of rows) {
    it(`${name}: ${version} ${expected ? 'satisfies' : 'does not satisfy'} ${JSON.stringify(range)}`, () => {
      assert.equal(satisfies(version, range), expected)
    })
  }

  it('takes a parsed range object', () => {
    const range = parseVersionRange('>=1.0.0, <2.0.0')
    assert.notEqual(range, null)
    assert.equal(satisfies('1.5.0', range as VersionRange), true)
    assert.equal(satisfies('2.0.0', range as VersionRange), false)
  })

  const malformed: Array<[string, unknown]> = [
    ['an empty comparator list (never vacuously true)', {kind: 'comparators', comparators: []}],
    ['a comparator with a loose version', {kind: 'comparators', comparators: [{operator: '>=', version: 'v1.0.0'}]}],
    ['a comparator with an unknown operator', {kind: 'comparators', comparators: [{operator: '^', version: '1.0.0'}]}],
    ['an unknown kind', {kind: 'everything'}],
  ]
  for (const [name, range] of malformed) {
    it(`is false for a malformed range object: ${name}`, () => {
      assert.equal(satisfies('1.0.0', range as VersionRange), false)
    })
  }
})

describe('formatVersionRange', () => {
  const rows: Array<[string, string, string]> = [
    ['any', ' * ', '*'],
    ['a bare version gets =', '1.0.0', '=1.0.0'],
    ['two comparators', ' >= 1.0.0 ,<2.0.0 ', '>=1.0.0, <2.0.0'],
    ['every operator', '=1.0.0,>1.0.0,>=1.0.0,<1.0.0,<=1.0.0', '=1.0.0, >1.0.0, >=1.0.0, <1.0.0, <=1.0.0'],
    ['pre-release and build kept', '>=1.0.0-rc.1+b.2', '>=1.0.0-rc.1+b.2'],
  ]
  for (const [name, text, expected] of rows) {
    it(`${name}: ${JSON.stringify(text)} -> ${JSON.stringify(expected)}`, () => {
      const range = parseVersionRange(text) as VersionRange
      const formatted = formatVersionRange(range)
      assert.equal(formatted, expected)
      assert.deepEqual(parseVersionRange(formatted), range, 'the canonical text parses back to the same range')
    })
  }

  it('throws invalid-range for an empty comparator list', () => {
    assert.throws(
      () => formatVersionRange({kind: 'comparators', comparators: []}),
      (error: unknown) => error instanceof ModelError && error.code === 'invalid-range',
    )
  })

  it('throws invalid-range for a comparator whose version is not SemVer', () => {
    assert.throws(
      () => formatVersionRange({kind: 'comparators', comparators: [{operator: '>=', version: '1.0'}]}),
      (error: unknown) => error instanceof ModelError && error.code === 'invalid-range',
    )
  })
})
