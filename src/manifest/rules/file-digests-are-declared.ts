import type {Rule} from './types.js'
import {hasMember} from './values.js'

/**
 * A packed artifact lists its files: without `files[]` nothing tells a changed or added file from the
 * packed one, and a host installs it with the same warning (`no-file-digests`). A warning, not an error:
 * the manifest format makes `files[]` optional; `svc-plugin pack` always writes it.
 */
export const fileDigestsAreDeclared: Rule = {
  name: 'file-digests-are-declared',
  codes: ['no-file-digests'],
  level: 'package',
  check({manifest, content, emit}) {
    if (content === undefined || content.kind === 'directory' || hasMember(manifest, 'files')) return
    emit({
      code: 'no-file-digests',
      severity: 'warning',
      requiredBy: 'package',
      pointer: '',
      message: 'The manifest has no files[]: nothing tells a changed or added file from the packed one, and a host installs it with the warning no-file-digests. Pack it with svc-plugin pack, which lists every file with its size and SHA-256.',
    })
  },
}
