import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import fc from 'fast-check'
import semver from 'semver'

import {ModelError, compareSemVer, isSemVer, parseSemVer} from '../../src/model/index.js'

// The valid and invalid examples published with the SemVer 2.0 specification's suggested regular expression.
const officialValid = [
  '0.0.4',
  '1.2.3',
  '10.20.30',
  '1.1.2-prerelease+meta',
  '1.1.2+meta',
  '1.1.2+meta-valid',
  '1.0.0-alpha',
  '1.0.0-beta',
  '1.0.0-alpha.beta',
  '1.0.0-alpha.beta.1',
  '1.0.0-alpha.1',
  '1.0.0-alpha0.valid',
  '1.0.0-alpha.0valid',
  '1.0.0-alpha-a.b-c-somethinglong+build.1-aef.1-its-okay',
  '1.0.0-rc.1+build.1',
  '2.0.0-rc.1+build.123',
  '1.2.3-beta',
  '10.2.3-DEV-SNAPSHOT',
  '1.2.3-SNAPSHOT-123',
  '1.0.0',
  '2.0.0',
  '1.1.7',
  '2.0.0+build.1848',
  '2.0.1-alpha.1227',
  '1.0.0-alpha+beta',
  '1.2.3----RC-SNAPSHOT.12.9.1--.12+788',
  '1.2.3----R-S.12.9.1--.12+meta',
  '1.2.3----RC-SNAPSHOT.12.9.1--.12',
  '1.0.0+0.build.1-rc.10000aaa-kk-0.1',
  '99999999999999999999999.999999999999999999.99999999999999999',
  '1.0.0-0A.is.legal',
]

const officialInvalid = [
  '1',
  '1.2',
  '1.2.3-0123',
  '1.2.3-0123.0123',
  '1.1.2+.123',
  '+invalid',
  '-invalid',
  '-invalid+invalid',
  '-invalid.01',
  'alpha',
  'alpha.beta',
  'alpha.beta.1',
  'alpha.1',
  'alpha+beta',
  'alpha_beta',
  'alpha.',
  'alpha..',
  'beta',
  '1.0.0-alpha_beta',
  '-alpha.',
  '1.0.0-alpha..',
  '1.0.0-alpha..1',
  '1.0.0-alpha...1',
  '1.0.0-alpha....1',
  '1.0.0-alpha.....1',
  '1.0.0-alpha......1',
  '1.0.0-alpha.......1',
  '01.1.1',
  '1.01.1',
  '1.1.01',
  '1.2.3.DEV',
  '1.2-SNAPSHOT',
  '1.2.31.2.3----RC-SNAPSHOT.12.09.1--..12+788',
  '1.2-RC-SNAPSHOT',
  '-1.0.3-gamma+b7718',
  '+justmeta',
  '9.8.7+meta+meta',
  '9.8.7-whatever+meta+meta',
  '99999999999999999999999.999999999999999999.99999999999999999----RC-SNAPSHOT.12.09.1--------------------------------..12',
]

describe('isSemVer: the SemVer 2.0 specification examples', () => {
  for (const version of officialValid) {
    it(`accepts ${version}`, () => {
      assert.equal(isSemVer(version), true)
    })
  }
  for (const version of officialInvalid) {
    it(`rejects ${version}`, () => {
      assert.equal(isSemVer(version), false)
    })
  }
})

describe('isSemVer: loose forms and edge cases', () => {
  const valid: Array<[string, string]> = [
    ['zero everywhere', '0.0.0'],
    ['a zero pre-release identifier', '1.0.0-0'],
    ['a numeric pre-release identifier', '1.0.0-10'],
    ['a pre-release identifier with a leading zero and a letter', '1.0.0-01a'],
    ['a pre-release identifier of hyphens only', '1.0.0--'],
    ['build metadata with a leading zero', '1.0.0+001'],
    ['build metadata after a pre-release', '1.0.0-rc.1+sha.5114f85'],
    ['a huge major, minor and patch', '123456789012345678901234567890.0.0'],
    ['a huge numeric pre-release identifier', '1.0.0-123456789012345678901234567890'],
  ]
  for (const [name, version] of valid) {
    it(`accepts ${name} (${version})`, () => {
      assert.equal(isSemVer(version), true)
    })
  }

  const invalid: Array<[string, unknown]> = [
    ['a v prefix', 'v1.0.0'],
    ['a V prefix', 'V1.0.0'],
    ['an = prefix', '=1.0.0'],
    ['a partial version', '1.0'],
    ['a major only', '1'],
    ['four parts', '1.0.0.0'],
    ['an empty pre-release', '1.0.0-'],
    ['an empty build', '1.0.0+'],
    ['an empty pre-release before a build', '1.0.0-+build'],
    ['an empty pre-release identifier', '1.0.0-a..b'],
    ['a trailing dot in the build', '1.0.0+build.'],
    ['a leading zero in major', '01.0.0'],
    ['a leading zero in minor', '1.00.0'],
    ['a leading zero in patch', '1.0.00'],
    ['a leading zero in a numeric pre-release identifier', '1.0.0-01'],
    ['a leading zero in a later numeric pre-release identifier', '1.0.0-rc.01'],
    ['a negative number', '1.-1.0'],
    ['an x wildcard', '1.x.0'],
    ['a * wildcard', '1.0.*'],
    ['a leading space', ' 1.0.0'],
    ['a trailing space', '1.0.0 '],
    ['a trailing newline', '1.0.0\n'],
    ['an underscore in the pre-release', '1.0.0-a_b'],
    ['a non-ASCII digit', '1.0.٣'],
    ['a non-ASCII letter in the pre-release', '1.0.0-bêta'],
    ['the empty string', ''],
    ['a number', 1],
    ['null', null],
  ]
  for (const [name, version] of invalid) {
    it(`rejects ${name} (${JSON.stringify(version)})`, () => {
      assert.equal(isSemVer(version), false)
    })
  }
})

