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
const systemFileNames = new Set(['.ds_store', 'thumbs.db', 'ehthumbs.db', 'desktop.ini', '.localized'])
const systemFolderNames = new Set(['__macosx', '.spotlight-v100', '.trashes', '.fseventsd'])

/** True for a file the operating system leaves behind in a folder (see {@link PackageFileDecision}). */
export function isSystemFile(relativePath: string): boolean {
  const segments = relativePath.split('/')
  const name = segments.at(-1)!
  return systemFileNames.has(name.toLowerCase()) || name.startsWith('._') || segments.slice(0, -1).some((segment) => systemFolderNames.has(segment.toLowerCase()))
}

/** True for a path that is never part of a package, whatever the ignore file says. */
export function isNeverPacked(relativePath: string): boolean {
  if (relativePath === 'manifest.json' || relativePath === ignoreFileName) return true
  const segments = relativePath.split('/')
  if (segments.includes('.git')) return true
  return segments.at(-1)!.toLowerCase().endsWith('.svcplugin')
}

/** Reads `<root>/.svcpluginignore` (when there is one) and returns the rule for the folder's paths. */
export async function readPackageFileRule(root: string): Promise<PackageFileRule> {
  const ignored = ignore()
  try {
    ignored.add((await readInputFile(path.join(root, ignoreFileName))).bytes.toString('utf8'))
  } catch (error) {
    if (!(error instanceof InputFileError && error.code === 'file-not-found')) throw error
  }
  return (relativePath) => {
    if (isNeverPacked(relativePath)) return 'never-packed'
    if (ignored.ignores(relativePath)) return 'ignored'
    if (isSystemFile(relativePath)) return 'system-file'
    return 'packed'
  }
}
