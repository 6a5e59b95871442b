import {signerMemberNames} from '../../model/signing-files.js'
import type {Rule} from './types.js'
import {hasMember} from './values.js'

/** Fields only `pack` and `sign` write (x-svc-requirement `generated`): `files`, and the signer's members. */
export const generatedFields: readonly string[] = ['files', ...signerMemberNames]

/**
 * A source tree does not carry `files`, `signature` or `containerDigest` (`generated-field-authored`, a
 * warning): pack discards `files` and drops the signer's members. Artifacts and installed versions are not
 * source trees.
 */
export const generatedFieldsAreNotAuthored: Rule = {
  name: 'generated-fields-are-not-authored',
  codes: ['generated-field-authored'],
  level: 'development',
  check({manifest, subjectKind, emit}) {
    if (subjectKind !== 'manifest' && subjectKind !== 'directory') return
    for (const field of generatedFields) {
      if (!hasMember(manifest, field)) continue
      emit({
        code: 'generated-field-authored',
        severity: 'warning',
        pointer: `/${field}`,
        message: `${field} is written by svc-plugin ${field === 'files' ? 'pack, which replaces' : 'sign; pack drops'} the authored value; remove it from the source manifest.`,
      })
    }
  },
}
