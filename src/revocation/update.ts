import type {ArchiveLimits} from '../archive/types.js'
import {isSvcPluginError} from '../errors.js'
import {withLock} from '../fs/lock.js'
import {assertNamesAFile, checkOutputFree, type OutputScope, unusableLockOf, withOutputs, writeFailed} from '../fs/output.js'
import {publicKeyOf} from '../pki/ed25519.js'
import {SigningError} from '../pki/errors.js'
import {readPublicKeyFile} from '../pki/keys.js'
import {preparedStatementOf, readKeySource, type SigningKey, type SigningKeySource, signWithKey} from '../pki/signing-key.js'
import {parseTimestamp} from '../pki/timestamp.js'
import {RevocationError} from './errors.js'
import {readRevocationList, revocationListExists, revocationSignatureFile, writeRevocationList} from './files.js'
import {
  entryKey,
  newRevocationListContent,
  readRevocationListContent,
  revocationListBytes,
  revocationListMessage,
  revocationListOfStatement,
  revokedListContent,
  type RevocationEntry,
  type RevocationListContent,
  type RevocationListTimes,
  type RevocationReason,
  type RevocationRequest,
  signedRevocationList,
} from './list.js'
import {resolveRevocationTarget, type RevocationTargetOptions} from './target.js'

/** What `prepareRevocationInFile` needs: the list files, the root's public key, the target (exactly one) and the reason. */
export interface RevocationInFileOptions extends RevocationTargetOptions, RevocationListTimes {
  /** revocations.json; created (sequence 1) when it does not exist. */
  listFile: string
  /** Default: beside the list, `.json` replaced by `.sig`. */
  sigFile?: string
  /** The root's 32-byte public key: with a key held elsewhere, the current list and the new signature are checked against it. */
  rootPublicKey?: Uint8Array
  /** The root's public key file (`rootPublicKey` read from a file). */
  rootPublicKeyFile?: string
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

/**
 * What `revokeInFile` needs: the list, the target and the reason ({@link RevocationInFileOptions}), and the
 * root key one way ({@link SigningKeySource}): its private key or file, a signer or a signing command, or a
 * statement `prepareRevocationInFile` wrote and the signature a vault made of it.
 */
export interface RevokeInFileOptions extends RevocationInFileOptions, SigningKeySource {}

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
 * Adds a revocation to a list file and re-signs it, or creates the list with that one entry (sequence 1)
 * when there is none. Holds `<listFile>.lock` while reading, signing and writing, so two processes never
 * both sign sequence n + 1; the pair is replaced through temporary files and renames (`writeRevocationList`).
 * The signature, whoever makes it, is checked against the root's public key before anything is written
 * (`signature-invalid`). Completing a prepared statement (same options again) writes exactly the list it
 * carries: its sequence must follow the current list's and its bytes must be the list these options make at
 * its issue time (`statement-mismatch` otherwise: the list changed meanwhile, or other options).
 */
export async function revokeInFile(options: RevokeInFileOptions): Promise<RevokeInFileResult> {
  assertListFiles(options)
  const target = await resolveRevocationTarget(options, {limits: options.limits})
  const key = await readKeySource(options, 'the root key')
  if (key === null) throw new SigningError('invalid-signer', 'Give the root key: its private key or file, a signer or a signing command, or a prepared statement with its signature.')
  const rootPublicKey = await rootPublicKeyOf(options, key)
  const sigFile = options.sigFile ?? revocationSignatureFile(options.listFile)
  const prepared = preparedStatementOf(key)
  const fixed = prepared === null ? null : revocationListOfStatement(prepared)
  if (prepared !== null && fixed === null) throw new SigningError('statement-malformed', 'The prepared statement is not a revocation list statement (the bytes `cert revoke --prepare` writes).')
  const times = fixed === null ? {now: options.now, nextUpdate: options.nextUpdate} : {now: new Date(parseTimestamp(fixed.issuedAt) as number), nextUpdate: options.nextUpdate ?? fixed.nextUpdate}
  const request = {...target, reason: options.reason, revokedAt: options.revokedAt}
  const update = async (): Promise<RevokeInFileResult> => {
    const {created, content} = await nextListContent(options, sigFile, request, rootPublicKey, times, fixed)
    const unsigned = revocationListBytes(content)
    const signature = await signWithKey(key, revocationListMessage(unsigned.json), rootPublicKey, `the revocation list (sequence ${content.sequence})`, () => {
      return `The prepared statement is another list than this revocation makes at its issue time ${fixed?.issuedAt} (entries, reason, revocation time or next update differ). Prepare it again with the same flags.`
    })
    const next = signedRevocationList(unsigned, signature)
    await writeRevocationList(next, options.listFile, sigFile)
    const entry = next.content.entries.find((candidate) => entryKey(candidate) === entryKey(target)) as RevocationEntry
    return {created, entry, sequence: next.content.sequence, listFile: options.listFile, sigFile, list: next.content}
  }
  // The list's folder is created when missing (and removed again should the revocation fail). The lock
  // file goes beside the list, so a system error taking it is a list that cannot be written.
  return withOutputs(async (outputs) => {
    await outputs.folderOf(options.listFile)
    const lock = `${options.listFile}.lock`
    const lockOptions = {
      timeoutMs: options.lockTimeoutMs ?? 60_000,
      ensureDirectory: () => listFolderAgain(outputs, options.listFile),
      unusable: () => unusableLockOf(options.listFile, lock),
    }
    return withLock(lock, lockOptions, update).catch((error: unknown) => {
      throw isSystemError(error) ? writeFailed(options.listFile, error) : error
    })
  })
}

/** What `prepareRevocationInFile` needs: the options of `revokeInFile` without a key, and where to write the statement. */
export interface PrepareRevocationInFileOptions extends RevocationInFileOptions {
  /** Where to write the statement; never overwritten. */
  output: string
}

/** What `prepareRevocationInFile` wrote: the statement file and the list it carries. */
export interface PreparedRevocation {
  output: string
  /** The entry the new list holds for the target. */
  entry: RevocationEntry
  sequence: number
  list: RevocationListContent
}

/**
 * Writes the statement the root's key must sign to add this revocation, and nothing else:
 * `svc-plugin-revocations/1\n` then the new revocations.json's exact bytes (its sequence, issue time and
 * entries chosen now). The current list, when there is one, must verify under the root's public key.
 * `revokeInFile` with the same options and `key: {preparedFile, signatureFile}` completes it.
 */
export async function prepareRevocationInFile(options: PrepareRevocationInFileOptions): Promise<PreparedRevocation> {
  assertListFiles(options)
  assertNamesAFile(options.output)
  const target = await resolveRevocationTarget(options, {limits: options.limits})
  const rootPublicKey = options.rootPublicKey ?? (options.rootPublicKeyFile === undefined ? null : await readPublicKeyFile(options.rootPublicKeyFile))
  const sigFile = options.sigFile ?? revocationSignatureFile(options.listFile)
  const request = {...target, reason: options.reason, revokedAt: options.revokedAt}
  const {content} = await nextListContent(options, sigFile, request, rootPublicKey, {now: options.now, nextUpdate: options.nextUpdate}, null)
  const unsigned = revocationListBytes(content)
  await withOutputs(async (outputs) => {
    await outputs.folderOf(options.output)
    await outputs.newFile(options.output, revocationListMessage(unsigned.json))
  })
  const entry = unsigned.content.entries.find((candidate) => entryKey(candidate) === entryKey(target)) as RevocationEntry
  return {output: options.output, entry, sequence: unsigned.content.sequence, list: unsigned.content}
}

/** The root's public key: given, read from its file, or the private key's own; `invalid-signer` for a key held elsewhere without it. */
async function rootPublicKeyOf(options: RevocationInFileOptions, key: SigningKey): Promise<Uint8Array> {
  if (options.rootPublicKey !== undefined) return options.rootPublicKey
  if (options.rootPublicKeyFile !== undefined) return readPublicKeyFile(options.rootPublicKeyFile)
  if ('privateKey' in key) return publicKeyOf(key.privateKey)
  throw new SigningError('invalid-signer', "A root key held elsewhere needs the root's public key (--root-public-key), to check the list and its signature before anything is written.")
}

/**
 * The content of the list after this revocation: a new list (sequence 1) when the file does not exist, else
 * the current one (verified under `rootPublicKey`) with the entry added. With a prepared statement (`fixed`)
 * its sequence must be the one that follows the current list's (`statement-mismatch`).
 */
async function nextListContent(
  options: RevocationInFileOptions,
  sigFile: string,
  request: RevocationRequest,
  rootPublicKey: Uint8Array | null,
  times: RevocationListTimes,
  fixed: RevocationListContent | null,
): Promise<{created: boolean; content: RevocationListContent}> {
  const {listFile, rootKeyId} = options
  if (!(await revocationListExists(listFile))) {
    if (rootKeyId === undefined) throw new RevocationError('invalid-root-key-id', `${listFile} does not exist yet; creating it needs the root key id.`, {details: {path: listFile}})
    // A new list comes with a new signature file: one already there belongs to no list this would update.
    await checkOutputFree(sigFile, {advice: `${listFile} does not exist, so it is no list's signature; move it away, or name the list it signs with --list`})
    fitsStatement(fixed, 1, listFile)
    return {created: true, content: newRevocationListContent({rootKeyId, entries: [request], ...times})}
  }
  const current = await readRevocationList(listFile, sigFile)
  if (fixed !== null) fitsStatement(fixed, readRevocationListContent(current.json).sequence + 1, listFile)
  if (rootPublicKey === null) throw new SigningError('invalid-signer', `${listFile} exists: preparing its next sequence needs the root's public key (--root-public-key) to verify it first.`)
  const content = revokedListContent(current, request, rootPublicKey, times)
  if (rootKeyId !== undefined && rootKeyId !== content.rootKeyId) {
    throw new RevocationError('invalid-root-key-id', `${listFile} is the list of ${content.rootKeyId}, not of ${rootKeyId}.`, {details: {path: listFile}})
  }
  return {created: false, content}
}

/** Refuses a list or signature path that ends in a separator (`write-failed`): the list is a file, updated in place. */
function assertListFiles(options: RevocationInFileOptions): void {
  assertNamesAFile(options.listFile)
  if (options.sigFile !== undefined) assertNamesAFile(options.sigFile)
}

/** `statement-mismatch` when a prepared list's sequence is not `sequence`, the one that follows the list as it is now. */
function fitsStatement(fixed: RevocationListContent | null, sequence: number, listFile: string): void {
  if (fixed === null || fixed.sequence === sequence) return
  throw new SigningError(
    'statement-mismatch',
    `The prepared statement is sequence ${fixed.sequence} of the list, but ${listFile} now needs sequence ${sequence}: the list changed since it was prepared. Prepare it again.`,
    {details: {path: listFile}},
  )
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
