import {canonicalLanguageTag, isLanguageTag} from '../model/language.js'

/** Where localization resources live, beside the manifest. */
const resourcePattern = /^Localization\/(?:.+\/)?([^/]+)\.resx$/i

/**
 * Derives `languages` from `Localization/**\/*.resx` names: the stem is split at
 * its first dot; no dot means `en`; otherwise the rest is the culture, kept when well shaped.
 * Each tag is written in BCP 47's canonical case (`de-de` gives `de-DE`), so case variants collapse into
 * one; de-duplicated and sorted case-insensitively.
 */
export function deriveLanguages(paths: Iterable<string>): string[] {
  const byKey = new Map<string, string>()
  for (const name of paths) {
    const stem = resourcePattern.exec(name)?.[1]
    if (stem === undefined) continue
    const dot = stem.indexOf('.')
    const tag = dot === -1 ? 'en' : stem.slice(dot + 1)
    if (!isLanguageTag(tag)) continue
    byKey.set(tag.toLowerCase(), canonicalLanguageTag(tag))
  }
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, tag]) => tag)
}

/** True when two tag lists name different sets, ignoring case and order. */
export function languageSetsDiffer(a: readonly string[], b: readonly string[]): boolean {
  const left = new Set(a.map((tag) => tag.toLowerCase()))
  const right = new Set(b.map((tag) => tag.toLowerCase()))
  if (left.size !== right.size) return true
  for (const tag of left) if (!right.has(tag)) return true
  return false
}
