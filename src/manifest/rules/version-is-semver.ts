import {isSemVer} from '../../model/index.js'
import type {Rule} from './types.js'
import {member, quote} from './values.js'

/** `version` is a SemVer 2.0 version exactly (`invalid-version`). */
export const versionIsSemVer: Rule = {
  name: 'version-is-semver',
  codes: ['invalid-version'],
  level: 'development',
  claims: [{keywords: ['pattern', 'minLength'], pointer: /^\/version$/}],
  check({manifest, rejected, emit}) {
    const version = member(manifest, 'version')
    if (typeof version !== 'string' || rejected.has('/version') || isSemVer(version)) return
    emit({
      code: 'invalid-version',
      pointer: '/version',
      message: `version ${quote(version)} is not SemVer 2.0 (expected MAJOR.MINOR.PATCH with optional -pre-release and +build parts, no leading v, e.g. 1.0.0).`,
    })
  },
}
