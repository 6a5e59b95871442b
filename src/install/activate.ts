import {resolveEntrypoint} from '../model/entrypoint.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import type {TrustStore} from '../pki/trust.js'
import type {RevocationList} from '../revocation/list.js'
import {checkContents, type VerifyContext} from '../signing/verify.js'
import {writeCurrent} from './current.js'
import {ensureRealDirectory, requireDataRoot} from './data-root.js'
import {admit} from './admission.js'
import {asInstallError} from './errors.js'
import {readInstalledContents, readInstalledManifest} from './installed-manifest.js'
import {assertPluginId, assertVersion, levels, pluginPaths} from './layout.js'
import {withPluginLock, type LockOptions} from './locked.js'
import {revocationContext} from './revocation-state.js'
import {assertNoTrustDowngrade, readTrustRecord} from './trust-record.js'
import type {ActivateResult} from './types.js'
import {readInstalledVersions, resolveInstalledVersion, type InstalledVersion} from './version-directories.js'

/** Options of {@link activate}. */
export interface ActivateOptions extends LockOptions {
  /** The host's runtime identifier for the returned entrypoint; default `hostRid()`. */
  hostRid?: string
  /** The roots a given revocation list must be signed by; default none. */
  trust?: TrustStore
  /**
   * A root-signed revocation list, verified against `trust` and recorded as at install. Every list the data
   * root has recorded applies in any case.
   */
  revocations?: RevocationList
  /** Apply a given list past its nextUpdate instead of refusing it with `revocation-list-stale`. */
  allowStaleRevocations?: boolean
  /** The clock revocations are judged at; default now. */
  now?: Date
}

/**
 * Makes an installed version the active one (rollback). The version's manifest is re-read with its
 * directory's identity; a version admitted with less trust than the plugin now has is refused
 * (`trust-downgrade`): a plugin once Trusted never rolls back to an unsigned build; and a signed version
 * that a revocation list recorded in the data root (or the one given, recorded first) revokes is refused
 * (`signature-revoked`). `current.json` is switched in one atomic write. Throws `not-installed`,
 * `version-not-installed`, `manifest-invalid`, `trust-downgrade`, `signature-revoked`, `unsafe-data-root`,
 * and the list's refusals.
 */
export async function activate(dataRoot: string, id: string, version: string, options: ActivateOptions = {}): Promise<ActivateResult> {
  assertPluginId(id)
  assertVersion(version)
  try {
    await requireDataRoot(dataRoot)
    const context = await revocationContext(dataRoot, {...options, now: options.now ?? new Date()})
    return await withPluginLock(dataRoot, id, options, async () => {
      const paths = pluginPaths(dataRoot, id)
      const target = await resolveInstalledVersion(dataRoot, id, version)
      const {manifest, bytes} = await readInstalledManifest(target.directory, id)
      const record = await readTrustRecord(paths.trust)
      assertNoTrustDowngrade(record, record?.versions[version]?.verdict ?? 'Unsigned', id, `version ${version}`)
      await assertNotRevoked(target, id, bytes, context)
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

/**
 * Refuses (`signature-revoked`) a version whose signature a revocation list revokes. The version's files are
 * checked as the checklist checks an artifact, except the link to a root (the trust store may not be
 * given; the version chained to one when it was installed). Any other verdict is the launch gate's to
 * report. Without any list there is nothing to check.
 */
async function assertNotRevoked(target: InstalledVersion, id: string, manifestBytes: Uint8Array, context: VerifyContext): Promise<void> {
  if (context.revocations === null && (context.recordedRevocations ?? []).length === 0) return
  const {contents} = await readInstalledContents(target.directory, manifestBytes)
  const result = checkContents(contents, {...context, trust: null})
  // The same refusal as an install's of a Revoked artifact.
  if (result.verdict === 'Revoked') admit(result, {subject: `${id} ${target.version}`})
}
