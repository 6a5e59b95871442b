import type {Rule} from './types.js'
import {isBlank, member, quote} from './values.js'

/** Longest display name (the manifest format's name length limit), in code points, as the schema counts it. */
export const maxNameLength = 128

const controlCharacter = /\p{Cc}/u

/** `name` is 1-128 characters, not blank, without control characters (`invalid-name`). */
export const nameIsDisplayable: Rule = {
  name: 'name-is-displayable',
  codes: ['invalid-name'],
  level: 'development',
  claims: [{keywords: ['minLength', 'maxLength'], pointer: /^\/name$/}],
  check({manifest, rejected, emit}) {
    const name = member(manifest, 'name')
    if (typeof name !== 'string' || rejected.has('/name')) return
    let problem: string | null = null
    if (isBlank(name)) problem = `name ${quote(name)} is blank; give the plugin a display name`
    else if ([...name].length > maxNameLength) problem = `name is ${[...name].length} characters long; a name has at most ${maxNameLength}`
    else if (controlCharacter.test(name)) {
      const code = (name.match(controlCharacter)?.[0] ?? '').charCodeAt(0)
      problem = `name ${quote(name)} contains the control character U+${code.toString(16).toUpperCase().padStart(4, '0')}; remove it`
    }
    if (problem !== null) emit({code: 'invalid-name', pointer: '/name', message: `${problem}.`})
  },
}
