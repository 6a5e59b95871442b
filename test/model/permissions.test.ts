import assert from 'node:assert/strict'
import {describe, it} from 'node:test'

import {isKnownPermission, knownPermissions} from '../../src/model/index.js'

// The known vocabulary, written out again so that a change to the list is a visible test change.
const specified = [
  'host:variables',
  'host:user-variables',
  'host:config',
  'host:deck',
  'host:scripts',
  'host:widgets',
  'host:notifications',
  'host:action-interactions',
  'host:devices',
  'host:variable-values',
  'host:layouts',
  'host:folder-views',
  'host:widget-types',
  'host:event-bindings',
  'host:screensavers',
  'events:publish',
  'assets:upload',
  'net:outbound',
  'fs:user-files',
  'process:spawn',
  'device:usb',
]

describe('known permissions', () => {
  it('are exactly the known vocabulary, in its order', () => {
    assert.deepEqual([...knownPermissions], specified)
  })

  for (const permission of specified) {
    it(`${permission} is known`, () => {
      assert.equal(isKnownPermission(permission), true)
    })
  }

  const unknown: Array<[string, unknown]> = [
    ['a made-up permission', 'host:everything'],
    ['a different case', 'HOST:CONFIG'],
    ['surrounding whitespace', ' net:outbound '],
    ['a prefix only', 'host:'],
    ['the empty string', ''],
    ['an inherited array property', 'length'],
    ['a number', 1],
    ['null', null],
  ]
  for (const [name, permission] of unknown) {
    it(`${name} (${JSON.stringify(permission)}) is unknown`, () => {
      assert.equal(isKnownPermission(permission), false)
    })
  }
})
