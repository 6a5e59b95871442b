import type {EntryDigest} from '../archive/types.js'
import type {FileDigest} from '../model/manifest.js'
import {isUnlistedEntry} from '../signing/files-check.js'

/** How one file disagrees with the manifest's `files[]` (the diagnostic codes of DESIGN §3). */
export type FileProblemCode = 'file-missing' | 'file-size-mismatch' | 'file-digest-mismatch' | 'undeclared-file'

/** One file that disagrees with `files[]`. */
export interface FileProblem {
  code: FileProblemCode
  path: string
  message: string
}

/**
 * Compares the real files with `files[]`, exhaustively (specification, `files`: the installer verifies
 * every entry and rejects any extracted file not listed): every listed path present with its size and
 * digest, and every present file listed except manifest.json and the certificate files (DESIGN §7.2).
 * Problems in path order.
 */
export function checkFileDigests(declared: readonly FileDigest[], actual: ReadonlyMap<string, EntryDigest>): FileProblem[] {
  const problems: FileProblem[] = []
  const listed = new Set<string>()
  for (const file of declared) {
    listed.add(file.path)
    const real = actual.get(file.path)
    if (real === undefined) {
      problems.push({code: 'file-missing', path: file.path, message: `${file.path} is listed in files[] but is not present.`})
    } else if (real.size !== file.size) {
      problems.push({code: 'file-size-mismatch', path: file.path, message: `${file.path} is ${real.size} bytes; files[] says ${file.size}.`})
    } else if (real.sha256 !== file.sha256) {
      problems.push({code: 'file-digest-mismatch', path: file.path, message: `${file.path} has digest ${real.sha256}; files[] says ${file.sha256}.`})
    }
  }
  for (const name of actual.keys()) {
    if (!listed.has(name) && !isUnlistedEntry(name)) {
      problems.push({code: 'undeclared-file', path: name, message: `${name} is present but not listed in files[].`})
    }
  }
  return problems.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
