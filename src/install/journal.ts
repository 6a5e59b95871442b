import {isSemVer} from '../model/semver.js'
import {unlinkDurably} from '../fs/durable.js'
import {writeFileAtomic} from '../fs/output.js'
import {ensureRealDirectory, readStateFile, realDirectory} from './data-root.js'
import {levels, pluginPaths, versionOfDirectory} from './layout.js'
import {stagingOwner} from './staging.js'
import type {VersionAdmission} from './trust-record.js'

/**
 * The journal of an install past its commit point (`<id>/.transaction.json`). It is written once every
 * check passed and the staged tree is on disk; from then on the install is decided, and whoever takes the
 * plugin's lock next — the same run, or the next operation after a kill — carries it to the end (see
 * transaction.ts). Every name in it is checked when it is read back: it comes from a file on disk.
 */
export interface InstallTransaction {
  operation: 'install'
  version: string
  /** The new version directory's name under `versions/`: `<version>`, or `<version>_<n>` when replacing one. */
  directory: string
  /** The staging directory's name inside `_staging`; its `content/` holds the verified tree. */
  staging: string
  activate: boolean
  admission: VersionAdmission
  /** The version that was active when the install began. */
  previousVersion: string | null
  /** Inactive versions to keep beyond the active and the previous one. */
  retain: number
}

/** Writes the journal durably: after this, the install happens even if the process dies. */
export async function writeTransaction(dataRoot: string, id: string, transaction: InstallTransaction): Promise<void> {
  await ensureRealDirectory(dataRoot, levels.plugin(id))
  await writeFileAtomic(pluginPaths(dataRoot, id).transaction, `${JSON.stringify(transaction, null, 2)}\n`)
}

/**
 * The pending journal of a plugin, or null. With `drop` (the caller holds the lock), a journal that is not
 * one — it is written atomically, so only a hand edit makes one — is removed.
 */
export async function readTransaction(dataRoot: string, id: string, options: {drop?: boolean} = {}): Promise<InstallTransaction | null> {
  const file = pluginPaths(dataRoot, id).transaction
  const text = await readStateFile(file)
  if (text === null) return null
  const transaction = parseTransaction(text, id)
  if (transaction === null && options.drop === true) await dropTransaction(dataRoot, id)
  return transaction
}

/** Removes the journal: the install it describes is finished or abandoned. */
export async function dropTransaction(dataRoot: string, id: string): Promise<void> {
  if ((await realDirectory(dataRoot, levels.plugin(id))) === null) return
  await unlinkDurably(pluginPaths(dataRoot, id).transaction)
}

function parseTransaction(text: string, id: string): InstallTransaction | null {
  try {
    const value = JSON.parse(text) as Partial<InstallTransaction>
    const {operation, version, staging, activate, admission, previousVersion, retain} = value
    // A journal written before version directories could carry a suffix names no directory: `<version>`.
    const directory = value.directory ?? version
    if (operation !== 'install' || !isSemVer(version) || typeof activate !== 'boolean') return null
    // Both names become paths: only names this library makes, for this plugin and this version, are taken.
    if (typeof staging !== 'string' || stagingOwner(staging) !== id) return null
    if (typeof directory !== 'string' || versionOfDirectory(directory) !== version) return null
    if (!isAdmission(admission)) return null
    if (!(previousVersion === null || isSemVer(previousVersion)) || !Number.isSafeInteger(retain) || (retain as number) < 0) return null
    return {operation, version, directory, staging, activate, admission, previousVersion: previousVersion ?? null, retain: retain as number}
  } catch {
    return null
  }
}

/**
 * An admission as install writes it: the trust record is written from it, and a Trusted one without a
 * `certificateId` would make a record that does not read back as one (taken as Trusted with no versions:
 * every installed version of the plugin would lose its admission).
 */
function isAdmission(value: unknown): value is VersionAdmission {
  if (typeof value !== 'object' || value === null) return false
  const {verdict, certificateId, admittedAt} = value as Record<string, unknown>
  if (verdict !== 'Trusted' && verdict !== 'Unsigned') return false
  return (typeof certificateId === 'string' || certificateId === null) && (admittedAt === undefined || typeof admittedAt === 'string')
}
