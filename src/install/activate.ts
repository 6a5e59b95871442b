import {resolveEntrypoint} from '../model/entrypoint.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import {writeCurrent} from './current.js'
import {ensureRealDirectory, requireDataRoot} from './data-root.js'
import {asInstallError} from './errors.js'
import {readInstalledManifest} from './installed-manifest.js'
import {assertPluginId, assertVersion, levels, pluginPaths} from './layout.js'
import {withPluginLock, type LockOptions} from './locked.js'
import {assertNoTrustDowngrade, readTrustRecord} from './trust-record.js'
import type {ActivateResult} from './types.js'
import {readInstalledVersions, resolveInstalledVersion} from './version-directories.js'

/** Options of {@link activate}. */
export interface ActivateOptions extends LockOptions {
  /** The host's runtime identifier for the returned entrypoint; default `hostRid()`. */
  hostRid?: string
}

/**
 * Makes an installed version the active one (rollback). The version's manifest is re-read with its
 * directory's identity, and a version admitted with less trust than the plugin now has is refused
 * (`trust-downgrade`): a plugin once Trusted never rolls back to an unsigned build. `current.json` is
 * switched in one atomic write. Throws `not-installed`, `version-not-installed`, `manifest-invalid`,
 * `trust-downgrade`, `unsafe-data-root`.
 */
export async function activate(dataRoot: string, id: string, version: string, options: ActivateOptions = {}): Promise<ActivateResult> {
  assertPluginId(id)
  assertVersion(version)
  try {
    await requireDataRoot(dataRoot)
    return await withPluginLock(dataRoot, id, options, async () => {
      const paths = pluginPaths(dataRoot, id)
      const target = await resolveInstalledVersion(dataRoot, id, version)
      const {manifest} = await readInstalledManifest(target.directory, id)
      const record = await readTrustRecord(paths.trust)
      assertNoTrustDowngrade(record, record?.versions[version]?.verdict ?? 'Unsigned', id, `version ${version}`)
      const previous = (await readInstalledVersions(dataRoot, id)).active
      if (previous?.version !== version || previous.directory !== target.name) {
        await ensureRealDirectory(dataRoot, levels.plugin(id))
        await writeCurrent(paths.current, {version, directory: target.name})
      }
      return {
        id,
        version,
        directory: target.directory,
        previousVersion: previous?.version ?? null,
        entrypoint: resolveEntrypoint(manifest, options.hostRid ?? currentHostRid()),
      }
    })
  } catch (error) {
    throw asInstallError(error)
  }
}
