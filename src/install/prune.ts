import {compareSemVer} from '../model/semver.js'

/** Installed versions, newest first by SemVer precedence (ties, which differ only in build metadata, by name). */
export function sortVersionsDescending(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => compareSemVer(b, a) || (a < b ? 1 : a > b ? -1 : 0))
}

/**
 * The versions pruning removes: everything except those in `keep` (the active one, the previous
 * one, the one just installed) and the `retain` newest of the rest.
 */
export function selectPrunable(installed: readonly string[], keep: ReadonlyArray<string | null>, retain: number): string[] {
  const kept = new Set(keep.filter((version): version is string => version !== null))
  return sortVersionsDescending(installed.filter((version) => !kept.has(version))).slice(Math.max(0, retain))
}
