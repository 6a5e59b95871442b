import {levelIncludes} from '../levels.js'
import type {Rule} from './types.js'
import {hasMember, isBlank, isRecord, member} from './values.js'

/** Top-level fields a store listing needs (x-svc-requirement `publication`), in the manifest format's order. */
export const publicationFields = ['description', 'icon', 'publisher', 'license', 'repository', 'compatibility'] as const

/** The `compatibility` members that count as declaring something. */
const compatibilityMembers = ['sdk', 'protocol', 'svc'] as const

const hints: Record<(typeof publicationFields)[number], string> = {
  description: 'add a sentence or two that tells store users what the plugin does',
  icon: 'add the path of an icon inside the package, e.g. "assets/icon.png"',
  publisher: 'add {"name": "..."} naming who publishes the plugin',
  license: 'add the license, e.g. "MIT"',
  repository: 'add the source repository URL, e.g. "https://github.com/example/my-plugin"',
  compatibility: 'declare at least one of sdk, protocol or svc',
}

/**
 * The publication fields are present (`publication-metadata-missing`): a warning at package level, an
 * error (`requiredBy: publication`) at publication level, one per missing field. A missing field is
 * reported at its parent, the root; an empty `compatibility` or a blank `description` or
 * `license` is reported where it is.
 */
export const publicationMetadataIsPresent: Rule = {
  name: 'publication-metadata-is-present',
  codes: ['publication-metadata-missing'],
  level: 'package',
  check({manifest, level, emit}) {
    const severity = levelIncludes(level, 'publication') ? 'error' : 'warning'
    for (const field of publicationFields) {
      const value = member(manifest, field)
      let pointer: string | null = null
      let state = 'is missing'
      if (!hasMember(manifest, field)) pointer = ''
      else if ((field === 'description' || field === 'license') && typeof value === 'string' && isBlank(value)) {
        pointer = `/${field}`
        state = 'is blank'
      } else if (field === 'compatibility' && isRecord(value) && !compatibilityMembers.some((key) => hasMember(value, key))) {
        pointer = '/compatibility'
        state = 'declares nothing'
      }
      if (pointer === null) continue
      emit({
        code: 'publication-metadata-missing',
        severity,
        requiredBy: 'publication',
        pointer,
        message: `${field} ${state}, and publication requires it; ${hints[field]}.`,
      })
    }
  },
}
