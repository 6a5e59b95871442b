import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import {COMMANDS} from '../../commands/index.js'
import {ActionTypecheck, flagKey} from './input-types.js'

/**
 * Each action takes its command line typed from its command class's declarations (`CommandInput<typeof
 * X>`): a flag renamed or given another kind of value in the class does not compile until the action
 * follows. A fixed sample here; input-types.exhaustive.test.ts renames every flag of every command.
 */

let checker: ActionTypecheck
before(() => {
  checker = new ActionTypecheck()
})

describe('the input type of each action', () => {
  it('compiles as the sources are', () => {
    for (const id of Object.keys(COMMANDS).filter((candidate) => candidate !== 'help' && candidate !== 'schema')) assert.deepEqual(checker.errors(id), [], id)
  })

  for (const {what, id, find, replace, error} of [
    {what: 'a boolean flag renamed (install --force)', id: 'install', find: flagKey('force'), replace: '$1overwrite:', error: /Property 'force' does not exist/},
    {what: 'a boolean flag made a string (install --force)', id: 'install', find: /force: Flags\.boolean\(\{char: 'f', (.*), default: false\}\)/, replace: "force: Flags.string({char: 'f', $1})", error: /'string \| undefined' is not assignable to type 'boolean/},
    {what: 'a word-list flag renamed (validate --level)', id: 'validate', find: flagKey('level'), replace: '$1requirement:', error: /Property 'level' does not exist/},
    {what: 'a count flag made a string (install --retain)', id: 'install', find: /retain: countFlag\(0\)\(\{(.*), default: 1\}\)/, replace: "retain: Flags.string({$1, default: '1'})", error: /'string' is not assignable to type 'number'/},
    {what: 'an argument renamed (install ARTIFACT)', id: 'install', find: /^(\s+)artifact: stringArgument/m, replace: '$1file: stringArgument', error: /Property 'artifact' does not exist/},
  ]) {
    it(`does not compile with ${what}`, () => {
      const errors = checker.errorsWith(id, find, replace)
      assert.ok(errors.some((message) => error.test(message)), errors.join('\n') || 'no error')
    })
  }
})
