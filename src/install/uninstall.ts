import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {readCurrentVersion, removeCurrentVersion} from './current.js'
import {hasErrno} from '../fs/durable.js'
import {InstallError, asInstallError} from './errors.js'
import {readActivePlugins} from './installed.js'
import {assertPluginId, pluginPaths} from './layout.js'
import {withPluginLock, type LockOptions} from './locked.js'
import {sortVersionsDescending} from './prune.js'
import {dependentsOf} from './relations.js'
import {discard} from './staging.js'
import {installedVersionNames} from './transaction.js'
import {forgetVersions, readTrustRecord, writeTrustRecord} from './trust-record.js'
import type {UninstallResult} from './types.js'

/** Options of {@link uninstall}. */
export interface UninstallOptions extends LockOptions {
  /** Uninstall even though other installed plugins depend on this one. */
  force?: boolean
  /** Also remove the plugin's data directory and its trust record. */
  purge?: boolean
}

/**
 * Uninstalls every version of a plugin (DESIGN §8). Refuses (`dependency-in-use`) while another active
 * plugin hard-depends on it, unless `force`. The active version is deactivated first (`current.json`
 * removed), then `versions/` leaves by one rename. `data/` and the trust record stay unless `purge`: a
 * plugin once admitted Trusted stays so for its next install. Throws `not-installed`.
 */
export async function uninstall(dataRoot: string, id: string, options: UninstallOptions = {}): Promise<UninstallResult> {
  assertPluginId(id)
  try {
    return await withPluginLock(dataRoot, id, options, async () => {
      const paths = pluginPaths(dataRoot, id)
      const versions = sortVersionsDescending(await installedVersionNames(paths.versions))
      const leftovers = await pluginEntries(paths.root)
      if (versions.length === 0 && !(options.purge === true && leftovers.length > 0)) {
        throw new InstallError('not-installed', `${id} is not installed.`, {details: {id}})
      }
      const dependents = dependentsOf(id, await readActivePlugins(dataRoot, id))
      if (dependents.length > 0 && options.force !== true) {
        throw new InstallError('dependency-in-use', `${dependents.join(', ')} depend${dependents.length === 1 ? 's' : ''} on ${id}; uninstall ${dependents.length === 1 ? 'it' : 'them'} first or force.`, {
          details: {id, dependents},
        })
      }
      const active = await readCurrentVersion(paths.current)
      const previousVersion = active !== null && versions.includes(active) ? active : null
      // Deactivate first: from here on a host sees the plugin as not installed, whatever happens next.
      await removeCurrentVersion(paths.current)
      await discard(dataRoot, id, paths.versions)
      if (options.purge === true) {
        for (const name of await pluginEntries(paths.root)) await discard(dataRoot, id, path.join(paths.root, name))
      } else {
        const record = await readTrustRecord(paths.trust)
        if (record !== null) await writeTrustRecord(paths.trust, forgetVersions(record, []))
      }
      return {id, removedVersions: versions, previousVersion, purged: options.purge === true, dependents}
    })
  } catch (error) {
    throw asInstallError(error)
  }
}

/** What a plugin directory holds besides its lock. */
async function pluginEntries(root: string): Promise<string[]> {
  try {
    return (await readdir(root)).filter((name) => name !== '.lock')
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return []
    throw error
  }
}
