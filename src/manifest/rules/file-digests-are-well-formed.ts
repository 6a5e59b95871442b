import {checkIconPath} from '../../model/index.js'
import {describePointer} from '../../json/pointer.js'
import {schemaPattern} from '../schema.js'
import {packagePathProblems} from './icon-path-is-safe.js'
import type {Rule} from './types.js'
import {arrayItems, hasMember, isRecord, member, quote} from './values.js'

const digestShape = schemaPattern('sha256Digest')
const fileMembers = ['path', 'sha256', 'size'] as const

/**
 * Each `files[]` entry is `{path, sha256, size}` (`invalid-file-digest`): a forward-slash relative path,
 * unique case-insensitively; `sha256:` and 64 lowercase hex digits; a whole number of bytes.
 * Every schema error inside an entry is this rule's.
 */
export const fileDigestsAreWellFormed: Rule = {
  name: 'file-digests-are-well-formed',
  codes: ['invalid-file-digest'],
  level: 'development',
  claims: [
    {keywords: ['type', 'required'], pointer: /^\/files\/\d+$/},
    {keywords: ['type', 'minLength', 'pattern', 'minimum'], pointer: /^\/files\/\d+\/(path|sha256|size)$/},
  ],
  check({manifest, emit}) {
    const seen = new Map<string, string>()
    for (const {value, index, pointer} of arrayItems(manifest, 'files')) {
      if (!isRecord(value)) {
        emit({code: 'invalid-file-digest', pointer, message: `files[${index}] is ${quote(value)}; each entry is an object {path, sha256, size}.`})
        continue
      }
      for (const key of fileMembers) {
        if (!hasMember(value, key)) emit({code: 'invalid-file-digest', pointer, message: `files[${index}] has no ${key}; each entry is {path, sha256, size}.`})
      }
      const pathPointer = `${pointer}/path`
      const path = member(value, 'path')
      if (hasMember(value, 'path')) {
        const problem = typeof path === 'string' ? checkIconPath(path) : null
        if (typeof path !== 'string') {
          emit({code: 'invalid-file-digest', pointer: pathPointer, message: `${describePointer(pathPointer)} is ${quote(path)}; it must be a string.`})
        } else if (problem !== null) {
          emit({code: 'invalid-file-digest', pointer: pathPointer, message: `${describePointer(pathPointer)} ${quote(path)} ${packagePathProblems[problem]}.`})
        } else {
          const key = path.toLowerCase()
          const first = seen.get(key)
          if (first === undefined) seen.set(key, pathPointer)
          else emit({code: 'invalid-file-digest', pointer: pathPointer, message: `${describePointer(pathPointer)} ${quote(path)} repeats ${describePointer(first)} (paths compare case-insensitively).`})
        }
      }
      const sha256Pointer = `${pointer}/sha256`
      const sha256 = member(value, 'sha256')
      if (hasMember(value, 'sha256') && (typeof sha256 !== 'string' || !digestShape.test(sha256))) {
        emit({code: 'invalid-file-digest', pointer: sha256Pointer, message: `${describePointer(sha256Pointer)} ${quote(sha256)} is not "sha256:" followed by 64 lowercase hex digits.`})
      }
      const sizePointer = `${pointer}/size`
      const size = member(value, 'size')
      if (hasMember(value, 'size') && !(Number.isInteger(size) && (size as number) >= 0)) {
        emit({code: 'invalid-file-digest', pointer: sizePointer, message: `${describePointer(sizePointer)} ${quote(size)} is not a whole number of bytes (an integer of at least 0).`})
      }
    }
  },
}
