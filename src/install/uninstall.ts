import path from 'node:path'
import {removeCurrent} from './current.js'
import {lstatOrNull, realDirectory, removeDirectoryIfEmpty, requireDataRoot} from './data-root.js'
import {InstallError, asInstallError} from './errors.js'
import {readActivePlugins} from './installed.js'
import {assertPluginId, levels, pluginPaths} from './layout.js'
import {withPluginLock, type LockOptions} from './locked.js'
import {dependentsOf} from './relations.js'
import {discard} from './staging.js'
import {forgetVersions, readTrustRecord, writeTrustRecord} from './trust-record.js'
import type {UninstallResult} from './types.js'
import {readInstalledVersions} from './version-directories.js'

/** Options of {@link uninstall}. */
export interface UninstallOptions extends LockOptions {
  /** Uninstall even though other installed plugins depend on this one. */
  force?: boolean
  /** Also remove the plugin's data directory and its trust record. */
  purge?: boolean
}

// What a purge removes from a plugin directory besides the versions: the names this library creates there
// (the lock goes with the operation, temporaries with the recovery before it). Anything else stays.
const purgedNames = ['current.json', 'trust.json', 'data', '.transaction.json']

/**
 * Uninstalls every version of a plugin. Refuses (`dependency-in-use`) while another active plugin
 * hard-depends on it, unless `force`. The active version is deactivated first (`current.json` removed),
 * then each version directory leaves by one rename (and `versions/` once it is empty). `data/` and the
 * trust record stay unless `purge`: a plugin once admitted Trusted stays so for its next install. A purge
 * moves each of the plugin's own entries out by one rename and deletes it there: a `data` that is a
 * symbolic link is removed as a link, and what it points to is left as it is. Only names this library
 * creates are removed. Throws `not-installed`, `unsafe-data-root`.
 */
export async function uninstall(dataRoot: string, id: string, options: UninstallOptions = {}): Promise<UninstallResult> {
  assertPluginId(id)
  try {
    await requireDataRoot(dataRoot)
    return await withPluginLock(dataRoot, id, options, async () => {
      const paths = pluginPaths(dataRoot, id)
      const installed = await readInstalledVersions(dataRoot, id)
      const versions = [...installed.directories.keys()]
      const leftovers = await purgeableEntries(dataRoot, id)
      if (versions.length === 0 && !(options.purge === true && leftovers.length > 0)) {
        throw new InstallError('not-installed', `${id} is not installed.`, {details: {id}})
      }
      const dependents = dependentsOf(id, await readActivePlugins(dataRoot, id))
      if (dependents.length > 0 && options.force !== true) {
        throw new InstallError('dependency-in-use', `${dependents.join(', ')} depend${dependents.length === 1 ? 's' : ''} on ${id}; uninstall ${dependents.length === 1 ? 'it' : 'them'} first.`, {
          details: {id, dependents},
        })
      }
      // Deactivate first: from here on a host sees the plugin as not installed, whatever happens next.
      if ((await realDirectory(dataRoot, levels.plugin(id))) !== null) await removeCurrent(paths.current)
      for (const name of [...installed.directories.values(), ...installed.strays]) await discard(dataRoot, id, levels.versions(id), name)
      await removeDirectoryIfEmpty(dataRoot, levels.versions(id))
      if (options.purge === true) {
        for (const name of await purgeableEntries(dataRoot, id)) await discard(dataRoot, id, levels.plugin(id), name)
      } else {
        const record = await readTrustRecord(paths.trust)
        if (record !== null && (await realDirectory(dataRoot, levels.plugin(id))) !== null) await writeTrustRecord(paths.trust, forgetVersions(record, []))
      }
      return {id, removedVersions: versions, previousVersion: installed.active?.version ?? null, purged: options.purge === true, dependents}
    })
  } catch (error) {
    throw asInstallError(error)
  }
}

/** The entries of the plugin directory a purge removes that are there. */
async function purgeableEntries(dataRoot: string, id: string): Promise<string[]> {
  const root = await realDirectory(dataRoot, levels.plugin(id))
  if (root === null) return []
  const present: string[] = []
  for (const name of purgedNames) if ((await lstatOrNull(path.join(root, name))) !== null) present.push(name)
  return present
}
