import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {COMMANDS} from '../../commands/index.js'
import {signingRouteFlags, uploadFlags} from '../../commands/flags.js'
import {repoRoot} from '../helpers/cli.js'
import {ActionTypecheck, actionNames, commandFile, flagKey} from './input-types.js'

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
      const declared = readFileSync(commandFile(id), 'utf8')
      for (const name of Object.keys(command.flags ?? {})) {
        // A flag of a shared group (declared in commands/flags.ts) is renamed below, where its reader is.
        if (!flagKey(name).test(declared)) continue
        const errors = checker.errorsWith(id, flagKey(name), `$1'renamed-${name}':`)
        if (actionNames(id, name)) assert.ok(errors.length > 0, `${id} --${name}: renamed, and the action still compiles`)
        else assert.deepEqual(errors, [], `${id} --${name}`)
      }
    })
  }
})

describe('every flag of a shared group, renamed where it is declared', () => {
  const groups = [
    {group: 'signingRouteFlags', flags: signingRouteFlags, reader: 'commands/signing-routes.ts'},
    {group: 'uploadFlags', flags: uploadFlags, reader: 'commands/actions/store/verify.ts'},
  ]
  for (const {group, flags, reader} of groups) {
    it(`breaks ${reader}, which reads ${group}, for each of its flags`, () => {
      for (const name of Object.keys(flags)) {
        const errors = checker.errorsInWith(path.join(repoRoot, 'commands', 'flags.ts'), flagKey(name), `$1'renamed-${name}':`, path.join(repoRoot, reader))
        assert.ok(errors.length > 0, `${group} --${name}: renamed, and ${reader} still compiles`)
      }
    })
  }
})
