import {isPluginId, isVersionRange} from '../../model/index.js'
import {describePointer} from '../../json/pointer.js'
import {rangeGrammar} from './compatibility-ranges-parse.js'
import {pluginIdProblem} from './id-is-a-plugin-id.js'
import type {Rule} from './types.js'
import {arrayItems, member, quote} from './values.js'

/** The arrays of references to other plugins, which share the reference rules. */
export const referenceLists = ['dependencies', 'conflicts', 'iconPacks'] as const

/**
 * `dependencies`, `conflicts` and `iconPacks` make sense (`invalid-dependency`): each id is a plugin id,
 * not the plugin's own, listed once per array and never both a dependency and a conflict; each
 * `versionRange` parses.
 */
export const dependenciesAreConsistent: Rule = {
  name: 'dependencies-are-consistent',
  codes: ['invalid-dependency'],
  level: 'development',
  claims: [{keywords: ['pattern', 'maxLength'], pointer: /^\/(dependencies|conflicts|iconPacks)\/\d+\/id$/}],
  check({manifest, rejected, emit}) {
    const ownId = member(manifest, 'id')
    const dependencyIds = new Map<string, string>()
    for (const list of referenceLists) {
      const seen = new Map<string, string>()
      for (const {value, pointer} of arrayItems(manifest, list)) {
        const idPointer = `${pointer}/id`
        const id = member(value, 'id')
        if (typeof id === 'string' && !rejected.has(idPointer)) {
          const where = `${describePointer(idPointer)} ${quote(id)}`
          const first = seen.get(id)
          if (!isPluginId(id)) {
            emit({code: 'invalid-dependency', pointer: idPointer, message: `${where} ${pluginIdProblem(id)}.`})
          } else if (id === ownId) {
            emit({code: 'invalid-dependency', pointer: idPointer, message: `${where} is this plugin's own id; remove it.`})
          } else if (first !== undefined) {
            emit({code: 'invalid-dependency', pointer: idPointer, message: `${where} repeats ${describePointer(first)}; list each plugin once.`})
          } else if (list === 'conflicts' && dependencyIds.has(id)) {
            const dependency = dependencyIds.get(id) as string
            emit({code: 'invalid-dependency', pointer: idPointer, message: `${where} is also ${describePointer(dependency)}; a plugin cannot both need and conflict with another.`})
          } else {
            seen.set(id, idPointer)
            if (list === 'dependencies') dependencyIds.set(id, idPointer)
          }
        }
        const rangePointer = `${pointer}/versionRange`
        const range = member(value, 'versionRange')
        if (typeof range === 'string' && !rejected.has(rangePointer) && !isVersionRange(range)) {
          emit({code: 'invalid-dependency', pointer: rangePointer, message: `${describePointer(rangePointer)} ${quote(range)} is not a version range: ${rangeGrammar}.`})
        }
      }
    }
  },
}
