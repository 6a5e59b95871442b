import {fsyncDirectory} from '../fs/durable.js'
import {rename} from '../fs/mutations.js'
import {readCurrent, writeCurrent} from './current.js'
import {ensureRealDirectory, lstatOrNull, realDirectory} from './data-root.js'
import {readInstalledManifest} from './installed-manifest.js'
import {dropTransaction, type InstallTransaction} from './journal.js'
import {levels, pluginPaths, versionOfDirectory, versionPath} from './layout.js'
import {selectPrunable} from './prune.js'
import {discard, stagingAt} from './staging.js'
import {admitVersion, forgetVersions, readTrustRecord, writeTrustRecord} from './trust-record.js'
import {readInstalledVersions} from './version-directories.js'
import {bringToRest} from './at-rest.js'

/** The steps after the commit point, in order, as reported to a progress hook. */
export type CommitStep = 'promoted' | 'recorded' | 'activated' | 'pruned'

/** What applying a transaction did. */
export interface TransactionOutcome {
  /** False when the promoted tree failed its re-read and the install was undone. */
  applied: boolean
  pruned: string[]
  /** The name under `versions/` of the directory the version ends in: `<version>`, once at rest. */
  directory: string
}

/**
 * Carries a journalled install to its end: rename the staged tree into its new version directory (a name
 * no other directory has: `<version>`, or `<version>_<n>` when that version already has one), re-read the
 * installed manifest, write the trust record, point `current.json` at the new directory (always when the
 * version being replaced is the active one), discard the directory it replaced, bring the version to rest
 * in `versions/<version>` (at-rest.ts), prune, make sure `data/` exists, drop the journal. No step removes
 * or overwrites the directory the active version resolves to (the layout step renames it, and from then on
 * it resolves to the new name), so at every instant the active version resolves to a complete directory.
 * Safe to run again from any point.
 */
export async function applyTransaction(
  dataRoot: string,
  id: string,
  transaction: InstallTransaction,
  onStep: (step: CommitStep) => Promise<void> = async () => undefined,
): Promise<TransactionOutcome> {
  const paths = pluginPaths(dataRoot, id)
  const {version} = transaction
  const directory = await promote(dataRoot, id, transaction, onStep)
  if (directory === null) return {applied: false, pruned: [], directory: transaction.directory}

  try {
    await readInstalledManifest(versionPath(dataRoot, id, directory), id)
  } catch (error) {
    // The same bytes passed before the rename; failing now means the disk changed under us. Undo: the
    // journal goes first, so that a journal never outlives its tree (see promote).
    await dropTransaction(dataRoot, id)
    await discard(dataRoot, id, levels.versions(id), directory)
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
  const resting = (await bringToRest(dataRoot, id)).get(version) ?? directory

  const pruned = await pruneVersions(dataRoot, id, [version, transaction.previousVersion], transaction.retain)
  await onStep('pruned')

  // The plugin's own state directory, kept across updates; created once, never emptied here. Whatever
  // stands there already is left as it is (the install refused anything but a directory before its commit).
  if ((await lstatOrNull(paths.data)) === null) await ensureRealDirectory(dataRoot, levels.data(id))

  await dropTransaction(dataRoot, id)
  return {applied: true, pruned, directory: resting}
}

/**
 * The commit of the tree: the staged tree is renamed into its version directory (one rename, so
 * `versions/` never holds a partial version). Run again after a kill, it finds the tree where an earlier
 * run left it: promoted, or already at rest in `versions/<version>` (a journal outlives its tree only
 * through that move, since an undo drops the journal first). Returns the directory holding the new tree,
 * or null when the install is given up: something was put by hand where the tree goes, or the journal
 * outlived its tree. Refusals before anything was promoted drop the journal too.
 */
async function promote(dataRoot: string, id: string, transaction: InstallTransaction, onStep: (step: CommitStep) => Promise<void>): Promise<string | null> {
  const {version, directory} = transaction
  const target = versionPath(dataRoot, id, directory)
  const staging = stagingAt(dataRoot, transaction.staging)
  if ((await lstatOrNull(staging.content)) === null) {
    if ((await lstatOrNull(target))?.isDirectory() === true) return directory
    if (directory !== version && (await lstatOrNull(versionPath(dataRoot, id, version)))?.isDirectory() === true) return version
    await dropTransaction(dataRoot, id)
    return null
  }
  try {
    const versionsDir = await ensureRealDirectory(dataRoot, levels.versions(id))
    // The journal chose a name nothing had; something there now was put by hand: give the install up.
    if ((await lstatOrNull(target)) !== null) {
      await dropTransaction(dataRoot, id)
      return null
    }
    await realDirectory(dataRoot, levels.staging)
    await rename(staging.content, target)
    await fsyncDirectory(versionsDir)
    await fsyncDirectory(pluginPaths(dataRoot, id).root)
  } catch (error) {
    // Refused before anything was promoted (a directory that cannot be written, or is a link): abandoned.
    await dropTransaction(dataRoot, id)
    throw error
  }
  await onStep('promoted')
  return directory
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
