import {mkdir, readdir, rename} from 'node:fs/promises'
import path from 'node:path'
import {isSemVer} from '../model/semver.js'
import {readCurrentVersion, writeCurrentVersion} from './current.js'
import {fsyncDirectory, hasErrno, pathExists, readTextOrNull, unlinkDurably, writeFileAtomic} from '../fs/durable.js'
import {readInstalledManifest} from './installed-manifest.js'
import {pluginPaths, stagingRoot, versionDir} from './layout.js'
import {selectPrunable} from './prune.js'
import {discard, stagingAt} from './staging.js'
import {admitVersion, forgetVersions, readTrustRecord, writeTrustRecord, type VersionAdmission} from './trust-record.js'

/**
 * The journal of an install past its commit point (`<id>/.transaction.json`). It is written once every
 * check passed and the staged tree is on disk; from then on the install is decided, and whoever takes the
 * plugin's lock next — the same run, or the next operation after a kill — carries it to the end with
 * {@link applyTransaction}. Every step is idempotent, so a kill during recovery is recovered as well.
 */
export interface InstallTransaction {
  operation: 'install'
  version: string
  /** The staging directory's name inside `_staging`; its `content/` holds the verified tree. */
  staging: string
  activate: boolean
  admission: VersionAdmission
  /** The version that was active when the install began. */
  previousVersion: string | null
  /** Inactive versions to keep beyond the active and the previous one. */
  retain: number
}

/** The steps after the commit point, in order, as reported to a progress hook. */
export type CommitStep = 'promoted' | 'recorded' | 'activated' | 'pruned'

/** What applying a transaction did. */
export interface TransactionOutcome {
  /** False when the promoted tree failed its re-read and the install was undone. */
  applied: boolean
  pruned: string[]
}

/** Writes the journal durably: after this, the install happens even if the process dies. */
export async function writeTransaction(dataRoot: string, id: string, transaction: InstallTransaction): Promise<void> {
  await writeFileAtomic(pluginPaths(dataRoot, id).transaction, `${JSON.stringify(transaction, null, 2)}\n`)
}

/**
 * The pending journal of a plugin, or null. With `drop` (the caller holds the lock), a journal that is not
 * one — it is written atomically, so only a hand edit makes one — is removed.
 */
export async function readTransaction(dataRoot: string, id: string, options: {drop?: boolean} = {}): Promise<InstallTransaction | null> {
  const file = pluginPaths(dataRoot, id).transaction
  const text = await readTextOrNull(file)
  if (text === null) return null
  const transaction = parseTransaction(text, id)
  if (transaction === null && options.drop === true) await unlinkDurably(file)
  return transaction
}

function parseTransaction(text: string, id: string): InstallTransaction | null {
  try {
    const value = JSON.parse(text) as Partial<InstallTransaction>
    const {operation, version, staging, activate, admission, previousVersion, retain} = value
    if (operation !== 'install' || !isSemVer(version) || typeof staging !== 'string' || !staging.startsWith(`${id}_`)) return null
    if (staging.includes('/') || staging.includes('\\') || typeof activate !== 'boolean') return null
    if (typeof admission !== 'object' || admission === null || (admission.verdict !== 'Trusted' && admission.verdict !== 'Unsigned')) return null
    if (!(previousVersion === null || isSemVer(previousVersion)) || !Number.isSafeInteger(retain) || (retain as number) < 0) return null
    return {operation, version, staging, activate, admission, previousVersion: previousVersion ?? null, retain: retain as number}
  } catch {
    return null
  }
}

/**
 * Carries a journalled install to its end (DESIGN §8, after the checks): rename the staged tree into
 * `versions/<version>` (moving a forced install's old tree aside first), re-read the installed manifest,
 * write the trust record, activate, prune, make sure `data/` exists, drop the journal. Safe to run again from any point.
 */
export async function applyTransaction(
  dataRoot: string,
  id: string,
  transaction: InstallTransaction,
  onStep: (step: CommitStep) => Promise<void> = async () => undefined,
): Promise<TransactionOutcome> {
  const paths = pluginPaths(dataRoot, id)
  const target = versionDir(dataRoot, id, transaction.version)
  const staging = stagingAt(stagingRoot(dataRoot), transaction.staging)
  const replaced = path.join(staging.dir, 'replaced')

  if (await pathExists(staging.content)) {
    try {
      await mkdir(paths.versions, {recursive: true})
      if (await pathExists(target)) await rename(target, replaced)
      // The commit of the tree: one rename, so `versions/` never holds a partial version.
      await rename(staging.content, target)
    } catch (error) {
      // Refused before anything was promoted (a directory that cannot be written): back to the old state.
      if (!(await pathExists(target)) && (await pathExists(replaced))) await rename(replaced, target)
      await unlinkDurably(paths.transaction)
      throw error
    }
    await fsyncDirectory(paths.versions)
    await fsyncDirectory(paths.root)
    await onStep('promoted')
  } else if (!(await pathExists(target))) {
    // Nothing staged and nothing promoted: the journal outlived its tree; put back what it replaced.
    if (await pathExists(replaced)) await rename(replaced, target)
    await unlinkDurably(paths.transaction)
    return {applied: false, pruned: []}
  }

  try {
    await readInstalledManifest(target, id, transaction.version)
  } catch (error) {
    // The same bytes passed before the rename; failing now means the disk changed under us. Undo.
    await discard(dataRoot, id, target)
    if (await pathExists(replaced)) await rename(replaced, target)
    await unlinkDurably(paths.transaction)
    throw error
  }

  await writeTrustRecord(paths.trust, admitVersion(await readTrustRecord(paths.trust), transaction.version, transaction.admission))
  await onStep('recorded')

  if (transaction.activate) {
    await writeCurrentVersion(paths.current, transaction.version)
    await onStep('activated')
  }

  const pruned = await pruneVersions(dataRoot, id, [transaction.version, transaction.previousVersion], transaction.retain)
  await onStep('pruned')

  // The plugin's own state directory, kept across updates (DESIGN §8); created once, never emptied here.
  await mkdir(paths.data, {recursive: true})

  await unlinkDurably(paths.transaction)
  return {applied: true, pruned}
}

/**
 * Removes inactive versions beyond `retain` (DESIGN §8: keep the active, the previous and `retain` more;
 * `keep` names the previous and the one just installed), then forgets their trust admissions.
 */
async function pruneVersions(dataRoot: string, id: string, keep: Array<string | null>, retain: number): Promise<string[]> {
  const paths = pluginPaths(dataRoot, id)
  const installed = await installedVersionNames(paths.versions)
  const active = await readCurrentVersion(paths.current)
  const prunable = selectPrunable(installed, [active, ...keep], retain)
  for (const version of prunable) await discard(dataRoot, id, versionDir(dataRoot, id, version))
  if (prunable.length > 0) {
    const record = await readTrustRecord(paths.trust)
    if (record !== null) {
      const remaining = installed.filter((version) => !prunable.includes(version))
      await writeTrustRecord(paths.trust, forgetVersions(record, remaining))
    }
  }
  return prunable
}

/** Names of the version directories of a plugin (entries that are SemVer versions), unsorted. */
export async function installedVersionNames(versionsDir: string): Promise<string[]> {
  try {
    const entries = await readdir(versionsDir, {withFileTypes: true})
    return entries.filter((entry) => entry.isDirectory() && isSemVer(entry.name)).map((entry) => entry.name)
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return []
    throw error
  }
}
