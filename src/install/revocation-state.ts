import {createHash} from 'node:crypto'
import path from 'node:path'
import {writeFileAtomic} from '../fs/output.js'
import {withLock} from '../fs/lock.js'
import type {TrustStore} from '../pki/trust.js'
import {RevocationError} from '../revocation/errors.js'
import {
  assertFreshRevocationList,
  readRevocationListContent,
  type RevocationList,
  type RevocationListContent,
  verifyRevocationList,
  type VerifiedRevocationList,
} from '../revocation/list.js'
import {verificationContext, type VerifyContext} from '../signing/verify.js'
import {ensureRealDirectory, readStateFile, realDirectory, unsafeDataRoot} from './data-root.js'
import {InstallError} from './errors.js'
import {levels, pluginsRoot} from './layout.js'

/**
 * The revocation state of a data root: the newest verified revocation list of every root, the list itself,
 * kept in `<dataRoot>/plugins/_revocations.json` (names starting with `_` are never plugins):
 * `{"schemaVersion": 2, "roots": {"<rootKeyId>": {"sequence": n, "sha256": "sha256:<hex>", "issuedAt": "…",
 * "json": "<base64 of revocations.json>", "sig": "<revocations.sig>"}}}`. A record written by an earlier
 * version (`schemaVersion` 1) kept only the sequence, digest and time; such a root has no list to apply
 * until its next list is recorded, but its sequence still refuses older ones.
 *
 * Revocation is a set of facts that never un-happens: a list whose signature verifies is recorded at once
 * (stale or not: its revocations are true, it may only lack newer ones), before anything else of the
 * operation is judged, and every install, activation and launch check applies every recorded list, with
 * the one it is given. A recorded list applies whatever its age; staleness is judged only on a list given.
 */

/** What the data root remembers of one root. */
export interface RecordedRevocationList {
  sequence: number
  /** `sha256:` + hex SHA-256 of the exact revocations.json bytes. */
  sha256: string
  issuedAt: string
  /** The list itself and its content; null for a root recorded by an earlier version (sequence only). */
  list: RecordedList | null
}

/** A recorded list: its exact bytes and signature as verified, and its content. */
type RecordedList = RevocationList & {content: RevocationListContent}

/** The record file: `<dataRoot>/plugins/_revocations.json`. */
export function revocationStateFile(dataRoot: string): string {
  return path.join(pluginsRoot(dataRoot), '_revocations.json')
}

/** What an operation on a data root is given: the trust store, its reference time, a list, its container policy. */
export interface RevocationInputs {
  trust?: TrustStore
  now: Date
  revocations?: RevocationList
  allowStaleRevocations?: boolean
  /** Carried into the context (see `VerifyContext`); an installed tree has no container to judge. */
  requireContainerSignature?: boolean
}

/**
 * Settles the verification context of one operation on a data root, first of all: the trust store, the
 * reference time and the list given, which is verified (`revocation-list-invalid`), checked against and
 * recorded in the data root's state (`revocation-list-rollback`), and only then judged for staleness
 * (`revocation-list-stale` unless allowed). The context carries every list the data root has recorded, so
 * that the operation applies all of them.
 */
export async function revocationContext(dataRoot: string, inputs: RevocationInputs): Promise<VerifyContext> {
  const {trust = {roots: []}, now, revocations, requireContainerSignature} = inputs
  const context = verificationContext({trust, now, revocations, allowStaleRevocations: true, requireContainerSignature})
  if (context.revocations !== null) {
    await recordRevocationList(dataRoot, context.revocations)
    if (inputs.allowStaleRevocations !== true) assertFreshRevocationList(context.revocations, context.now)
  }
  return {...context, recordedRevocations: await readRecordedRevocations(dataRoot)}
}

