import type {Rule} from './types.js'
import {arrayItems, quote} from './values.js'

/** Each permission is listed once (`invalid-permission`, reported at the repeat). */
export const permissionsAreUnique: Rule = {
  name: 'permissions-are-unique',
  codes: ['invalid-permission'],
  level: 'development',
  claims: [{keywords: ['uniqueItems'], pointer: /^\/permissions$/}],
  check({manifest, rejected, emit}) {
    const seen = new Map<string, number>()
    for (const {value, index, pointer} of arrayItems(manifest, 'permissions')) {
      if (typeof value !== 'string' || rejected.has(pointer)) continue
      const first = seen.get(value)
      if (first === undefined) {
        seen.set(value, index)
        continue
      }
      emit({code: 'invalid-permission', pointer, message: `permissions[${index}] ${quote(value)} repeats permissions[${first}]; list each permission once.`})
    }
  },
}
