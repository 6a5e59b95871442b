import type {Rule} from './types.js'

/**
 * A source folder is one `pack` takes: each reason pack would refuse it for (a symbolic link, a special
 * file, a name the entry-path policy refuses, too many or too large files…) is an error with pack's own
 * code, `source-entry-rejected` or `limit-exceeded`, placed at the entry it is about. Reported at package
 * level and above, so that a folder that validates is a folder that packs.
 */
export const packageIsPackable: Rule = {
  name: 'package-is-packable',
  codes: ['source-entry-rejected', 'limit-exceeded'],
  level: 'package',
  check({content, emit}) {
    for (const refusal of content?.refusals ?? []) {
      // A refusal of one entry is placed at that entry; one of the folder as a whole, at the manifest.
      emit({code: refusal.code, requiredBy: 'package', pointer: '', message: refusal.message, ...(refusal.path === null ? {} : {at: {path: refusal.path, line: null, column: null}})})
    }
  },
}
