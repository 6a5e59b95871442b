import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {ArchiveError} from '../../src/archive/errors.js'
import {SizeTally, checkCompressionRatio, defaultArchiveLimits, resolveLimits} from '../../src/archive/limits.js'

const MiB = 1024 * 1024

describe('defaultArchiveLimits', () => {
  it('holds the documented default limits', () => {
    assert.deepEqual(defaultArchiveLimits, {
      maxEntries: 20_000,
      maxArchiveBytes: 512 * MiB,
      maxEntryBytes: 512 * MiB,
      maxTotalBytes: 1024 * MiB,
      maxCompressionRatio: 100,
      maxManifestBytes: 8 * MiB,
    })
  })
  it('cannot be changed by a caller', () => {
    assert.ok(Object.isFrozen(defaultArchiveLimits))
  })
})

describe('resolveLimits', () => {
  it('returns the defaults without overrides', () => {
    assert.deepEqual(resolveLimits(), defaultArchiveLimits)
  })
  it('applies the overrides given and keeps the rest', () => {
    assert.deepEqual(resolveLimits({maxEntries: 10, maxCompressionRatio: undefined}), {...defaultArchiveLimits, maxEntries: 10})
  })
  it('refuses a limit that is not a positive number', () => {
    assert.throws(() => resolveLimits({maxEntries: 0}), RangeError)
    assert.throws(() => resolveLimits({maxTotalBytes: Number.NaN}), RangeError)
  })
})

describe('SizeTally', () => {
  it('refuses a manifest over its own limit before the entry limit', () => {
    const tally = new SizeTally(resolveLimits())
    assert.throws(() => tally.add('manifest.json', 9 * MiB), (error: ArchiveError) => error.details.reason === 'manifest-too-large')
  })
  it('refuses the entry that takes the total over the limit, naming it', () => {
    const tally = new SizeTally(resolveLimits({maxTotalBytes: 100}))
    tally.add('a', 60)
    assert.throws(() => tally.add('b', 41), (error: ArchiveError) => error.code === 'limit-exceeded' && error.details.reason === 'total-too-large' && error.details.entry === 'b')
  })
})

describe('checkCompressionRatio', () => {
  it('accepts exactly the limit and refuses above it', () => {
    const limits = resolveLimits()
    assert.doesNotThrow(() => checkCompressionRatio(limits, 100_000, 1000))
    assert.throws(() => checkCompressionRatio(limits, 100_001, 1000), (error: ArchiveError) => error.details.reason === 'compression-ratio')
  })
})
