import path from 'node:path'
import ignore from 'ignore'
import {InputFileError, readInputFile} from '../fs/input.js'

/**
 * Which files of a plugin folder make up its package: the one rule `pack` packs by and `validate`
 * judges a folder by, so that both see the same files.
 */

/** The file of a plugin folder that lists what to leave out, in gitignore syntax. */
export const ignoreFileName = '.svcpluginignore'

/**
 * What becomes of one path of a plugin folder:
 * - `packed`: it is part of the package;
 * - `never-packed`: the root `manifest.json` (the packer writes its own), any `*.svcPlugin` (an
 *   artifact is never packed into another), `.git/` and the ignore file itself;
 * - `ignored`: `.svcpluginignore` lists it;
 * - `system-file`: a file the operating system leaves behind (`.DS_Store`, `Thumbs.db`, `desktop.ini`,
 *   `__MACOSX/`, `._*` AppleDouble files), left out and reported as left out.
 */
export type PackageFileDecision = 'packed' | 'never-packed' | 'ignored' | 'system-file'

/** Decides, for a `/`-separated path relative to the folder (a folder's with a trailing `/`), what becomes of it. */
export type PackageFileRule = (relativePath: string) => PackageFileDecision

// Names the Finder, Explorer and the macOS archiver leave in folders; no plugin needs them.
// Tested on the path as a whole (a walk asks once per entry of a tree of thousands): the names above as its
// last segment, the folders as any segment before it.
const systemFileNames = new Set(['.ds_store', 'thumbs.db', 'ehthumbs.db', 'desktop.ini', '.localized'])
const systemFolder = /(?:^|\/)(?:__macosx|\.spotlight-v100|\.trashes|\.fseventsd)\//i
const gitFolder = /(?:^|\/)\.git(?:\/|$)/

/** The last segment of a `/`-separated path (a folder's path ends in `/`: its segment is empty). */
function lastSegment(relativePath: string): string {
  return relativePath.slice(relativePath.lastIndexOf('/') + 1)
}

/** True for a file the operating system leaves behind in a folder (see {@link PackageFileDecision}). */
export function isSystemFile(relativePath: string): boolean {
  const name = lastSegment(relativePath)
  return systemFileNames.has(name.toLowerCase()) || name.startsWith('._') || systemFolder.test(relativePath)
}

/** True for a path that is never part of a package, whatever the ignore file says. */
export function isNeverPacked(relativePath: string): boolean {
  if (relativePath === 'manifest.json' || relativePath === ignoreFileName) return true
  if (gitFolder.test(relativePath)) return true
  return lastSegment(relativePath).toLowerCase().endsWith('.svcplugin')
}

/** Reads `<root>/.svcpluginignore` (when there is one) and returns the rule for the folder's paths. */
export async function readPackageFileRule(root: string): Promise<PackageFileRule> {
  // Without an ignore file nothing is ignored: no need to ask the matcher about every path.
  let ignored: ReturnType<typeof ignore> | null = null
  try {
    ignored = ignore().add((await readInputFile(path.join(root, ignoreFileName))).bytes.toString('utf8'))
  } catch (error) {
    if (!(error instanceof InputFileError && error.code === 'file-not-found')) throw error
  }
  return (relativePath) => {
    if (isNeverPacked(relativePath)) return 'never-packed'
    if (ignored?.ignores(relativePath) === true) return 'ignored'
    if (isSystemFile(relativePath)) return 'system-file'
    return 'packed'
  }
}
