import {describePointer} from '../../json/pointer.js'
import type {Rule} from './types.js'
import {declaredEntrypoints, normalizePackagePath, quote} from './values.js'

/** Every declared entrypoint's executable is in the package (`entrypoint-not-packed`). */
export const entrypointsArePacked: Rule = {
  name: 'entrypoints-are-packed',
  codes: ['entrypoint-not-packed'],
  level: 'package',
  check({manifest, content, rejected, emit}) {
    if (content === undefined) return
    for (const {rid, executable, executablePointer} of declaredEntrypoints(manifest)) {
      if (executable === null || rejected.has(executablePointer) || content.files.has(normalizePackagePath(executable))) continue
      emit({
        code: 'entrypoint-not-packed',
        requiredBy: 'package',
        pointer: executablePointer,
        message: `${describePointer(executablePointer)} ${quote(executable)} is not in the package; build the ${rid} runtime into that path, or remove the entrypoint.`,
      })
    }
  },
}
