import type {EntryDigest} from '../archive/types.js'
import type {FileDigest} from '../model/manifest.js'
import {chainEntryNames} from '../pki/chain.js'
import {entryCollisionKey} from '../archive/path-policy.js'
import {compareEntryNames} from '../archive/writer.js'
import {problem, type VerifyProblem} from './result.js'

/** The archive entries `files[]` never lists (DESIGN §7.2): the manifest and the certificate files. */
const unlistedEntries: ReadonlySet<string> = new Set(['manifest.json', ...Object.values(chainEntryNames)])

/** True when `files[]` does not list entry `name` by design: manifest.json, certificate.* and issuer.*. */
export function isUnlistedEntry(name: string): boolean {
  return unlistedEntries.has(name)
}

const digestShape = /^sha256:[0-9a-f]{64}$/

/**
 * Why the manifest's `files` member cannot be compared with the archive (a sentence), or null: when
 * present it must be an array of objects with `path` (non-empty string), `sha256` (`sha256:` + 64
 * lowercase hex) and `size` (a non-negative integer). Absent means nothing is declared.
 */
export function checkFilesMember(manifest: Record<string, unknown>): string | null {
  if (!Object.hasOwn(manifest, 'files')) return null
  const files = manifest.files
  if (!Array.isArray(files)) return '"files" must be an array'
  const seen = new Map<string, number>()
  for (const [index, file] of files.entries()) {
    if (typeof file !== 'object' || file === null || Array.isArray(file)) return `files[${index}] must be an object`
    const {path, sha256, size} = file as Record<string, unknown>
    if (typeof path !== 'string' || path === '') return `files[${index}].path must be a non-empty string`
    if (typeof sha256 !== 'string' || !digestShape.test(sha256)) return `files[${index}].sha256 must be "sha256:" and 64 lowercase hex digits`
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return `files[${index}].size must be a non-negative integer`
    // Two listings of one entry (or of names the archive layer treats as one) would let one of them go unchecked.
    const key = entryCollisionKey(path)
    const earlier = seen.get(key)
    if (earlier !== undefined) return `files[${index}].path names the same entry as files[${earlier}].path`
    seen.set(key, index)
  }
  return null
}

/** The declared `files[]` of a manifest that passed `checkFilesMember`. */
export function declaredFiles(manifest: Record<string, unknown>): FileDigest[] {
  return (manifest.files as FileDigest[] | undefined) ?? []
}

/**
 * Compares `files[]` with the real entries (DESIGN §7.2: a signed artifact carries a complete list),
 * one step per code, first failure decides: `declared-file-missing` (a listed path is not an entry),
 * `file-size-mismatch`, `file-digest-mismatch`, `undeclared-file` (an entry other than manifest.json,
 * certificate.* and issuer.* that is not listed). `actual` holds every entry except manifest.json.
 */
export function checkDeclaredFiles(declared: readonly FileDigest[], actual: ReadonlyMap<string, Pick<EntryDigest, 'size' | 'sha256'>>): VerifyProblem | null {
  const missing = declared.find((file) => !actual.has(file.path))
  if (missing !== undefined) return problem('declared-file-missing', `${missing.path} is listed in files[] but is not in the artifact.`)
  const wrongSize = declared.find((file) => actual.get(file.path)?.size !== file.size)
  if (wrongSize !== undefined) {
    return problem('file-size-mismatch', `${wrongSize.path} has ${actual.get(wrongSize.path)?.size} bytes; files[] declares ${wrongSize.size}.`)
  }
  const wrongDigest = declared.find((file) => actual.get(file.path)?.sha256 !== file.sha256)
  if (wrongDigest !== undefined) return problem('file-digest-mismatch', `The SHA-256 of ${wrongDigest.path} is not the one files[] declares.`)
  const listed = new Set(declared.map((file) => file.path))
  const undeclared = [...actual.keys()].sort(compareEntryNames).find((name) => !listed.has(name) && !isUnlistedEntry(name))
  if (undeclared !== undefined) return problem('undeclared-file', `${undeclared} is in the artifact but not listed in files[].`)
  return null
}
