import {describePointer} from '../../json/pointer.js'
import type {Rule} from './types.js'
import {declaredEntrypoints, normalizePackagePath, quote} from './values.js'

/**
 * Each runtime identifier's executable lives in a directory of its own (`entrypoint-layout-invalid`,
 * the multi-RID layout): not at the package root, and no two identifiers sharing a directory (compared
 * case-insensitively, after normalising separators and dropping `.` segments). Every offending
 * identifier is reported. `runtimes/<rid>/` is the convention, not a rule.
 */
export const entrypointLayoutIsValid: Rule = {
  name: 'entrypoint-layout-is-valid',
  codes: ['entrypoint-layout-invalid'],
  level: 'package',
  check({manifest, rejected, emit}) {
    const byDirectory = new Map<string, Array<{rid: string; pointer: string; executable: string}>>()
    for (const {rid, executable, executablePointer} of declaredEntrypoints(manifest)) {
      if (executable === null || rejected.has(executablePointer)) continue
      const segments = normalizePackagePath(executable).split('/')
      const directory = segments.slice(0, -1).join('/')
      if (directory === '') {
        emit({
          code: 'entrypoint-layout-invalid',
          requiredBy: 'package',
          pointer: executablePointer,
          message: `${describePointer(executablePointer)} ${quote(executable)} is at the package root; put each runtime's executable in a directory of its own, e.g. runtimes/${rid}/.`,
        })
        continue
      }
      const key = directory.toLowerCase()
      byDirectory.set(key, [...(byDirectory.get(key) ?? []), {rid, pointer: executablePointer, executable}])
    }
    for (const sharing of byDirectory.values()) {
      if (sharing.length < 2) continue
      for (const {rid, pointer, executable} of sharing) {
        const others = sharing.filter((other) => other.rid !== rid).map((other) => other.rid)
        emit({
          code: 'entrypoint-layout-invalid',
          requiredBy: 'package',
          pointer,
          message: `${describePointer(pointer)} ${quote(executable)} shares its directory with ${others.join(', ')}; give each runtime identifier a directory of its own, e.g. runtimes/${rid}/.`,
        })
      }
    }
  },
}
