import {isKnownPermission} from '../../model/index.js'
import type {Rule} from './types.js'
import {arrayItems, quote} from './values.js'

/** Each permission is in the known vocabulary; an unknown one still installs (`unknown-permission`, a warning). */
export const permissionsAreKnown: Rule = {
  name: 'permissions-are-known',
  codes: ['unknown-permission'],
  level: 'development',
  check({manifest, rejected, emit}) {
    for (const {value, index, pointer} of arrayItems(manifest, 'permissions')) {
      if (typeof value !== 'string' || rejected.has(pointer) || isKnownPermission(value)) continue
      emit({
        code: 'unknown-permission',
        severity: 'warning',
        pointer,
        message: `permissions[${index}] ${quote(value)} is not a known permission; check its spelling (known ones look like host:variables or net:outbound).`,
      })
    }
  },
}
