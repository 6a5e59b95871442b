import {fsyncDirectory, hasErrno} from '../fs/durable.js'
import {mkdir, rename} from '../fs/mutations.js'
import {readCurrent, writeCurrent} from './current.js'
import {ensureRealDirectory, lstatOrNull, realDirectory} from './data-root.js'
import {readInstalledManifest} from './installed-manifest.js'
import {dropTransaction, type InstallTransaction} from './journal.js'
import {levels, pluginPaths, versionOfDirectory, versionPath} from './layout.js'
import {selectPrunable} from './prune.js'
import {discard, stagingAt} from './staging.js'
import {admitVersion, forgetVersions, readTrustRecord, writeTrustRecord} from './trust-record.js'
import {readInstalledVersions} from './version-directories.js'

/** The steps after the commit point, in order, as reported to a progress hook. */
export type CommitStep = 'promoted' | 'recorded' | 'activated' | 'pruned'

/** What applying a transaction did. */
export interface TransactionOutcome {
  /** False when the promoted tree failed its re-read and the install was undone. */
  applied: boolean
  pruned: string[]
}

/**
 * Carries a journalled install to its end: rename the staged tree into its new version directory (a name
 * no other directory has: `<version>`, or `<version>_<n>` when that version already has one), re-read the
 * installed manifest, write the trust record, point `current.json` at the new directory (always when the
 * version being replaced is the active one), discard the directory it replaced, prune, make sure `data/`
 * exists, drop the journal. No step removes or overwrites a directory `current.json` names, so at every
 * instant `current.json` names a complete version. Safe to run again from any point.
 */
export async function applyTransaction(
  dataRoot: string,
  id: string,
  transaction: InstallTransaction,
  onStep: (step: CommitStep) => Promise<void> = async () => undefined,
): Promise<TransactionOutcome> {
  const paths = pluginPaths(dataRoot, id)
  const {version, directory} = transaction
  const target = versionPath(dataRoot, id, directory)
  const staging = stagingAt(dataRoot, transaction.staging)

  if ((await lstatOrNull(staging.content)) !== null) {
    try {
      const versionsDir = await ensureRealDirectory(dataRoot, levels.versions(id))
      // The journal chose a name nothing had; something there now was put by hand: give the install up.
      if ((await lstatOrNull(target)) !== null) {
        await dropTransaction(dataRoot, id)
        return {applied: false, pruned: []}
      }
      await realDirectory(dataRoot, levels.staging)
      // The commit of the tree: one rename, so `versions/` never holds a partial version.
      await rename(staging.content, target)
      await fsyncDirectory(versionsDir)
      await fsyncDirectory(paths.root)
    } catch (error) {
      // Refused before anything was promoted (a directory that cannot be written, or is a link): abandoned.
      await dropTransaction(dataRoot, id)
      throw error
    }
    await onStep('promoted')
  } else if ((await lstatOrNull(target))?.isDirectory() !== true) {
    // Nothing staged and nothing promoted: the journal outlived its tree.
    await dropTransaction(dataRoot, id)
    return {applied: false, pruned: []}
  }

  try {
    await readInstalledManifest(target, id)
  } catch (error) {
    // The same bytes passed before the rename; failing now means the disk changed under us. Undo.
    await discard(dataRoot, id, levels.versions(id), directory)
    await dropTransaction(dataRoot, id)
    throw error
  }

  await ensureRealDirectory(dataRoot, levels.plugin(id))
  await writeTrustRecord(paths.trust, admitVersion(await readTrustRecord(paths.trust), version, transaction.admission))
  await onStep('recorded')

  // The switch: one atomic write moves the active version from the old tree to the new one.
  const current = await readCurrent(paths.current)
  if (transaction.activate || current?.version === version) {
    if (current?.version !== version || current.directory !== directory) {
      await ensureRealDirectory(dataRoot, levels.plugin(id))
      await writeCurrent(paths.current, {version, directory})
    }
    await onStep('activated')
  }

  // Only now is the tree this install replaced unused: current.json names the new one, or another version.
  for (const stray of (await readInstalledVersions(dataRoot, id)).strays) {
    if (versionOfDirectory(stray) === version) await discard(dataRoot, id, levels.versions(id), stray)
  }

  const pruned = await pruneVersions(dataRoot, id, [version, transaction.previousVersion], transaction.retain)
  await onStep('pruned')

  // The plugin's own state directory, kept across updates; created once, never emptied here. Whatever
  // stands there already is left as it is (the install refused anything but a directory before its commit).
  if ((await lstatOrNull(paths.data)) === null) {
    await ensureRealDirectory(dataRoot, levels.plugin(id))
    await mkdir(paths.data).catch((error: unknown) => {
      if (!hasErrno(error, 'EEXIST')) throw error
    })
  }

  await dropTransaction(dataRoot, id)
  return {applied: true, pruned}
}

/**
 * Removes inactive versions beyond `retain` (keep the active, the previous and `retain` more; `keep`
 * names the previous and the one just installed), then forgets their trust admissions.
 */
async function pruneVersions(dataRoot: string, id: string, keep: Array<string | null>, retain: number): Promise<string[]> {
  const paths = pluginPaths(dataRoot, id)
  const installed = await readInstalledVersions(dataRoot, id)
  const versions = [...installed.directories.keys()]
  const prunable = selectPrunable(versions, [installed.active?.version ?? null, ...keep], retain)
  for (const version of prunable) await discard(dataRoot, id, levels.versions(id), installed.directories.get(version) as string)
  if (prunable.length > 0) {
    const record = await readTrustRecord(paths.trust)
    if (record !== null) {
      await ensureRealDirectory(dataRoot, levels.plugin(id))
      await writeTrustRecord(paths.trust, forgetVersions(record, versions.filter((version) => !prunable.includes(version))))
    }
  }
  return prunable
}
