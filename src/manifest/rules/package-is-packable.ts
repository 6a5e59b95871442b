import type {Rule} from './types.js'

/**
 * A source folder is one `pack` takes: each reason pack would refuse it for (a symbolic link, a special
 * file, a name the entry-path policy refuses, too many or too large files…) is an error with pack's own
 * code, `source-entry-rejected` or `limit-exceeded`. Reported at package level and above, so that a folder
 * that validates is a folder that packs.
 */
export const packageIsPackable: Rule = {
  name: 'package-is-packable',
  codes: ['source-entry-rejected', 'limit-exceeded'],
  level: 'package',
  check({content, emit}) {
    for (const refusal of content?.refusals ?? []) emit({code: refusal.code, requiredBy: 'package', pointer: '', message: refusal.message})
  },
}
