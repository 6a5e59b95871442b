import type {Rule} from './types.js'
import {member, quote} from './values.js'

/** What an installed version directory's path says the manifest must declare. */
export interface ExpectedIdentity {
  id?: string
  version?: string
}

/**
 * An installed manifest agrees with its directory `<id>/versions/<version>/` (`id-mismatch`,
 * `version-mismatch`: a host rejects such a manifest). Built per call: the expectation is the caller's.
 */
export function identityMatchesDirectory(expected: ExpectedIdentity): Rule {
  return {
    name: 'identity-matches-directory',
    codes: ['id-mismatch', 'version-mismatch'],
    level: 'development',
    check({manifest, rejected, emit}) {
      const id = member(manifest, 'id')
      if (expected.id !== undefined && typeof id === 'string' && !rejected.has('/id') && id !== expected.id) {
        emit({code: 'id-mismatch', pointer: '/id', message: `id ${quote(id)} is not ${quote(expected.id)}, the plugin this directory holds.`})
      }
      const version = member(manifest, 'version')
      if (expected.version !== undefined && typeof version === 'string' && !rejected.has('/version') && version !== expected.version) {
        emit({code: 'version-mismatch', pointer: '/version', message: `version ${quote(version)} is not ${quote(expected.version)}, the version this directory holds.`})
      }
    },
  }
}