describe('parseSemVer', () => {
  it('splits core, pre-release and build, keeping numbers as text', () => {
    assert.deepEqual(parseSemVer('1.22.333-rc.1-x+build.007'), {
      major: '1',
      minor: '22',
      patch: '333',
      prerelease: ['rc', '1-x'],
      build: ['build', '007'],
    })
  })

  it('gives empty lists when there is no pre-release or build', () => {
    assert.deepEqual(parseSemVer('0.0.0'), {major: '0', minor: '0', patch: '0', prerelease: [], build: []})
  })

  it('returns null for a loose form', () => {
    assert.equal(parseSemVer('v1.0.0'), null)
  })
})

describe('compareSemVer: the SemVer 2.0 precedence chain', () => {
  const chain = [
    '1.0.0-alpha',
    '1.0.0-alpha.1',
    '1.0.0-alpha.beta',
    '1.0.0-beta',
    '1.0.0-beta.2',
    '1.0.0-beta.11',
    '1.0.0-rc.1',
    '1.0.0',
  ]
  for (let i = 0; i + 1 < chain.length; i++) {
    const lower = chain[i] as string
    const higher = chain[i + 1] as string
    it(`${lower} < ${higher}`, () => {
      assert.equal(compareSemVer(lower, higher), -1)
      assert.equal(compareSemVer(higher, lower), 1)
    })
  }

  it('orders every pair of the chain by position', () => {
    for (const [i, a] of chain.entries()) {
      for (const [j, b] of chain.entries()) {
        assert.equal(compareSemVer(a, b), Math.sign(i - j), `${a} against ${b}`)
      }
    }
  })
})

describe('compareSemVer: other precedence rules', () => {
  const rows: Array<[string, string, string, -1 | 0 | 1]> = [
    ['major before minor', '2.0.0', '1.9.9', 1],
    ['minor before patch', '1.2.0', '1.1.9', 1],
    ['patch numerically, not lexically', '1.0.10', '1.0.9', 1],
    ['minor numerically, not lexically', '1.10.0', '1.9.0', 1],
    ['equal versions', '1.2.3', '1.2.3', 0],
    ['build metadata is ignored', '1.0.0+build.1', '1.0.0+build.2', 0],
    ['build metadata against none', '1.0.0+build.5', '1.0.0', 0],
    ['build metadata after a pre-release is ignored', '1.0.0-rc.1+a', '1.0.0-rc.1+b', 0],
    ['a pre-release ranks below its release', '1.0.0-rc.1', '1.0.0', -1],
    ['a pre-release of a higher core ranks above a lower release', '1.1.0-alpha', '1.0.0', 1],
    ['numeric identifiers rank below alphanumeric ones', '1.0.0-1', '1.0.0-a', -1],
    ['numeric identifiers compare numerically', '1.0.0-2', '1.0.0-10', -1],
    ['alphanumeric identifiers compare in ASCII order', '1.0.0-Z', '1.0.0-a', -1],
    ['a hyphen sorts below digits and letters in ASCII', '1.0.0--', '1.0.0-0a', -1],
    ['a longer identifier list ranks higher', '1.0.0-a.b', '1.0.0-a', 1],
    ['huge cores compare numerically', '99999999999999999999999.0.0', '99999999999999999999998.0.0', 1],
    ['a huge core beats a short one', '100000000000000000000.0.0', '99.0.0', 1],
    ['huge numeric identifiers compare numerically', '1.0.0-99999999999999999999', '1.0.0-100000000000000000000', -1],
  ]
  for (const [name, a, b, expected] of rows) {
    it(`${name}: ${a} against ${b} is ${expected}`, () => {
      assert.equal(compareSemVer(a, b), expected)
      assert.equal(compareSemVer(b, a), -expected || 0)
    })
  }
})

describe('compareSemVer: invalid input', () => {
  const rows: Array<[string, string, string, 'a' | 'b']> = [
    ['a v prefix on the left', 'v1.0.0', '1.0.0', 'a'],
    ['a partial version on the right', '1.0.0', '1.0', 'b'],
    ['an empty string', '', '1.0.0', 'a'],
  ]
  for (const [name, a, b, argument] of rows) {
    it(`throws invalid-version for ${name}`, () => {
      assert.throws(
        () => compareSemVer(a, b),
        (error: unknown) =>
          error instanceof ModelError && error.code === 'invalid-version' && error.details['argument'] === argument,
      )
    })
  }
})

describe('compareSemVer agrees with the semver package on ordinary versions', () => {
  const numeric = fc.integer({min: 0, max: 20}).map(String)
  const alphanumeric = fc.constantFrom('alpha', 'beta', 'rc', 'a-b', 'A', 'x1', '0a')
  const version = fc
    .record({
      core: fc.tuple(numeric, numeric, numeric),
      prerelease: fc.array(fc.oneof(numeric, alphanumeric), {maxLength: 3}),
      build: fc.option(fc.constantFrom('build.1', '001', 'sha-5114f85'), {nil: undefined}),
    })
    .map(({core, prerelease, build}) =>
      `${core.join('.')}${prerelease.length > 0 ? `-${prerelease.join('.')}` : ''}${build === undefined ? '' : `+${build}`}`,
    )

  it('gives the same order for every generated pair', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        assert.equal(isSemVer(a), true, a)
        assert.equal(compareSemVer(a, b), semver.compare(a, b), `${a} against ${b}`)
      }),
    )
  })
})
