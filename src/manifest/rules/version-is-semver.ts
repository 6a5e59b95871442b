import {isSemVer, maxVersionLength} from '../../model/index.js'
import type {Rule} from './types.js'
import {member, quote} from './values.js'

/** `version` is a SemVer 2.0 version exactly, of at most 128 characters (`invalid-version`). */
export const versionIsSemVer: Rule = {
  name: 'version-is-semver',
  codes: ['invalid-version'],
  level: 'development',
  claims: [{keywords: ['pattern', 'minLength', 'maxLength'], pointer: /^\/version$/}],
  check({manifest, rejected, emit}) {
    const version = member(manifest, 'version')
    if (typeof version !== 'string' || rejected.has('/version')) return
    if (version.length > maxVersionLength) {
      emit({
        code: 'invalid-version',
        pointer: '/version',
        message: `version is ${version.length} characters long; a version has at most ${maxVersionLength} (the host's limit, and a version names its folder in a data root).`,
      })
      return
    }
    if (isSemVer(version)) return
    emit({
      code: 'invalid-version',
      pointer: '/version',
      message: `version ${quote(version)} is not SemVer 2.0 (expected MAJOR.MINOR.PATCH with optional -pre-release and +build parts, no leading v, e.g. 1.0.0).`,
    })
  },
}
