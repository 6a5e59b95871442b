import {createHash} from 'node:crypto'
import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {writeFileAtomic} from '../fs/output.js'
import {ensureRealDirectory} from './data-root.js'
import {levels, pluginsRoot} from './layout.js'
import {withLock} from '../fs/lock.js'
import {RevocationError} from '../revocation/errors.js'
import {type RevocationList, verifyRevocationList, type VerifiedRevocationList} from '../revocation/list.js'
import type {TrustStore} from '../pki/trust.js'

/**
 * Rollback protection for revocation lists: the highest list a data root has seen, per root, kept in
 * `<dataRoot>/plugins/_revocations.json` (names starting with `_` are never plugins):
 * `{"schemaVersion": 1, "roots": {"<rootKeyId>": {"sequence": n, "sha256": "sha256:<hex of revocations.json>", "issuedAt": "…"}}}`.
 * Sequences are kept per root because each root numbers its own lists.
 */

/** What the data root remembers of the newest list of one root. */
export interface RecordedRevocationList {
  sequence: number
  /** `sha256:` + hex SHA-256 of the exact revocations.json bytes. */
  sha256: string
  issuedAt: string
}

/** The record file: `<dataRoot>/plugins/_revocations.json`. */
export function revocationStateFile(dataRoot: string): string {
  return path.join(pluginsRoot(dataRoot), '_revocations.json')
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
 * under the lock `<dataRoot>/plugins/_revocations.lock`, so concurrent installs never lower the record.
 * Only a verified list may be recorded: an unverified one could pin a huge sequence and refuse every
 * genuine list after it. The record is replaced by a temporary file and a rename.
 */
export async function recordRevocationSequence(dataRoot: string, list: VerifiedRevocationList): Promise<void> {
  // Written into `plugins/` like everything else of the installer: only when it is a real directory.
  const ensureDirectory = () => ensureRealDirectory(dataRoot, levels.plugins)
  await ensureDirectory()
  await withLock(path.join(pluginsRoot(dataRoot), '_revocations.lock'), {ensureDirectory}, async () => {
    const records = await readRecords(dataRoot)
    if (judge(records, list) === 'seen') return
    records.set(list.content.rootKeyId, {sequence: list.content.sequence, sha256: digestOf(list), issuedAt: list.content.issuedAt})
    await writeFileAtomic(revocationStateFile(dataRoot), `${JSON.stringify({schemaVersion: 1, roots: Object.fromEntries(records)}, null, 2)}\n`)
  })
}

/**
 * What an installer does with a list it is given: verify it against the trust store (`revocation-list-invalid`,
 * `revocation-list-stale` unless `allowStale`), refuse a rollback, and record it. Returns the verified list.
 */
export async function admitRevocationList(dataRoot: string, list: RevocationList, options: {trust: TrustStore; now?: Date; allowStale?: boolean}): Promise<VerifiedRevocationList> {
  const verified = verifyRevocationList(list, options.trust, {now: options.now, allowStale: options.allowStale})
  await recordRevocationSequence(dataRoot, verified)
  return verified
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
  if (digestOf(list) !== recorded.sha256) {
    throw new RevocationError(
      'revocation-list-rollback',
      `The revocation list of ${rootKeyId} has sequence ${sequence}, which this host has seen with other content; two different lists under one sequence cannot both be current.`,
      {details: {rootKeyId, sequence, recordedSequence: recorded.sequence}},
    )
  }
  return 'seen'
}

async function readRecords(dataRoot: string): Promise<Map<string, RecordedRevocationList>> {
  const file = revocationStateFile(dataRoot)
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map()
    throw unreadableRecord(file, error)
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw unreadableRecord(file, error)
  }
  const roots = (value as {roots?: unknown} | null)?.roots
  if ((value as {schemaVersion?: unknown} | null)?.schemaVersion !== 1 || typeof roots !== 'object' || roots === null || Array.isArray(roots)) {
    throw unreadableRecord(file, new Error('it is not {"schemaVersion": 1, "roots": {…}}'))
  }
  const records = new Map<string, RecordedRevocationList>()
  for (const [rootKeyId, record] of Object.entries(roots)) {
    const {sequence, sha256, issuedAt} = (record ?? {}) as Record<string, unknown>
    if (!Number.isSafeInteger(sequence) || typeof sha256 !== 'string' || typeof issuedAt !== 'string') {
      throw unreadableRecord(file, new Error(`the record of ${rootKeyId} is not {sequence, sha256, issuedAt}`))
    }
    records.set(rootKeyId, {sequence: sequence as number, sha256, issuedAt})
  }
  return records
}

function digestOf(list: VerifiedRevocationList): string {
  return `sha256:${createHash('sha256').update(list.json).digest('hex')}`
}

/** Fail closed: without the record, a rollback cannot be ruled out. */
function unreadableRecord(file: string, error: unknown): RevocationError {
  return new RevocationError(
    'revocation-list-rollback',
    `The record of revocation lists seen (${file}) cannot be read, so a rollback cannot be ruled out: ${(error as Error).message}. Repair or remove it.`,
    {cause: error, details: {path: file}},
  )
}
