import type {Stats} from 'node:fs'
import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {isTemporarySiblingOf} from '../fs/durable.js'
import {LockError, acquireLock, isProcessAlive, type LockHolder} from '../fs/lock.js'
import {unlink} from '../fs/mutations.js'
import {ensureRealDirectory, lstatOrNull, realDirectory, removeDirectoryIfEmpty, unsafeDataRoot} from './data-root.js'
import {InstallError} from './errors.js'
import {readTransaction} from './journal.js'
import {levels, pluginPaths} from './layout.js'
import {discard, listStaging, removeStagingOf, stagingOwner} from './staging.js'
import {applyTransaction} from './transaction.js'
import {bringToRest} from './at-rest.js'
import {readInstalledVersions} from './version-directories.js'

/** Options of every operation that changes a plugin. */
export interface LockOptions {
  /** How long to wait for another operation on the same plugin, in milliseconds (default 10 minutes). */
  lockTimeoutMs?: number
  /**
   * Called once when another operation on the plugin has held it for a second: the plugin, and the holder's
   * pid and host (null when they cannot be read), so that a caller can say what it waits for.
   */
  onLockWait?: (wait: {id: string; holder: LockHolder | null}) => void
}

/**
 * Runs `work` holding plugin `id`'s lock (one operation per id, different ids in parallel), after
 * finishing what a killed run left behind: a journalled install is carried to its end, temporary files,
 * staging directories and stray version directories of this id are removed, and so are the staging
 * leftovers of other ids whose lock is free. `plugins/` and `plugins/<id>` must be real directories
 * (`unsafe-data-root` otherwise). The plugin directory is removed afterwards when nothing is left in it.
 * `options.signal` ends a wait for the lock (its `AbortError`).
 */
export async function withPluginLock<T>(dataRoot: string, id: string, options: LockOptions & {signal?: AbortSignal | undefined}, work: () => Promise<T>): Promise<T> {
  const paths = pluginPaths(dataRoot, id)
  const ensureDirectory = () => ensureRealDirectory(dataRoot, levels.plugin(id))
  await ensureDirectory()
  // A link, a FIFO or a device where the lock goes is never anybody's lock: refused at once (unsafe-data-root).
  const unusable = (info: Stats) => unsafeDataRoot(paths.lock, info)
  const lock = await acquireLock(paths.lock, {timeoutMs: options.lockTimeoutMs, ensureDirectory, unusable, signal: options.signal, onWait: (holder) => options.onLockWait?.({id, holder})}).catch(async (error: unknown) => {
    // A wait given up (cancelled, or timed out) leaves no plugin directory that holds nothing.
    await removeDirectoryIfEmpty(dataRoot, levels.plugin(id))
    throw error
  })
  try {
    await recoverPlugin(dataRoot, id)
    await sweepOtherLeftovers(dataRoot, id)
    return await work()
  } finally {
    await lock.release()
    await removeDirectoryIfEmpty(dataRoot, levels.plugin(id))
  }
}

/**
 * Brings plugin `id` to a settled state; the caller holds its lock. A journalled install is applied (its
 * checks passed before the journal was written); leftovers of killed runs are removed: only names this
 * library makes, never a version directory `current.json` names; every version is brought to rest in
 * `versions/<version>` with `current.json` naming just the version.
 */
export async function recoverPlugin(dataRoot: string, id: string): Promise<void> {
  const transaction = await readTransaction(dataRoot, id, {drop: true})
  if (transaction !== null) {
    try {
      await applyTransaction(dataRoot, id, transaction)
    } catch (error) {
      // A re-read failure has undone the install and dropped the journal; anything else is the disk refusing.
      if (!(error instanceof InstallError && error.code === 'manifest-invalid')) throw error
    }
  }
  await removeTemporaries(dataRoot, id)
  await removeStagingOf(dataRoot, id)
  // A forced reinstall killed between promoting the new tree and discarding the old one leaves two
  // directories of one version; the one that holds it (current.json's, else the journal's) stays.
  const installed = await readInstalledVersions(dataRoot, id)
  for (const stray of installed.strays) await discard(dataRoot, id, levels.versions(id), stray)
  // A forced reinstall killed before its layout step leaves the new tree under `<version>_<n>` (so did
  // earlier versions of this library, for good): every version goes to rest in `versions/<version>`.
  await bringToRest(dataRoot, id)
  // An uninstall killed after moving out the last version leaves `versions/` empty; it holds no state.
  if (installed.taken.size === 0) await removeDirectoryIfEmpty(dataRoot, levels.versions(id))
}

// The files a plugin directory holds that are replaced atomically: their temporaries are leftovers.
const atomicallyWritten = ['current.json', 'trust.json', '.transaction.json']
// A lock moved aside by an earlier version of this library breaking a stale lock: `.lock.stale-<pid>-<12 hex>`.
const movedAsideLock = /^\.lock\.stale-(\d+)-[0-9a-f]{12}$/

/** Removes atomic-write temporaries, and locks an earlier version moved aside, in a plugin directory. */
async function removeTemporaries(dataRoot: string, id: string): Promise<void> {
  const root = await realDirectory(dataRoot, levels.plugin(id))
  if (root === null) return
  for (const name of await readdir(root)) {
    // Temporaries are written only under the lock, which we hold: any found is a killed run's. A lock moved
    // aside is left alone while the process that moved it still runs (it may link it back).
    const breaker = movedAsideLock.exec(name)
    const leftover = atomicallyWritten.some((file) => isTemporarySiblingOf(name, file)) || (breaker !== null && !isProcessAlive(Number(breaker[1])))
    if (!leftover) continue
    // Only files (or links, removed as links) are: a directory of such a name is nobody's temporary.
    if ((await lstatOrNull(path.join(root, name)))?.isDirectory() !== false) continue
    await realDirectory(dataRoot, levels.plugin(id))
    await unlink(path.join(root, name)).catch(() => undefined)
  }
}

/**
 * Removes the staging leftovers of other plugins whose lock can be taken at once (their owner is gone):
 * each is recovered first, since a journalled install's tree waits in its staging directory. Entries of
 * `_staging` that this library never creates are left alone. A plugin whose directory is not a real one
 * is skipped: its own operations refuse it.
 */
async function sweepOtherLeftovers(dataRoot: string, id: string): Promise<void> {
  const owners = new Set<string>()
  for (const name of await listStaging(dataRoot)) {
    const owner = stagingOwner(name)
    if (owner !== null && owner !== id) owners.add(owner)
  }
  for (const owner of owners) {
    const paths = pluginPaths(dataRoot, owner)
    let lock
    try {
      const ensureDirectory = () => ensureRealDirectory(dataRoot, levels.plugin(owner))
      await ensureDirectory()
      lock = await acquireLock(paths.lock, {timeoutMs: 0, ensureDirectory, unusable: (info) => unsafeDataRoot(paths.lock, info)})
    } catch (error) {
      if (error instanceof LockError || (error instanceof InstallError && error.code === 'unsafe-data-root')) continue
      throw error
    }
    try {
      await recoverPlugin(dataRoot, owner)
    } catch (error) {
      if (!(error instanceof InstallError && error.code === 'unsafe-data-root')) throw error
    } finally {
      await lock.release()
      await removeDirectoryIfEmpty(dataRoot, levels.plugin(owner))
    }
  }
}