/**
 * Refuses (`revocation-list-rollback`) a list older than the newest this data root has seen from the same
 * root: a lower `sequence`, or the same `sequence` with different bytes. The latter because a sequence
 * names one list: a second, different list under a number already seen is either a fork of the root's
 * signing (a mistake, or a leaked old signing pipeline) or a substitution that drops a revocation without
 * lowering the number; either way the host cannot tell which list is current, so it keeps the one it saw.
 * The same bytes again are fine. A record that cannot be read also refuses: rollback cannot be ruled out.
 */
export async function checkRevocationSequence(dataRoot: string, list: VerifiedRevocationList): Promise<void> {
  judge(await readRecords(dataRoot), list)
}

/**
 * Records `list` as the newest seen from its root, after checking it as `checkRevocationSequence` does;
 * under the lock `<dataRoot>/plugins/_revocations.lock`, so concurrent operations never lower the record.
 * Only a verified list may be recorded: an unverified one could pin a huge sequence and refuse every
 * genuine list after it. The record is replaced by a temporary file and a rename.
 */
export async function recordRevocationList(dataRoot: string, list: VerifiedRevocationList): Promise<void> {
  // Written into `plugins/` like everything else of the installer: only when it is a real directory.
  const ensureDirectory = () => ensureRealDirectory(dataRoot, levels.plugins)
  await ensureDirectory()
  const lock = path.join(pluginsRoot(dataRoot), '_revocations.lock')
  await withLock(lock, {ensureDirectory, unusable: (info) => unsafeDataRoot(lock, info)}, async () => {
    const records = await readRecords(dataRoot)
    if (judge(records, list) === 'seen') return
    const {rootKeyId, sequence, issuedAt} = list.content
    records.set(rootKeyId, {sequence, sha256: digestOf(list.json), issuedAt, list: {json: list.json, sig: list.sig, content: list.content}})
    await writeFileAtomic(revocationStateFile(dataRoot), serialize(records))
  })
}

/**
 * What a host does with a list apart from any install: verify it against the trust store
 * (`revocation-list-invalid`), refuse a rollback and record it, then judge its age (`revocation-list-stale`
 * unless `allowStale`). Returns the verified list.
 */
export async function admitRevocationList(dataRoot: string, list: RevocationList, options: {trust: TrustStore; now?: Date; allowStale?: boolean}): Promise<VerifiedRevocationList> {
  const now = options.now ?? new Date()
  const verified = verifyRevocationList(list, options.trust, {now, allowStale: true})
  await recordRevocationList(dataRoot, verified)
  if (options.allowStale !== true) assertFreshRevocationList(verified, now)
  return verified
}

/**
 * The content of every list the data root has recorded (none while there is no record). `plugins` must be
 * a real directory (`unsafe-data-root`); a record that cannot be read refuses (`revocation-list-rollback`).
 */
export async function readRecordedRevocations(dataRoot: string): Promise<RevocationListContent[]> {
  if ((await realDirectory(dataRoot, levels.plugins)) === null) return []
  return [...(await readRecords(dataRoot)).values()].flatMap(({list}) => (list === null ? [] : [list.content]))
}

/** `newer` or `seen` (the same list again); throws `revocation-list-rollback` for an older or forked list. */
function judge(records: ReadonlyMap<string, RecordedRevocationList>, list: VerifiedRevocationList): 'newer' | 'seen' {
  const {rootKeyId, sequence} = list.content
  const recorded = records.get(rootKeyId)
  if (recorded === undefined || sequence > recorded.sequence) return 'newer'
  if (sequence < recorded.sequence) {
    throw new RevocationError(
      'revocation-list-rollback',
      `The revocation list of ${rootKeyId} has sequence ${sequence}, but this host has already seen sequence ${recorded.sequence} (issued ${recorded.issuedAt}); an older list may lack revocations.`,
      {details: {rootKeyId, sequence, recordedSequence: recorded.sequence}},
    )
  }
  if (digestOf(list.json) !== recorded.sha256) {
    throw new RevocationError(
      'revocation-list-rollback',
      `The revocation list of ${rootKeyId} has sequence ${sequence}, which this host has seen with other content; two different lists under one sequence cannot both be current.`,
      {details: {rootKeyId, sequence, recordedSequence: recorded.sequence}},
    )
  }
  return 'seen'
}

