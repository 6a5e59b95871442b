import {childPointer} from '../json/pointer.js'

/**
 * The RFC 6901 pointer of the first place where two parsed JSON values differ, or null when they
 * are equal. Objects compare by their set of members (property order never matters), arrays
 * element by element, everything else with `===`. Members are visited in sorted order so the
 * pointer reported does not depend on which value is `a`.
 */
export function firstJsonDifference(a: unknown, b: unknown, pointer = ''): string | null {
  if (a === b) return null
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return pointer
    const shared = Math.min(a.length, b.length)
    for (let index = 0; index < shared; index++) {
      const found = firstJsonDifference(a[index], b[index], childPointer(pointer, index))
      if (found !== null) return found
    }
    return a.length === b.length ? null : childPointer(pointer, shared)
  }
  if (!isObject(a) || !isObject(b)) return pointer
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
  for (const key of keys) {
    if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return childPointer(pointer, key)
    const found = firstJsonDifference(a[key], b[key], childPointer(pointer, key))
    if (found !== null) return found
  }
  return null
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null
}
