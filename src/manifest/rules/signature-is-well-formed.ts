import {describePointer} from '../../json/pointer.js'
import {matchesFormat} from '../schema-validator.js'
import type {Rule} from './types.js'
import {hasMember, isBlank, isRecord, member, quote} from './values.js'

const signatureMembers = ['algorithm', 'keyId', 'value', 'signedAt'] as const
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * The `signature` block has the shape `sign` writes (`invalid-signature`): `algorithm`, `keyId` and
 * `value` non-blank strings, `value` base64, `signedAt` an RFC 3339 date-time. Whether it verifies is
 * `verify`'s question, not validation's. Every schema error inside the block is this rule's.
 */
export const signatureIsWellFormed: Rule = {
  name: 'signature-is-well-formed',
  codes: ['invalid-signature'],
  level: 'development',
  claims: [
    {keywords: ['type', 'required'], pointer: /^\/signature$/},
    {keywords: ['type', 'minLength', 'format'], pointer: /^\/signature\/(algorithm|keyId|value|signedAt)$/},
  ],
  check({manifest, emit}) {
    if (!hasMember(manifest, 'signature')) return
    const signature = member(manifest, 'signature')
    if (!isRecord(signature)) {
      emit({code: 'invalid-signature', pointer: '/signature', message: `signature is ${quote(signature)}; it is an object {algorithm, keyId, value, signedAt} written by svc-plugin sign.`})
      return
    }
    for (const key of signatureMembers) {
      const pointer = `/signature/${key}`
      if (!hasMember(signature, key)) {
        emit({code: 'invalid-signature', pointer: '/signature', message: `signature has no ${key}; sign the artifact again with svc-plugin sign.`})
        continue
      }
      const value = signature[key]
      let problem: string | null = null
      if (typeof value !== 'string') problem = 'is not a string'
      else if (isBlank(value)) problem = 'is blank'
      else if (key === 'value' && !base64.test(value)) problem = 'is not base64'
      else if (key === 'signedAt' && !matchesFormat('date-time', value)) problem = 'is not an RFC 3339 date-time such as 2024-05-01T12:00:00Z'
      if (problem !== null) emit({code: 'invalid-signature', pointer, message: `${describePointer(pointer)} ${quote(value)} ${problem}; sign the artifact again with svc-plugin sign.`})
    }
  },
}
