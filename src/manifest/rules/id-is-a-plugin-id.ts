import {isPluginId, maxPluginIdLength} from '../../model/index.js'
import type {Rule} from './types.js'
import {member, quote} from './values.js'

/** The wording every id rule uses for a bad reverse-domain id. */
export function pluginIdProblem(id: string): string {
  if (id.length > maxPluginIdLength) return `is ${id.length} characters long; an id has at most ${maxPluginIdLength}`
  return 'is not a reverse-domain id: use lowercase letters, digits and hyphens in at least two dot-separated segments, each starting with a letter (e.g. com.example.my-plugin)'
}

/** `id` is a reverse-domain plugin id of at most 128 characters (`invalid-plugin-id`). */
export const idIsAPluginId: Rule = {
  name: 'id-is-a-plugin-id',
  codes: ['invalid-plugin-id'],
  level: 'development',
  claims: [{keywords: ['pattern', 'maxLength', 'minLength'], pointer: /^\/id$/}],
  check({manifest, rejected, emit}) {
    const id = member(manifest, 'id')
    if (typeof id !== 'string' || rejected.has('/id') || isPluginId(id)) return
    emit({code: 'invalid-plugin-id', pointer: '/id', message: `id ${quote(id)} ${pluginIdProblem(id)}.`})
  },
}
