import {readdir} from 'node:fs/promises'
import {readCurrent, type CurrentVersion} from './current.js'
import {assertDirectoryOrAbsent, realDirectory} from './data-root.js'
import {InstallError, asInstallError} from './errors.js'
import {readTransaction} from './journal.js'
import {assertPluginId, assertVersion, levels, pluginPaths, versionOfDirectory, versionPath} from './layout.js'
import {sortVersionsDescending} from './prune.js'

/**
 * The version directories of one plugin and which one holds each version. At rest a version has one
 * directory, `<version>`; a forced reinstall briefly has two (the old tree and the new one under
 * `<version>_<n>`, docs/data-root.md), and a process killed in between may leave both until the next
 * operation on the plugin recovers.
 */
export interface InstalledVersions {
  /** Each installed version (newest first) and the name of the directory that holds it. */
  directories: Map<string, string>
  /** The active version, when `current.json` names a version directory that exists. */
  active: CurrentVersion | null
  /** Version directories that are not the one holding their version: what a killed replacement left. */
  strays: string[]
  /** Every name under `versions/`, whatever it is: a new directory name must differ from all of them. */
  taken: Set<string>
}

/**
 * Reads which directory holds each installed version of plugin `id`; every reader and writer of version
 * directories goes through this one function. For each version: the directory `current.json` names when
 * it is the active one (or `<version>`, when the layout step has just moved it there, see `activeOf`);
 * else the directory a pending install journal promotes it into, once that exists; else `<version>`, or
 * the `<version>_<n>` with the lowest `n`. Only names of version directories count. Throws `unsafe-data-root`
 * when `plugins/<id>` or `versions` is not a real directory, or when something named like a version
 * directory is not one (a symbolic link, a file).
 */
export async function readInstalledVersions(dataRoot: string, id: string): Promise<InstalledVersions> {
  const versionsDir = await realDirectory(dataRoot, levels.versions(id))
  const entries = versionsDir === null ? [] : await readdir(versionsDir, {withFileTypes: true})
  const byVersion = new Map<string, string[]>()
  for (const entry of entries) {
    const version = versionOfDirectory(entry.name)
    if (version === null) continue
    // A link (or anything else) named like a version directory would be taken for the version by whoever
    // joins `versions/<version>` itself: refused, as a link at any level is.
    if (!entry.isDirectory()) {
      await assertDirectoryOrAbsent(versionPath(dataRoot, id, entry.name))
      continue
    }
    byVersion.set(version, [...(byVersion.get(version) ?? []), entry.name])
  }
  const active = activeOf(await readCurrent(pluginPaths(dataRoot, id).current), byVersion)
  const pending = await readTransaction(dataRoot, id)
  const directories = new Map<string, string>()
  const strays: string[] = []
  for (const version of sortVersionsDescending([...byVersion.keys()])) {
    const names = byVersion.get(version) as string[]
    let chosen: string
    if (active?.version === version) chosen = active.directory
    else if (pending?.version === version && names.includes(pending.directory)) chosen = pending.directory
    else chosen = names.sort(byDirectoryNumber)[0] as string
    directories.set(version, chosen)
    strays.push(...names.filter((name) => name !== chosen))
  }
  return {directories, active, strays, taken: new Set(entries.map((entry) => entry.name))}
}

/**
 * The active version: the directory `current.json` names, when it exists. When it names a
 * `<version>_<n>` that is gone while `<version>` exists, the layout step has just moved the tree there
 * and not yet rewritten `current.json` (at-rest.ts): the version is active in `<version>`.
 */
function activeOf(current: CurrentVersion | null, byVersion: ReadonlyMap<string, string[]>): CurrentVersion | null {
  if (current === null) return null
  const names = byVersion.get(current.version) ?? []
  if (names.includes(current.directory)) return current
  return names.includes(current.version) ? {version: current.version, directory: current.version} : null
}

/** `<version>` before `<version>_1` before `<version>_2`, … */
function byDirectoryNumber(a: string, b: string): number {
  const number = (name: string): number => (name.includes('_') ? Number(name.slice(name.indexOf('_') + 1)) : 0)
  return number(a) - number(b)
}

/** The directory holding an installed version. */
export interface InstalledVersion {
  version: string
  /** Its name under `versions/`. */
  name: string
  /** Its full path. */
  directory: string
}

/**
 * The directory holding `version` of plugin `id` (the active one when `version` is omitted). Throws
 * `not-installed` when no version is installed, `version-not-installed` when this one is not (or none is
 * active), `unsafe-data-root`.
 */
export async function resolveInstalledVersion(dataRoot: string, id: string, version?: string): Promise<InstalledVersion> {
  const installed = await readInstalledVersions(dataRoot, id)
  const versions = [...installed.directories.keys()]
  if (versions.length === 0) throw new InstallError('not-installed', `${id} is not installed.`, {details: {id}})
  const chosen = version ?? installed.active?.version
  if (chosen === undefined) throw new InstallError('version-not-installed', `${id} has no active version; name one.`, {details: {id, installed: versions}})
  const name = installed.directories.get(chosen)
  if (name === undefined) throw new InstallError('version-not-installed', `${id} ${chosen} is not installed.`, {details: {id, version: chosen, installed: versions}})
  return {version: chosen, name, directory: versionPath(dataRoot, id, name)}
}

/**
 * The full path of the directory holding `version` of plugin `id`, or null when it is not installed: a
 * host launching a plugin asks here rather than joining the version to a path itself, since a forced
 * reinstall passes through `versions/<version>_<n>`. Throws `invalid-argument`, `unsafe-data-root`.
 */
export async function versionDirectory(dataRoot: string, id: string, version: string): Promise<string | null> {
  assertPluginId(id)
  assertVersion(version)
  try {
    const name = (await readInstalledVersions(dataRoot, id)).directories.get(version)
    return name === undefined ? null : versionPath(dataRoot, id, name)
  } catch (error) {
    throw asInstallError(error)
  }
}
