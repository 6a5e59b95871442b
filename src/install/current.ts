import {isSemVer} from '../model/semver.js'
import {readTextOrNull, unlinkDurably, writeFileAtomic} from '../fs/durable.js'

/**
 * The active version named by `current.json`, or null when there is none. A file that does not parse or
 * names no SemVer version counts as none: it can only come from outside this library, which writes it
 * atomically (DESIGN §8).
 */
export async function readCurrentVersion(currentFile: string): Promise<string | null> {
  const text = await readTextOrNull(currentFile)
  if (text === null) return null
  try {
    const value: unknown = JSON.parse(text)
    const version = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['version'] : undefined
    return isSemVer(version) ? version : null
  } catch {
    return null
  }
}

/** Makes `version` the active one: `{"version":"<v>"}` written to a temporary file, flushed and renamed. */
export async function writeCurrentVersion(currentFile: string, version: string): Promise<void> {
  await writeFileAtomic(currentFile, `${JSON.stringify({version})}\n`)
}

/** Leaves no version active. */
export async function removeCurrentVersion(currentFile: string): Promise<void> {
  await unlinkDurably(currentFile)
}
