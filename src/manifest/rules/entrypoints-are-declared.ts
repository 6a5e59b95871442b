import type {Rule} from './types.js'
import {isRecord, member} from './values.js'

/** `entrypoints` declares at least one runtime identifier (`no-entrypoints`). */
export const entrypointsAreDeclared: Rule = {
  name: 'entrypoints-are-declared',
  codes: ['no-entrypoints'],
  level: 'development',
  claims: [{keywords: ['minProperties'], pointer: /^\/entrypoints$/}],
  check({manifest, rejected, emit}) {
    const entrypoints = member(manifest, 'entrypoints')
    if (!isRecord(entrypoints) || rejected.has('/entrypoints') || Object.keys(entrypoints).length > 0) return
    emit({
      code: 'no-entrypoints',
      pointer: '/entrypoints',
      message: 'entrypoints is empty; declare at least one runtime identifier, e.g. "win-x64": {"executable": "runtimes/win-x64/MyPlugin.exe"}.',
    })
  },
}
