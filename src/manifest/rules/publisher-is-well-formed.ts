import {isPluginId} from '../../model/index.js'
import {pluginIdProblem} from './id-is-a-plugin-id.js'
import type {Rule} from './types.js'
import {isBlank, member, quote} from './values.js'

/**
 * The `publisher` block names someone (`invalid-publisher`): `name` is not blank and `id`, when
 * present, is a reverse-domain id. A missing name is `schema:required`, a bad `url` `schema:pattern`.
 */
export const publisherIsWellFormed: Rule = {
  name: 'publisher-is-well-formed',
  codes: ['invalid-publisher'],
  level: 'development',
  claims: [
    {keywords: ['minLength'], pointer: /^\/publisher\/name$/},
    {keywords: ['pattern', 'maxLength'], pointer: /^\/publisher\/id$/},
  ],
  check({manifest, rejected, emit}) {
    const publisher = member(manifest, 'publisher')
    const name = member(publisher, 'name')
    if (typeof name === 'string' && !rejected.has('/publisher/name') && isBlank(name)) {
      emit({code: 'invalid-publisher', pointer: '/publisher/name', message: `publisher.name ${quote(name)} is blank; give the publisher's display name.`})
    }
    const id = member(publisher, 'id')
    if (typeof id === 'string' && !rejected.has('/publisher/id') && !isPluginId(id)) {
      emit({code: 'invalid-publisher', pointer: '/publisher/id', message: `publisher.id ${quote(id)} ${pluginIdProblem(id)}.`})
    }
  },
}
