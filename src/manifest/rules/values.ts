import {childPointer} from '../../json/pointer.js'

/** Small readers shared by the rules: a manifest is untrusted `unknown` until a rule has looked. */

/** True for a JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Own property `key` of `value` when it is an object, else undefined (never an inherited one). */
export function member(value: unknown, key: string): unknown {
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined
}

/** True when `value` is an object that has its own property `key`. */
export function hasMember(value: unknown, key: string): boolean {
  return isRecord(value) && Object.hasOwn(value, key)
}

/** A value as a message quotes it: JSON, cut short when long. */
export function quote(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

/** True for a string that is empty or only whitespace. */
export function isBlank(value: string): boolean {
  return value.trim() === ''
}

/** Lower-cases A-Z only: case-insensitive comparison of ASCII-shaped values without Unicode folding surprises. */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())
}

/**
 * A package path as the content snapshot spells it: `\` read as `/`, `.` and empty segments dropped
 *. Only for paths that passed the executable or icon path checks.
 */
export function normalizePackagePath(path: string): string {
  return path
    .split(/[/\\]/)
    .filter((segment) => segment !== '' && segment !== '.')
    .join('/')
}

/** One declared entrypoint whose value is an object, with the pointers rules report at. */
export interface DeclaredEntrypoint {
  rid: string
  entry: Record<string, unknown>
  pointer: string
  /** Pointer of `executable`. */
  executablePointer: string
  /** The executable when it is a string, else null. */
  executable: string | null
}

/** Every entrypoint whose value is an object, in document order. */
export function declaredEntrypoints(manifest: Readonly<Record<string, unknown>>): DeclaredEntrypoint[] {
  const entrypoints = member(manifest, 'entrypoints')
  if (!isRecord(entrypoints)) return []
  const declared: DeclaredEntrypoint[] = []
  for (const [rid, entry] of Object.entries(entrypoints)) {
    if (!isRecord(entry)) continue
    const pointer = childPointer('/entrypoints', rid)
    const executable = member(entry, 'executable')
    declared.push({rid, entry, pointer, executablePointer: `${pointer}/executable`, executable: typeof executable === 'string' ? executable : null})
  }
  return declared
}

/** The elements of the array at top-level property `key` with their pointers; empty when it is not an array. */
export function arrayItems(manifest: Readonly<Record<string, unknown>>, key: string): Array<{value: unknown; index: number; pointer: string}> {
  const items = member(manifest, key)
  if (!Array.isArray(items)) return []
  return items.map((value: unknown, index) => ({value, index, pointer: childPointer(`/${key}`, index)}))
}
