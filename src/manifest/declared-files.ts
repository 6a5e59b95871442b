import {undeclaredEntryAdvice} from '../archive/foreign.js'
import {compareEntryNames} from '../archive/names.js'
import {entryCollisionKey} from '../archive/path-policy.js'
import type {FileDigest} from '../model/manifest.js'
import {fileProblemCodes, type FileProblemCode} from '../model/file-problems.js'
import {signingEntryNames} from '../model/signing-files.js'

/**
 * The one comparison of a manifest's `files[]` with the files a package really holds, used by the
 * validator, verification, install, the launch check, merge and the store alike: one vocabulary
 * (`file-missing`, `file-size-mismatch`, `file-digest-mismatch`, `undeclared-file`), one rule for which
 * files `files[]` never lists. See docs/artifact-format.md ("files[]").
 */

/** The manifest itself: `files[]` never lists it. */
export const manifestEntryName = 'manifest.json'

export {fileProblemCodes, type FileProblemCode}

/** One file that disagrees with `files[]`. */
export interface FileProblem {
  code: FileProblemCode
  /** The file's path, as an archive entry name. */
  path: string
  /** Its position in `files[]`; null for an undeclared file. */
  index: number | null
  /** A plain sentence naming the file. */
  message: string
}

/** Size and, when it was computed, digest of one real file. */
export interface ActualFile {
  size: number
  /** `sha256:` + 64 lowercase hex digits; absent when only sizes are known (nothing is then said of content). */
  sha256?: string
}

/** How to compare. */
export interface CompareFilesOptions {
  /** Also report every real file that `files[]` does not list (artifacts and installed versions; not source folders). */
  exhaustive: boolean
  /** The manifest carries a `signature`: only then are the signing files exempt from the exhaustive check. */
  signed: boolean
}

/** True when `files[]` does not list `name` by design: the manifest, and in a signed package the signing files. */
export function isExemptFromFiles(name: string, signed: boolean): boolean {
  return name === manifestEntryName || (signed && signingEntryNames.includes(name))
}

/**
 * Compares `declared` (the `files[]` entries, null for one that is not well-formed and so cannot be
 * compared) with the real files: every listed path present, with the listed size and digest; with
 * `exhaustive`, every real file listed (except those {@link isExemptFromFiles}). Problems come in `files[]`
 * order, then the undeclared files in path order.
 */
export function compareDeclaredFiles(declared: ReadonlyArray<FileDigest | null>, actual: ReadonlyMap<string, ActualFile>, options: CompareFilesOptions): FileProblem[] {
  const problems: FileProblem[] = []
  const listed = new Set<string>()
  declared.forEach((file, index) => {
    if (file === null) return
    listed.add(file.path)
    const real = actual.get(file.path)
    if (real === undefined) {
      problems.push({code: 'file-missing', path: file.path, index, message: `${listedAs(index, file.path)} is listed but not present.`})
    } else if (real.size !== file.size) {
      problems.push({code: 'file-size-mismatch', path: file.path, index, message: `${listedAs(index, file.path)} is listed with ${file.size} bytes but has ${real.size}.`})
    } else if (real.sha256 !== undefined && real.sha256 !== file.sha256) {
      problems.push({code: 'file-digest-mismatch', path: file.path, index, message: `${listedAs(index, file.path)} is listed with ${file.sha256} but its bytes hash to ${real.sha256}.`})
    }
  })
  if (!options.exhaustive) return problems
  const undeclared = [...actual.keys()].filter((name) => !listed.has(name) && !isExemptFromFiles(name, options.signed)).sort(compareEntryNames)
  for (const name of undeclared) {
    problems.push({code: 'undeclared-file', path: name, index: null, message: `${JSON.stringify(name)} is present but not listed in files[].${undeclaredEntryAdvice(name)}`})
  }
  return problems
}

/** How a problem names the `files[]` entry it is about (made only for a problem: 20,000 matching files make no text). */
function listedAs(index: number, path: string): string {
  return `files[${index}] ${JSON.stringify(path)}`
}

/** The problem a first-failure check reports: the earliest by {@link fileProblemCodes} order, then by position. */
export function decidingFileProblem(problems: readonly FileProblem[]): FileProblem | null {
  for (const code of fileProblemCodes) {
    const found = problems.find((problem) => problem.code === code)
    if (found !== undefined) return found
  }
  return null
}

const digestShape = /^sha256:[0-9a-f]{64}$/

/**
 * Why the `files` member cannot be compared with a package (a phrase), or null: when present it must be an
 * array of `{path: non-empty string, sha256: "sha256:" + 64 lowercase hex, size: integer >= 0}`, no two
 * paths naming one entry (equal case-insensitively or after NFC). Absent means nothing is declared.
 */
export function checkFilesShape(manifest: Record<string, unknown>): string | null {
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
    // Two listings of one entry would let one of them go unchecked.
    const key = entryCollisionKey(path)
    const earlier = seen.get(key)
    if (earlier !== undefined) return `files[${index}].path names the same entry as files[${earlier}].path`
    seen.set(key, index)
  }
  return null
}

/** The declared `files[]` of a manifest that passed {@link checkFilesShape}. */
export function declaredFilesOf(manifest: Record<string, unknown>): FileDigest[] {
  return (manifest.files as FileDigest[] | undefined) ?? []
}
