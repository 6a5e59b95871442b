import {isSemVer} from '../model/semver.js'
import {unlinkDurably} from '../fs/durable.js'
import {writeFileAtomic} from '../fs/output.js'
import {readStateFile} from './data-root.js'
import {versionOfDirectory} from './layout.js'

/** What `current.json` says: the active version and the name of the directory under `versions/` holding it. */
export interface CurrentVersion {
  version: string
  /** `<version>`, or `<version>_<n>` while a forced reinstall passes through it (docs/data-root.md). */
  directory: string
}

/**
 * The active version named by `current.json`, or null when there is none: `{"version": "<v>"}`, plus
 * `"directory"` when the directory is not named `<v>`. A file that does not parse, names no SemVer
 * version or a directory that cannot hold that version counts as none: it can only come from outside
 * this library, which writes it atomically.
 */
export async function readCurrent(currentFile: string): Promise<CurrentVersion | null> {
  const text = await readStateFile(currentFile)
  if (text === null) return null
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null) return null
    const {version, directory} = value as Record<string, unknown>
    if (!isSemVer(version)) return null
    if (directory === undefined) return {version, directory: version}
    return typeof directory === 'string' && versionOfDirectory(directory) === version ? {version, directory} : null
  } catch {
    return null
  }
}

/**
 * Makes a version directory the active one in one atomic step: the file is written to a temporary
 * sibling, flushed and renamed, so a reader sees the old choice or the new one, never a torn file.
 */
export async function writeCurrent(currentFile: string, current: CurrentVersion): Promise<void> {
  const content = current.directory === current.version ? {version: current.version} : {version: current.version, directory: current.directory}
  await writeFileAtomic(currentFile, `${JSON.stringify(content)}\n`)
}

/** Leaves no version active. */
export async function removeCurrent(currentFile: string): Promise<void> {
  await unlinkDurably(currentFile)
}
