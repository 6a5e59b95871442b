/** RFC 6901 JSON pointers: building, splitting and naming them in messages. */

/** Escapes one reference token (`~` → `~0`, `/` → `~1`). */
export function escapePointerToken(token: string): string {
  // Most tokens need no escaping; this runs for every member of every manifest.
  return needsEscape.test(token) ? token.replaceAll('~', '~0').replaceAll('/', '~1') : token
}

const needsEscape = /[~/]/

/** The pointer of member `token` (a property name or an array index) of the value at `base`. */
export function childPointer(base: string, token: string | number): string {
  return `${base}/${escapePointerToken(String(token))}`
}

/** The unescaped reference tokens of `pointer`, or null when it is not a pointer (`""` has none). */
export function pointerTokens(pointer: string): string[] | null {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) return null
  return pointer
    .slice(1)
    .split('/')
    .map((token) => (token.includes('~') ? token.replaceAll('~1', '/').replaceAll('~0', '~') : token))
}

/** The pointer of the value that contains the value at `pointer` (`null` for the root). */
export function parentPointer(pointer: string): string | null {
  if (pointer === '') return null
  const slash = pointer.lastIndexOf('/')
  return slash <= 0 ? '' : pointer.slice(0, slash)
}

/** True when `pointer` is `ancestor` or lies below it. */
export function isWithin(pointer: string, ancestor: string): boolean {
  return pointer === ancestor || pointer.startsWith(`${ancestor}/`)
}

const plainName = /^[A-Za-z_$][\w$]*$/
const arrayIndex = /^(0|[1-9][0-9]*)$/

/** True when a reference token can name an element of an array: a decimal index without leading zeros. */
export function isArrayIndexToken(token: string): boolean {
  return arrayIndex.test(token)
}

/**
 * How a message names the value at `pointer`: `publisher.url`, `entrypoints["win-x64"].executable`,
 * `files[2].sha256`; the root is `the manifest`. Numeric tokens read as indexes, which is what every
 * numeric token in a manifest pointer is (no manifest object is keyed by numbers).
 */
export function describePointer(pointer: string): string {
  const tokens = pointerTokens(pointer)
  if (tokens === null) return pointer
  if (tokens.length === 0) return 'the manifest'
  let text = ''
  for (const token of tokens) {
    if (isArrayIndexToken(token) && text !== '') text += `[${token}]`
    else if (plainName.test(token)) text += text === '' ? token : `.${token}`
    else text += text === '' ? JSON.stringify(token) : `[${JSON.stringify(token)}]`
  }
  return text
}
