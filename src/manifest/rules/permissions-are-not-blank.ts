import type {Rule} from './types.js'
import {arrayItems, isBlank, quote} from './values.js'

/** No permission is empty or only whitespace (`invalid-permission`): it names nothing a host could grant. */
export const permissionsAreNotBlank: Rule = {
  name: 'permissions-are-not-blank',
  codes: ['invalid-permission'],
  level: 'development',
  check({manifest, rejected, emit}) {
    for (const {value, index, pointer} of arrayItems(manifest, 'permissions')) {
      if (typeof value !== 'string' || rejected.has(pointer) || !isBlank(value)) continue
      emit({code: 'invalid-permission', pointer, message: `permissions[${index}] ${quote(value)} is blank; remove it, or name the permission.`})
    }
  },
}
