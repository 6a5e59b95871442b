import {readdir, rmdir, unlink} from 'node:fs/promises'
import path from 'node:path'
import {hasErrno} from '../fs/durable.js'
import {InstallError} from './errors.js'
import {pluginPaths, stagingRoot} from './layout.js'
import {LockError, acquireLock, isProcessAlive} from '../fs/lock.js'
import {listStaging, removeStagingOf, removeTree, stagingOwner} from './staging.js'
import {applyTransaction, readTransaction} from './transaction.js'

/** Options of every operation that changes a plugin. */
export interface LockOptions {
  /** How long to wait for another operation on the same plugin, in milliseconds (default 10 minutes). */
  lockTimeoutMs?: number
}

/**
 * Runs `work` holding plugin `id`'s lock (DESIGN §8: one operation per id, different ids in parallel),
 * after finishing what a killed run left behind: a journalled install is carried to its end, temporary
 * files and staging directories of this id are removed, and so are those of other ids whose lock is free.
 * The plugin directory is removed afterwards when nothing is left in it.
 */
export async function withPluginLock<T>(dataRoot: string, id: string, options: LockOptions, work: () => Promise<T>): Promise<T> {
  const paths = pluginPaths(dataRoot, id)
  const lock = await acquireLock(paths.lock, {timeoutMs: options.lockTimeoutMs})
  try {
    await recoverPlugin(dataRoot, id)
    await sweepOtherLeftovers(dataRoot, id)
    return await work()
  } finally {
    await lock.release()
    await removeDirectoryIfEmpty(paths.root)
  }
}

/**
 * Brings plugin `id` to a settled state; the caller holds its lock. A journalled install is applied (its
 * checks passed before the journal was written); leftovers of killed runs are removed.
 */
export async function recoverPlugin(dataRoot: string, id: string): Promise<void> {
  const paths = pluginPaths(dataRoot, id)
  const transaction = await readTransaction(dataRoot, id, {drop: true})
  if (transaction !== null) {
    try {
      await applyTransaction(dataRoot, id, transaction)
    } catch (error) {
      // A re-read failure has undone the install and dropped the journal; anything else is the disk refusing.
      if (!(error instanceof InstallError && error.code === 'manifest-invalid')) throw error
    }
  }
  await removeTemporaries(paths.root)
  await removeStagingOf(dataRoot, id)
}

/** Removes atomic-write temporaries (`.<name>.<pid>.<random>.tmp`) and abandoned moved-aside locks in a plugin directory. */
async function removeTemporaries(root: string): Promise<void> {
  let names: string[]
  try {
    names = await readdir(root)
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return
    throw error
  }
  for (const name of names) {
    // Temporaries are written only under the lock, which we hold: any found is a killed run's. A lock moved
    // aside is left alone while the process breaking it still runs (it may have to link it back).
    const breaker = /^\.lock\.stale-(\d+)-/.exec(name)
    const leftover = (name.startsWith('.') && name.endsWith('.tmp')) || (breaker !== null && !isProcessAlive(Number(breaker[1])))
    if (leftover) await unlink(path.join(root, name)).catch(() => undefined)
  }
}

/**
 * Removes the staging leftovers of other plugins whose lock can be taken at once (their owner is gone):
 * each is recovered first, since a journalled install's tree waits in its staging directory. Entries of
 * `_staging` that this library never creates are removed too.
 */
async function sweepOtherLeftovers(dataRoot: string, id: string): Promise<void> {
  const owners = new Set<string>()
  for (const name of await listStaging(dataRoot)) {
    const owner = stagingOwner(name)
    if (owner === null) await removeTree(path.join(stagingRoot(dataRoot), name))
    else if (owner !== id) owners.add(owner)
  }
  for (const owner of owners) {
    const paths = pluginPaths(dataRoot, owner)
    let lock
    try {
      lock = await acquireLock(paths.lock, {timeoutMs: 0})
    } catch (error) {
      if (error instanceof LockError) continue
      throw error
    }
    try {
      await recoverPlugin(dataRoot, owner)
    } finally {
      await lock.release()
      await removeDirectoryIfEmpty(paths.root)
    }
  }
}

/** Removes a directory that holds nothing; leaves it otherwise. */
export async function removeDirectoryIfEmpty(dir: string): Promise<void> {
  try {
    await rmdir(dir)
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR', 'EBUSY', 'EPERM')) return
    throw error
  }
}