function serialize(records: ReadonlyMap<string, RecordedRevocationList>): string {
  const roots = Object.fromEntries(
    [...records].map(([rootKeyId, {sequence, sha256, issuedAt, list}]) => [
      rootKeyId,
      list === null ? {sequence, sha256, issuedAt} : {sequence, sha256, issuedAt, json: Buffer.from(list.json).toString('base64'), sig: list.sig},
    ]),
  )
  return `${JSON.stringify({schemaVersion: 2, roots}, null, 2)}\n`
}

/**
 * The most the record may hold: every root's newest list (at most 16 MiB each) in base64, for a few
 * roots. Past it the record counts as damaged.
 */
const maxRecordBytes = 256 * 1024 * 1024

async function readRecords(dataRoot: string): Promise<Map<string, RecordedRevocationList>> {
  const file = revocationStateFile(dataRoot)
  let value: unknown
  let text: string | null
  try {
    text = await readStateFile(file, maxRecordBytes)
  } catch (error) {
    if (error instanceof InstallError) throw error
    throw unreadableRecord(file, error)
  }
  if (text === null) return new Map()
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw unreadableRecord(file, error)
  }
  const {schemaVersion, roots} = (value ?? {}) as {schemaVersion?: unknown; roots?: unknown}
  if ((schemaVersion !== 1 && schemaVersion !== 2) || typeof roots !== 'object' || roots === null || Array.isArray(roots)) {
    throw unreadableRecord(file, new Error('it is not {"schemaVersion": 2, "roots": {…}}'))
  }
  const records = new Map<string, RecordedRevocationList>()
  for (const [rootKeyId, record] of Object.entries(roots)) {
    const parsed = parseRecord(rootKeyId, record, schemaVersion as 1 | 2)
    if (typeof parsed === 'string') throw unreadableRecord(file, new Error(`the record of ${rootKeyId} ${parsed}`))
    records.set(rootKeyId, parsed)
  }
  return records
}

/** One root's record, or why it is not one: its list must be the one its sequence and digest name. */
function parseRecord(rootKeyId: string, record: unknown, schemaVersion: 1 | 2): RecordedRevocationList | string {
  const {sequence, sha256, issuedAt, json, sig} = (record ?? {}) as Record<string, unknown>
  if (!Number.isSafeInteger(sequence) || typeof sha256 !== 'string' || typeof issuedAt !== 'string') return 'is not {sequence, sha256, issuedAt, …}'
  const floor = {sequence: sequence as number, sha256, issuedAt}
  if (schemaVersion === 1 || (json === undefined && sig === undefined)) return {...floor, list: null}
  if (typeof json !== 'string' || typeof sig !== 'string') return 'holds no list (json and sig)'
  const bytes = new Uint8Array(Buffer.from(json, 'base64'))
  if (digestOf(bytes) !== sha256) return 'holds a list whose digest is not its sha256'
  let content: RevocationListContent
  try {
    content = readRevocationListContent(bytes)
  } catch (error) {
    return `holds no revocation list: ${(error as Error).message}`
  }
  if (content.rootKeyId !== rootKeyId || content.sequence !== sequence) return `holds the list of ${content.rootKeyId}, sequence ${content.sequence}`
  return {...floor, list: {json: bytes, sig, content}}
}

function digestOf(json: Uint8Array): string {
  return `sha256:${createHash('sha256').update(json).digest('hex')}`
}

/** Fail closed: without the record, a rollback cannot be ruled out. */
function unreadableRecord(file: string, error: unknown): RevocationError {
  return new RevocationError(
    'revocation-list-rollback',
    `The record of revocation lists seen (${file}) cannot be read, so a rollback cannot be ruled out: ${(error as Error).message}. Repair it (removing it forgets every revocation it holds).`,
    {cause: error, details: {path: file}},
  )
}
