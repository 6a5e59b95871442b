import {ModelError} from './errors.js'
import {compareParsedSemVer, parseSemVer} from './semver.js'
import type {SemVer} from './semver.js'

/** The operators of the range grammar. */
export const rangeOperators = ['=', '>', '>=', '<', '<='] as const

/** One comparator operator. */
export type RangeOperator = (typeof rangeOperators)[number]

/** One comparator of a range: `operator` applied to a SemVer 2.0 `version`. */
export type Comparator = {operator: RangeOperator; version: string}

/** A parsed version range: `*`, or comparators that must all hold. */
export type VersionRange = {kind: 'any'} | {kind: 'comparators'; comparators: Comparator[]}

// Longest operators first, so `>=` is never read as `>` followed by `=1.0.0`.
const comparatorText = /^(>=|<=|>|<|=)?\s*([^]*)$/

/**
 * Reads one comparator: an optional operator (none means `=`), optional whitespace, then a SemVer.
 * Caret, tilde, `||`, wildcards, hyphen ranges and partial versions all fail the SemVer test.
 */
function parseComparator(text: string): Comparator | null {
  const match = comparatorText.exec(text)
  if (match === null) return null
  const version = match[2] as string
  if (parseSemVer(version) === null) return null
  return {operator: (match[1] ?? '=') as RangeOperator, version}
}

/**
 * Reads a version range: `*`, or one or more comparators separated by commas, all of which must
 * hold. Whitespace (as `String.prototype.trim` defines it) around the whole text, around each comparator and
 * between an operator and its version is allowed. Returns null for anything else, including an empty
 * comparator (`>=1.0.0,`), `^`, `~`, `||`, `x`/`X`/`*` inside a version, hyphen ranges and partial versions.
 */
export function parseVersionRange(text: string): VersionRange | null {
  if (typeof text !== 'string') return null
  if (text.trim() === '*') return {kind: 'any'}
  const comparators: Comparator[] = []
  for (const part of text.split(',')) {
    const comparator = parseComparator(part.trim())
    if (comparator === null) return null
    comparators.push(comparator)
  }
  return {kind: 'comparators', comparators}
}

/** True when `s` is a string that `parseVersionRange` accepts. */
export function isVersionRange(s: unknown): boolean {
  return typeof s === 'string' && parseVersionRange(s) !== null
}

/** The comparators of a range object with every version parsed, or null when the object is malformed. */
function parsedComparators(range: VersionRange): Array<{operator: RangeOperator; version: SemVer}> | null {
  if (range.kind === 'any') return []
  if (range.kind !== 'comparators' || !Array.isArray(range.comparators) || range.comparators.length === 0) return null
  const parsed: Array<{operator: RangeOperator; version: SemVer}> = []
  for (const {operator, version} of range.comparators) {
    const semver = parseSemVer(version)
    if (semver === null || !(rangeOperators as readonly string[]).includes(operator)) return null
    parsed.push({operator, version: semver})
  }
  return parsed
}

/** Whether an ordering of candidate against bound satisfies `operator`. */
function holds(operator: RangeOperator, order: -1 | 0 | 1): boolean {
  switch (operator) {
    case '=':
      return order === 0
    case '>':
      return order > 0
    case '>=':
      return order >= 0
    case '<':
      return order < 0
    case '<=':
      return order <= 0
    default:
      return false
  }
}

/**
 * True when `version` satisfies `range` by pure SemVer 2.0 precedence: no pre-release exclusion,
 * so `<2.0.0` matches `2.0.0-beta.1` and `>=1.0.0` matches `1.1.0-beta.1` but not `1.0.0-beta.1`; `*` matches
 * everything; build metadata is ignored (`=1.0.0` matches `1.0.0+build.5`). False when either does not parse,
 * and for a malformed range object (an empty comparator list never matches).
 */
export function satisfies(version: string, range: string | VersionRange): boolean {
  const candidate = parseSemVer(version)
  if (candidate === null) return false
  const parsedRange = typeof range === 'string' ? parseVersionRange(range) : range
  if (parsedRange === null || typeof parsedRange !== 'object') return false
  const comparators = parsedComparators(parsedRange)
  if (comparators === null) return false
  return comparators.every(({operator, version: bound}) => holds(operator, compareParsedSemVer(candidate, bound)))
}

/**
 * The canonical text of a range: `*`, or each comparator as operator then version (a bare comparator
 * becomes `=`), joined by `, ` — e.g. `>=1.0.0, <2.0.0`. Versions are kept as written, build metadata included.
 * Throws `ModelError` `invalid-range` for a malformed range object, since its text would not parse back.
 */
export function formatVersionRange(range: VersionRange): string {
  if (parsedComparators(range) === null) {
    throw new ModelError('invalid-range', 'The version range object is malformed and has no canonical text.', {
      details: {range},
    })
  }
  if (range.kind === 'any') return '*'
  return range.comparators.map(({operator, version}) => `${operator}${version}`).join(', ')
}
