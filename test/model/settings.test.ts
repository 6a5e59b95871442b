import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {clampSetting, defaultHealthPath, effectiveSettings, settingClamps} from '../../src/model/index.js'
import type {EffectiveSettings, Manifest} from '../../src/model/index.js'

type Settings = Pick<Manifest, 'shutdown' | 'health'>

/** Where each clamped setting lives in a manifest and in the effective settings. */
const settings = [
  {
    name: 'shutdown.gracefulTimeoutSeconds',
    min: 1,
    max: 60,
    fallback: 10,
    manifest: (value: unknown): Settings => ({shutdown: {gracefulTimeoutSeconds: value as number}}),
    read: (effective: EffectiveSettings) => effective.shutdown.gracefulTimeoutSeconds,
  },
  {
    name: 'health.intervalSeconds',
    min: 5,
    max: 120,
    fallback: 15,
    manifest: (value: unknown): Settings => ({health: {intervalSeconds: value as number}}),
    read: (effective: EffectiveSettings) => effective.health.intervalSeconds,
  },
  {
    name: 'health.timeoutSeconds',
    min: 1,
    max: 10,
    fallback: 2,
    manifest: (value: unknown): Settings => ({health: {timeoutSeconds: value as number}}),
    read: (effective: EffectiveSettings) => effective.health.timeoutSeconds,
  },
  {
    name: 'health.unhealthyThreshold',
    min: 2,
    max: 10,
    fallback: 3,
    manifest: (value: unknown): Settings => ({health: {unhealthyThreshold: value as number}}),
    read: (effective: EffectiveSettings) => effective.health.unhealthyThreshold,
  },
]

for (const setting of settings) {
  const {name, min, max, fallback} = setting
  describe(`${name} (clamped to [${min}, ${max}], default ${fallback})`, () => {
    const rows: Array<[string, unknown, number]> = [
      ['absent gives the default', undefined, fallback],
      ['inside the range is kept', min + 1, min + 1],
      ['the minimum is kept', min, min],
      ['the maximum is kept', max, max],
      ['one below the minimum is raised', min - 1, min],
      ['zero is raised', 0, min],
      ['a negative number is raised', -30, min],
      ['one above the maximum is lowered', max + 1, max],
      ['a huge number is lowered', 1e12, max],
      ['Number.MAX_VALUE is lowered', Number.MAX_VALUE, max],
      ['a non-integer inside is truncated', min + 0.9, min],
      ['a non-integer just above the maximum truncates to the maximum', max + 0.5, max],
      ['a non-integer just below the minimum truncates toward zero, then is raised', min - 0.5, min],
      ['a negative non-integer truncates toward zero, then is raised', -0.5, min],
      ['a non-integer above the maximum is lowered', max + 7.25, max],
      ['NaN gives the default', Number.NaN, fallback],
      ['Infinity gives the default', Number.POSITIVE_INFINITY, fallback],
      ['-Infinity gives the default', Number.NEGATIVE_INFINITY, fallback],
      ['a numeric string gives the default', String(min + 1), fallback],
      ['null gives the default', null, fallback],
      ['a boolean gives the default', true, fallback],
      ['an object gives the default', {value: min + 1}, fallback],
    ]
    for (const [label, value, expected] of rows) {
      it(`${label}: ${String(value)} -> ${expected}`, () => {
        assert.equal(setting.read(effectiveSettings(setting.manifest(value))), expected)
      })
    }
  })
}

describe('the clamp table', () => {
  it('holds the documented clamps and defaults', () => {
    assert.deepEqual(settingClamps, {
      gracefulTimeoutSeconds: {min: 1, max: 60, default: 10},
      intervalSeconds: {min: 5, max: 120, default: 15},
      timeoutSeconds: {min: 1, max: 10, default: 2},
      unhealthyThreshold: {min: 2, max: 10, default: 3},
    })
  })

  it('clampSetting never returns -0', () => {
    assert.equal(Object.is(clampSetting(-0.5, {min: -5, max: 5, default: 1}), 0), true)
  })
})

describe('effectiveSettings: blocks and the health path', () => {
  const defaults: EffectiveSettings = {
    shutdown: {gracefulTimeoutSeconds: 10},
    health: {path: '/_svc/health', intervalSeconds: 15, timeoutSeconds: 2, unhealthyThreshold: 3},
  }

  const rows: Array<[string, Settings, EffectiveSettings]> = [
    ['no blocks gives every default', {}, defaults],
    ['empty blocks give every default', {shutdown: {}, health: {}}, defaults],
    ['a null block gives the defaults', {shutdown: null, health: null} as unknown as Settings, defaults],
    ['an array block gives the defaults', {shutdown: [5], health: [5]} as unknown as Settings, defaults],
    [
      'a declared path is kept verbatim',
      {health: {path: '/healthz'}},
      {...defaults, health: {...defaults.health, path: '/healthz'}},
    ],
    ['an empty path gives the default', {health: {path: ''}}, defaults],
    ['a non-string path gives the default', {health: {path: 42 as unknown as string}}, defaults],
    [
      'every value at once',
      {shutdown: {gracefulTimeoutSeconds: 0}, health: {path: '/h', intervalSeconds: 500, timeoutSeconds: 3.7, unhealthyThreshold: 1}},
      {shutdown: {gracefulTimeoutSeconds: 1}, health: {path: '/h', intervalSeconds: 120, timeoutSeconds: 3, unhealthyThreshold: 2}},
    ],
  ]
  for (const [name, manifest, expected] of rows) {
    it(name, () => {
      assert.deepEqual(effectiveSettings(manifest), expected)
    })
  }

  it('the default path is /_svc/health', () => {
    assert.equal(defaultHealthPath, '/_svc/health')
  })

  it('ignores an inherited property', () => {
    const health = Object.create({intervalSeconds: 100}) as Settings['health']
    assert.equal(effectiveSettings({health}).health.intervalSeconds, 15)
  })
})
