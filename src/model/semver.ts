import {ModelError} from './errors.js'

/**
 * A parsed SemVer 2.0 version. Numeric parts stay decimal text: SemVer sets no upper bound, so
 * `99999999999999999999999.0.0` is valid and must compare correctly.
 */
export interface SemVer {
  major: string
  minor: string
  patch: string
  /** Pre-release identifiers in order; empty when there is none. */
  prerelease: readonly string[]
  /** Build metadata identifiers in order; empty when there is none. Ignored by precedence. */
  build: readonly string[]
}

// The SemVer 2.0 grammar, one piece per production, each tested on a single already-split part so
// that no pattern backtracks over the whole input.
const numericPart = /^(?:0|[1-9][0-9]*)$/
const identifier = /^[0-9A-Za-z-]+$/
const digitsOnly = /^[0-9]+$/

/** A pre-release identifier: alphanumeric, or numeric without a leading zero. */
function isPrereleaseIdentifier(part: string): boolean {
  return identifier.test(part) && (!digitsOnly.test(part) || numericPart.test(part))
}

/** Reads `s` as SemVer 2.0 exactly (no `v` or `=` prefix, no surrounding whitespace), or null. */
export function parseSemVer(s: unknown): SemVer | null {
  if (typeof s !== 'string') return null
  // Build metadata starts at the first `+`; neither the core nor a pre-release identifier may hold one.
  const plus = s.indexOf('+')
  const beforeBuild = plus === -1 ? s : s.slice(0, plus)
  const build = plus === -1 ? [] : s.slice(plus + 1).split('.')
  if (!build.every((part) => identifier.test(part))) return null
  // The pre-release starts at the first `-`: the core has none, identifiers may contain more.
  const hyphen = beforeBuild.indexOf('-')
  const core = (hyphen === -1 ? beforeBuild : beforeBuild.slice(0, hyphen)).split('.')
  const prerelease = hyphen === -1 ? [] : beforeBuild.slice(hyphen + 1).split('.')
  if (!prerelease.every(isPrereleaseIdentifier)) return null
  if (core.length !== 3 || !core.every((part) => numericPart.test(part))) return null
  const [major, minor, patch] = core as [string, string, string]
  return {major, minor, patch, prerelease, build}
}

/**
 * Longest version a plugin may have, in characters: the host's limit on the version a plugin declares,
 * and short enough that the folder a data root keeps it in (`versions/<version>`, or `<version>_<n>` while
 * a forced reinstall replaces it) is one file name on every file system. SemVer itself sets no bound.
 */
export const maxVersionLength = 128

/** True when `s` is a SemVer 2.0 version exactly. */
export function isSemVer(s: unknown): s is string {
  return parseSemVer(s) !== null
}

/** Orders two numbers written without leading zeros, of any length. */
function compareNumeric(a: string, b: string): -1 | 0 | 1 {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1
  return a === b ? 0 : a < b ? -1 : 1
}

/** Orders two pre-release identifiers (SemVer 2.0 §11.4.1-3). */
function compareIdentifier(a: string, b: string): -1 | 0 | 1 {
  const aNumeric = digitsOnly.test(a)
  const bNumeric = digitsOnly.test(b)
  if (aNumeric && bNumeric) return compareNumeric(a, b)
  // Numeric identifiers always have lower precedence than alphanumeric ones.
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1
  // Identifiers are ASCII, so UTF-16 code unit order is ASCII order.
  return a === b ? 0 : a < b ? -1 : 1
}

/** Precedence of two parsed versions (SemVer 2.0 §11); build metadata is ignored. */
export function compareParsedSemVer(a: SemVer, b: SemVer): -1 | 0 | 1 {
  const core = compareNumeric(a.major, b.major) || compareNumeric(a.minor, b.minor) || compareNumeric(a.patch, b.patch)
  if (core !== 0) return core
  // A version without pre-release ranks above any pre-release of the same core.
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length === 0 ? 1 : -1
  }
  const shared = Math.min(a.prerelease.length, b.prerelease.length)
  for (let i = 0; i < shared; i++) {
    const order = compareIdentifier(a.prerelease[i] as string, b.prerelease[i] as string)
    if (order !== 0) return order
  }
  // Every shared identifier is equal: the longer list ranks higher.
  return a.prerelease.length === b.prerelease.length ? 0 : a.prerelease.length < b.prerelease.length ? -1 : 1
}

/** Reads a version or throws `invalid-version`, naming which argument was wrong. */
function requireSemVer(s: string, argument: string): SemVer {
  const parsed = parseSemVer(s)
  if (parsed === null) {
    throw new ModelError('invalid-version', `${JSON.stringify(s)} is not a SemVer 2.0 version.`, {
      details: {argument, value: s},
    })
  }
  return parsed
}

/**
 * SemVer 2.0 precedence of `a` against `b`: -1, 0 or 1; build metadata is ignored, so
 * `1.0.0+a` and `1.0.0+b` compare equal. Throws `ModelError` `invalid-version` for a non-SemVer input.
 */
export function compareSemVer(a: string, b: string): -1 | 0 | 1 {
  return compareParsedSemVer(requireSemVer(a, 'a'), requireSemVer(b, 'b'))
}
