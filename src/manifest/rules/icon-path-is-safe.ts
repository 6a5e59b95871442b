import {checkIconPath} from '../../model/index.js'
import type {IconPathProblem} from '../../model/index.js'
import type {Rule} from './types.js'
import {member, quote} from './values.js'

/** Why a package path is refused, as the path rules word it (shared by the icon and files[] rules). */
export const packagePathProblems: Record<IconPathProblem, string> = {
  empty: 'is empty or only whitespace',
  absolute: 'is an absolute path',
  backslash: 'contains a backslash; package paths use forward slashes',
  'parent-segment': 'has a ".." segment, which leaves the package',
}

/** `icon` is a forward-slash relative path without `..` (`invalid-icon`). */
export const iconPathIsSafe: Rule = {
  name: 'icon-path-is-safe',
  codes: ['invalid-icon'],
  level: 'development',
  claims: [{keywords: ['minLength'], pointer: /^\/icon$/}],
  check({manifest, rejected, emit}) {
    const icon = member(manifest, 'icon')
    if (typeof icon !== 'string' || rejected.has('/icon')) return
    const problem = checkIconPath(icon)
    if (problem === null) return
    emit({
      code: 'invalid-icon',
      pointer: '/icon',
      message: `icon ${quote(icon)} ${packagePathProblems[problem]}; give the icon's path inside the package, e.g. assets/icon.png.`,
    })
  },
}
