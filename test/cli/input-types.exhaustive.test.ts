import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import {COMMANDS} from '../../commands/index.js'
import {ActionTypecheck, actionNames, flagKey} from './input-types.js'

/**
 * Every flag of every command, renamed in its command class: the action does not compile whenever it
 * names the flag at all (and a flag it never names is one it does not read).
 */

let checker: ActionTypecheck
before(() => {
  checker = new ActionTypecheck()
})

describe('every flag of every command, renamed', () => {
  for (const [id, command] of Object.entries(COMMANDS)) {
    if (id === 'help' || id === 'schema') continue
    it(`breaks the action of ${id.replaceAll(':', ' ')} wherever it reads the flag`, () => {
      for (const name of Object.keys(command.flags ?? {})) {
        const errors = checker.errorsWith(id, flagKey(name), `$1'renamed-${name}':`)
        if (actionNames(id, name)) assert.ok(errors.length > 0, `${id} --${name}: renamed, and the action still compiles`)
        else assert.deepEqual(errors, [], `${id} --${name}`)
      }
    })
  }
})
