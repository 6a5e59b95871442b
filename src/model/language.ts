/**
 * The manifest format's BCP-47 shape: a 2-3 letter language, an optional 4-letter script and an optional
 * 2-letter or 3-digit region. Extensions and private-use subtags are outside it.
 */
export const languageTagPattern: RegExp = /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?$/

/** True when `s` is a well-shaped language tag; whether the tag is a registered one is not checked. */
export function isLanguageTag(s: unknown): s is string {
  return typeof s === 'string' && languageTagPattern.test(s)
}

/**
 * A well-shaped language tag in BCP 47's canonical case: the language in lower case, the script in title
 * case, the region in upper case (`zh-hant-tw` → `zh-Hant-TW`, `DE` → `de`), so that case variants of one
 * tag are spelled one way.
 */
export function canonicalLanguageTag(tag: string): string {
  return tag
    .split('-')
    .map((part, index) => {
      if (index === 0) return part.toLowerCase()
      if (part.length === 4) return part.charAt(0).toUpperCase() + part.slice(1).toLowerCase()
      return part.toUpperCase()
    })
    .join('-')
}
