import type {Rule} from './types.js'
import {member, normalizePackagePath, quote} from './values.js'

/** The declared icon is in the package (`icon-declared-not-present`). */
export const iconIsPacked: Rule = {
  name: 'icon-is-packed',
  codes: ['icon-declared-not-present'],
  level: 'package',
  check({manifest, content, rejected, emit}) {
    const icon = member(manifest, 'icon')
    if (content === undefined || typeof icon !== 'string' || rejected.has('/icon') || content.files.has(normalizePackagePath(icon))) return
    emit({
      code: 'icon-declared-not-present',
      requiredBy: 'package',
      pointer: '/icon',
      message: `icon ${quote(icon)} is not in the package; add the file or fix the path.`,
    })
  },
}
