import {resolveEntrypoint} from '../model/entrypoint.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import {readCurrentVersion, writeCurrentVersion} from './current.js'
import {isDirectory} from '../fs/durable.js'
import {InstallError, asInstallError} from './errors.js'
import {readInstalledManifest} from './installed-manifest.js'
import {assertPluginId, assertVersion, pluginPaths, versionDir} from './layout.js'
import {withPluginLock, type LockOptions} from './locked.js'
import {installedVersionNames} from './transaction.js'
import {assertNoTrustDowngrade, readTrustRecord} from './trust-record.js'
import type {ActivateResult} from './types.js'

/** Options of {@link activate}. */
export interface ActivateOptions extends LockOptions {
  /** The host's runtime identifier for the returned entrypoint; default `hostRid()`. */
  hostRid?: string
}

/**
 * Makes an installed version the active one (DESIGN §8: rollback). The version's manifest is re-read with
 * its directory's identity, and a version admitted with less trust than the plugin now has is refused
 * (`trust-downgrade`): a plugin once Trusted never rolls back to an unsigned build. Throws
 * `not-installed`, `version-not-installed`, `manifest-invalid`, `trust-downgrade`.
 */
export async function activate(dataRoot: string, id: string, version: string, options: ActivateOptions = {}): Promise<ActivateResult> {
  assertPluginId(id)
  assertVersion(version)
  try {
    return await withPluginLock(dataRoot, id, options, async () => {
      const paths = pluginPaths(dataRoot, id)
      const dir = versionDir(dataRoot, id, version)
      await assertVersionInstalled(paths.versions, dir, id, version)
      const {manifest} = await readInstalledManifest(dir, id, version)
      const record = await readTrustRecord(paths.trust)
      assertNoTrustDowngrade(record, record?.versions[version]?.verdict ?? 'Unsigned', id, `version ${version}`)
      const previousVersion = await readCurrentVersion(paths.current)
      if (previousVersion !== version) await writeCurrentVersion(paths.current, version)
      return {id, version, previousVersion, entrypoint: resolveEntrypoint(manifest, options.hostRid ?? currentHostRid())}
    })
  } catch (error) {
    throw asInstallError(error)
  }
}

/** Throws `not-installed` when no version of the plugin is installed, `version-not-installed` when this one is not. */
export async function assertVersionInstalled(versionsDir: string, dir: string, id: string, version: string): Promise<void> {
  if (await isDirectory(dir)) return
  const installed = await installedVersionNames(versionsDir)
  if (installed.length === 0) throw new InstallError('not-installed', `${id} is not installed.`, {details: {id}})
  throw new InstallError('version-not-installed', `${id} ${version} is not installed.`, {details: {id, version, installed}})
}
