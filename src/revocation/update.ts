import type {ArchiveLimits} from '../archive/types.js'
import {isSvcPluginError} from '../errors.js'
import {withLock} from '../fs/lock.js'
import {type OutputScope, withOutputs, writeFailed} from '../fs/output.js'
import {readPrivateKeyFile} from '../pki/keys.js'
import {RevocationError} from './errors.js'
import {readRevocationList, revocationListExists, revocationSignatureFile, writeRevocationList} from './files.js'
import {
  createRevocationList,
  entryKey,
  revoke,
  type RevocationEntry,
  type RevocationListContent,
  type RevocationListTimes,
  type RevocationReason,
  type VerifiedRevocationList,
} from './list.js'
import {resolveRevocationTarget, type RevocationTargetOptions} from './target.js'

/** What `revokeInFile` needs: the list files, the root key, the target (exactly one) and the reason. */
export interface RevokeInFileOptions extends RevocationTargetOptions, RevocationListTimes {
  /** revocations.json; created (sequence 1) when it does not exist. */
  listFile: string
  /** Default: beside the list, `.json` replaced by `.sig`. */
  sigFile?: string
  /** The root's private key file. */
  rootKeyFile: string
  /** Required to create a list; when the list exists it must be the list's own (`invalid-root-key-id`). */
  rootKeyId?: string
  reason: RevocationReason
  /** Default: the new list's `issuedAt` (now). */
  revokedAt?: Date | string
  /** Archive limits for reading an artifact target. */
  limits?: Partial<ArchiveLimits>
  /** How long to wait for another process re-signing the same list (default 60 s). */
  lockTimeoutMs?: number
}

/** What `revokeInFile` did. */
export interface RevokeInFileResult {
  /** True when the list did not exist and was created. */
  created: boolean
  /** The entry now in the list. */
  entry: RevocationEntry
  /** The new list's sequence. */
  sequence: number
  listFile: string
  sigFile: string
  list: RevocationListContent
}

/**
 * Adds a revocation to a list file and re-signs it (`revoke`), or creates the list with that one entry
 * (sequence 1) when there is none. Holds `<listFile>.lock` while reading, signing and writing, so two
 * processes never both sign sequence n + 1; the pair is replaced through temporary files and renames
 * (`writeRevocationList`).
 */
export async function revokeInFile(options: RevokeInFileOptions): Promise<RevokeInFileResult> {
  const target = await resolveRevocationTarget(options, {limits: options.limits})
  const rootPrivateKey = await readPrivateKeyFile(options.rootKeyFile)
  const sigFile = options.sigFile ?? revocationSignatureFile(options.listFile)
  const request = {...target, reason: options.reason, revokedAt: options.revokedAt}
  const times = {now: options.now, nextUpdate: options.nextUpdate}
  const update = async (): Promise<RevokeInFileResult> => {
    const created = !(await revocationListExists(options.listFile))
    let next: VerifiedRevocationList
    if (created) {
      if (options.rootKeyId === undefined) {
        throw new RevocationError('invalid-root-key-id', `${options.listFile} does not exist yet; creating it needs the root key id.`, {details: {path: options.listFile}})
      }
      next = createRevocationList({rootKeyId: options.rootKeyId, rootPrivateKey, entries: [request], ...times})
    } else {
      const current = await readRevocationList(options.listFile, sigFile)
      next = revoke(current, request, rootPrivateKey, times)
      if (options.rootKeyId !== undefined && options.rootKeyId !== next.content.rootKeyId) {
        throw new RevocationError('invalid-root-key-id', `${options.listFile} is the list of ${next.content.rootKeyId}, not of ${options.rootKeyId}.`, {details: {path: options.listFile}})
      }
    }
    await writeRevocationList(next, options.listFile, sigFile)
    const entry = next.content.entries.find((candidate) => entryKey(candidate) === entryKey(target)) as RevocationEntry
    return {created, entry, sequence: next.content.sequence, listFile: options.listFile, sigFile, list: next.content}
  }
  // The list's folder is created when missing (and removed again should the revocation fail). The lock
  // file goes beside the list, so a system error taking it is a list that cannot be written.
  return withOutputs(async (outputs) => {
    await outputs.folderOf(options.listFile)
    const lockOptions = {timeoutMs: options.lockTimeoutMs ?? 60_000, ensureDirectory: () => listFolderAgain(outputs, options.listFile)}
    return withLock(`${options.listFile}.lock`, lockOptions, update).catch((error: unknown) => {
      throw isSystemError(error) ? writeFailed(options.listFile, error) : error
    })
  })
}

function isSystemError(error: unknown): boolean {
  return error instanceof Error && !isSvcPluginError(error) && typeof (error as NodeJS.ErrnoException).code === 'string'
}

/**
 * The lock found the list's folder missing: create it again (it was removed meanwhile). When
 * it is there, the file system refuses files in it (`/proc`), and retrying would never end.
 */
async function listFolderAgain(outputs: OutputScope, listFile: string): Promise<void> {
  if ((await outputs.folderOf(listFile)) !== null) return
  throw writeFailed(listFile, Object.assign(new Error(`ENOENT: cannot create files in the folder of ${listFile}`), {code: 'ENOENT', path: `${listFile}.lock`}))
}
