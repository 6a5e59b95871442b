import {isLanguageTag} from '../../model/index.js'
import type {Rule} from './types.js'
import {arrayItems, asciiLowerCase, isBlank, quote} from './values.js'

/**
 * Each language is a well-shaped tag, listed once case-insensitively (`invalid-language`); a tag that is
 * well shaped but not registered is fine.
 */
export const languagesAreWellFormed: Rule = {
  name: 'languages-are-well-formed',
  codes: ['invalid-language'],
  level: 'development',
  claims: [
    {keywords: ['uniqueItems'], pointer: /^\/languages$/},
    {keywords: ['pattern'], pointer: /^\/languages\/\d+$/},
  ],
  check({manifest, rejected, emit}) {
    const seen = new Map<string, number>()
    for (const {value, index, pointer} of arrayItems(manifest, 'languages')) {
      if (typeof value !== 'string' || rejected.has(pointer)) continue
      const where = `languages[${index}] ${quote(value)}`
      if (isBlank(value)) {
        emit({code: 'invalid-language', pointer, message: `${where} is blank; remove it.`})
        continue
      }
      if (!isLanguageTag(value)) {
        emit({
          code: 'invalid-language',
          pointer,
          message: `${where} is not a language tag: use a 2-3 letter language, an optional 4-letter script and an optional 2-letter or 3-digit region, e.g. en, de-CH or zh-Hant-TW.`,
        })
        continue
      }
      const key = asciiLowerCase(value)
      const first = seen.get(key)
      if (first === undefined) seen.set(key, index)
      else emit({code: 'invalid-language', pointer, message: `${where} repeats languages[${first}] (tags compare case-insensitively); list each language once.`})
    }
  },
}
