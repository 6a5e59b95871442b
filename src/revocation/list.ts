import {createHash} from 'node:crypto'
import {readJsonDocument} from '../json/strict-json.js'
import {decodeBase64, encodeBase64} from '../pki/base64.js'
import {certificateIdPattern, rootKeyIdPattern} from '../pki/certificate.js'
import {publicKeyOf, sign, signatureLength, verifyStrict} from '../pki/ed25519.js'
import {RevocationError} from './errors.js'
import {formatTimestamp, parseTimestamp} from '../pki/timestamp.js'
import {parseTrustStore, type TrustStore, trustedRootKey} from '../pki/trust.js'
import {formatMiB} from '../quantities.js'

/**
 * The root-signed revocation list (`revocations.json` + `revocations.sig`).
 *
 * `revocations.json` is a UTF-8 JSON object with exactly these members, in this order when written:
 * - `schemaVersion`: `1`;
 * - `rootKeyId`: the trust-store root whose key signs the list (`^root_[0-9a-z]{4,32}$`);
 * - `sequence`: an integer ≥ 1 (at most 2^53 − 1), raised by one at every re-signing; a host refuses a
 *   lower one than it has seen (`revocation-list-rollback`, see install/revocation-state.ts);
 * - `issuedAt`, `nextUpdate`: `YYYY-MM-DDTHH:MM:SSZ` (the signing layer's one timestamp format),
 *   `nextUpdate` strictly after `issuedAt`; a verifier whose clock is past `nextUpdate` calls the list stale;
 * - `entries`: an array of `{kind, value, revokedAt, reason}` (exactly these members), at most one entry
 *   per `kind` + `value`:
 *   - `kind` `"certificate"`: `value` is a certificate id (`cert_` + 32 lowercase hex), a package or an
 *     issuer certificate; revoking an issuer revokes everything it issued;
 *   - `kind` `"key"`: `value` is the key fingerprint, `sha256:` + 64 lowercase hex of the SHA-256 of the
 *     raw 32-byte Ed25519 public key (the bytes the base64 `publicKey` of a certificate decodes to);
 *   - `kind` `"artifact"`: `value` is the canonical artifact digest, `sha256:` + 64 lowercase hex of
 *     SHA-256(P) (the digest the artifact signature covers, whoever signed it);
 *   - `revokedAt`: a timestamp in the same format;
 *   - `reason`: one of {@link revocationReasons}.
 * Unknown members are refused anywhere: an older verifier must never silently skip a newer rule.
 *
 * `revocations.sig` is one line of standard padded base64 of the 64-byte Ed25519 signature, then `\n`,
 * by the root key over `svc-plugin-revocations/1\n` followed by the exact bytes of `revocations.json`
 * (domain-separated like certificates, so a list signature never verifies as anything else).
 */

/** What an entry revokes: a certificate (by id), a key (by fingerprint) or one artifact (by digest). */
export const revocationKinds = ['certificate', 'key', 'artifact'] as const
/** One of `certificate`, `key`, `artifact`. */
export type RevocationKind = (typeof revocationKinds)[number]

/**
 * Why something was revoked. `key-compromise` and `malicious` mean the signer's own word (its `signedAt`)
 * cannot be believed, so a certificate revoked for them refuses every signature; the others
 * (`superseded`, `cessation-of-operation`, `unspecified`) refuse signatures made at or after `revokedAt`.
 */
export const revocationReasons = ['unspecified', 'key-compromise', 'superseded', 'cessation-of-operation', 'malicious'] as const
/** One of {@link revocationReasons}. */
export type RevocationReason = (typeof revocationReasons)[number]

/** One revocation, as the list carries it. */
export interface RevocationEntry {
  kind: RevocationKind
  /** `cert_…` for a certificate, `sha256:<hex>` for a key fingerprint or an artifact digest. */
  value: string
  /** `YYYY-MM-DDTHH:MM:SSZ`. */
  revokedAt: string
  reason: RevocationReason
}

/** The parsed `revocations.json`. */
export interface RevocationListContent {
  schemaVersion: 1
  rootKeyId: string
  sequence: number
  issuedAt: string
  nextUpdate: string
  entries: RevocationEntry[]
}

/** A revocation list as it travels: the exact bytes of `revocations.json` and the base64 signature text. */
export interface RevocationList {
  /** The exact bytes of revocations.json: the signature covers them, so they are never re-serialised. */
  json: Uint8Array
  /** Base64 of the 64-byte signature (the `.sig` file's text, a trailing newline allowed). */
  sig: string
}

/** A list whose root signature and shape were checked. */
export interface VerifiedRevocationList extends RevocationList {
  content: RevocationListContent
  /** True when the verifier's clock is past `nextUpdate` (only returned when stale lists were allowed). */
  stale: boolean
}

/** What a verification result says about the list it applied. */
export interface RevocationListSummary {
  rootKeyId: string
  sequence: number
  issuedAt: string
  nextUpdate: string
  stale: boolean
}

/** The file names of a list: `revocations.json` and, beside it, `revocations.sig`. */
export const revocationFileNames = {json: 'revocations.json', sig: 'revocations.sig'} as const
/** How long a newly signed list stays fresh unless `nextUpdate` is given: 7 days. */
export const defaultRevocationListValidityMs = 7 * 24 * 60 * 60 * 1000
/** Largest revocations.json read (a list of many thousand entries stays far below it). */
export const maxRevocationListBytes = 16 * 1024 * 1024

const revocationDomain = 'svc-plugin-revocations/1\n'
const listMembers = ['schemaVersion', 'rootKeyId', 'sequence', 'issuedAt', 'nextUpdate', 'entries']
const entryMembers = ['kind', 'value', 'revokedAt', 'reason']
const digestValue = /^sha256:[0-9a-f]{64}$/

/** The bytes a list signature covers: `svc-plugin-revocations/1\n` then the exact revocations.json bytes. */
export function revocationListMessage(json: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(revocationDomain, 'utf8'), json])
}

/** The fingerprint a `key` entry names: `sha256:` + hex SHA-256 of the raw 32-byte public key. */
export function publicKeyFingerprint(publicKey: Uint8Array): string {
  return `sha256:${createHash('sha256').update(publicKey).digest('hex')}`
}

/** True when a certificate revoked for `reason` refuses every signature, whatever its `signedAt`. */
export function refusesEverySignature(reason: RevocationReason): boolean {
  return reason === 'key-compromise' || reason === 'malicious'
}

/** Why `value` is not a revocation entry (a sentence), or null. */
export function checkRevocationEntry(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it must be an object'
  const fields = value as Record<string, unknown>
  const unknown = Object.keys(fields).find((key) => !entryMembers.includes(key))
  if (unknown !== undefined) return `it has the unknown member ${JSON.stringify(unknown)}`
  const {kind, value: target, revokedAt, reason} = fields
  if (!(revocationKinds as readonly unknown[]).includes(kind)) return `kind must be one of ${revocationKinds.join(', ')}`
  if (kind === 'certificate' && (typeof target !== 'string' || !certificateIdPattern.test(target))) return 'a certificate value must be "cert_" followed by 32 lowercase hex digits'
  if (kind !== 'certificate' && (typeof target !== 'string' || !digestValue.test(target))) return `a ${kind as string} value must be "sha256:" followed by 64 lowercase hex digits`
  if (parseTimestamp(revokedAt) === null) return 'revokedAt must be a UTC time written YYYY-MM-DDTHH:MM:SSZ'
  if (!(revocationReasons as readonly unknown[]).includes(reason)) return `reason must be one of ${revocationReasons.join(', ')}`
  return null
}

/** Why `value` is not the content of a revocation list (a sentence), or null. */
export function checkRevocationListContent(value: Record<string, unknown>): string | null {
  const unknown = Object.keys(value).find((key) => !listMembers.includes(key))
  if (unknown !== undefined) return `it has the unknown member ${JSON.stringify(unknown)}`
  const {schemaVersion, rootKeyId, sequence, issuedAt, nextUpdate, entries} = value
  // An unknown version fails here: its rules cannot be applied by this verifier.
  if (schemaVersion !== 1) return 'schemaVersion must be 1'
  if (typeof rootKeyId !== 'string' || !rootKeyIdPattern.test(rootKeyId)) return 'rootKeyId must be "root_" followed by 4 to 32 of [0-9a-z]'
  if (typeof sequence !== 'number' || !Number.isSafeInteger(sequence) || sequence < 1) return 'sequence must be an integer of at least 1'
  for (const [name, time] of [['issuedAt', issuedAt], ['nextUpdate', nextUpdate]] as const) {
    if (parseTimestamp(time) === null) return `${name} must be a UTC time written YYYY-MM-DDTHH:MM:SSZ`
  }
  if ((parseTimestamp(nextUpdate) as number) <= (parseTimestamp(issuedAt) as number)) return 'nextUpdate must be after issuedAt'
  if (!Array.isArray(entries)) return 'entries must be an array'
  const seen = new Set<string>()
  for (const [index, entry] of entries.entries()) {
    const problem = checkRevocationEntry(entry)
    if (problem !== null) return `entries[${index}]: ${problem}`
    const key = entryKey(entry as RevocationEntry)
    // Two entries for one target would leave its revokedAt and reason ambiguous.
    if (seen.has(key)) return `entries[${index}] revokes ${(entry as RevocationEntry).kind} ${(entry as RevocationEntry).value} a second time`
    seen.add(key)
  }
  return null
}

/**
 * Verifies a list (in this order, first failure decides, all `revocation-list-invalid`): the signature
 * text is one line of base64 of 64 bytes; revocations.json is a strict JSON object (the toolchain's one JSON dialect,
 * at most 16 MiB) with a well-formed `rootKeyId`; the trust store holds that root; the root's strict
 * Ed25519 signature over `svc-plugin-revocations/1\n` + the bytes verifies; the content
 * has the shape documented above. Then, with the clock past `nextUpdate`, `revocation-list-stale` unless
 * `allowStale` (a stale list may lack a recent revocation: see `verifyContents`).
 */
export function verifyRevocationList(list: RevocationList, trust: TrustStore, options: {now?: Date; allowStale?: boolean} = {}): VerifiedRevocationList {
  const store = parseTrustStore(trust)
  return verifyListWith(list, options, {
    rootKey: (rootKeyId) => trustedRootKey(store, rootKeyId) ?? `The revocation list is signed by the root ${rootKeyId}, which the trust store does not hold.`,
    badSignature: (rootKeyId) => `The root signature over revocations.json does not verify under the key of ${rootKeyId}.`,
  })
}

/** The checks of `verifyRevocationList`, with the root key found by `rootKey` (a key, or why there is none). */
function verifyListWith(
  list: RevocationList,
  options: {now?: Date; allowStale?: boolean},
  root: {rootKey: (rootKeyId: string) => Uint8Array | string; badSignature: (rootKeyId: string) => string},
): VerifiedRevocationList {
  const signature = decodeSignature(list.sig)
  if (signature === null) throw invalid(`revocations.sig is not one line of base64 of ${signatureLength} bytes.`)
  const value = readListObject(list.json)
  const {rootKeyId} = value
  if (typeof rootKeyId !== 'string' || !rootKeyIdPattern.test(rootKeyId)) throw invalid('The revocation list has no well-formed rootKeyId ("root_" followed by 4 to 32 of [0-9a-z]).')
  const rootKey = root.rootKey(rootKeyId)
  if (typeof rootKey === 'string') throw invalid(rootKey)
  if (!verifyStrict(signature, revocationListMessage(list.json), rootKey)) throw invalid(root.badSignature(rootKeyId))
  const content = listContentOf(value)
  const now = options.now ?? new Date()
  const verified = {json: list.json, sig: list.sig, content, stale: now.getTime() > (parseTimestamp(content.nextUpdate) as number)}
  if (options.allowStale !== true) assertFreshRevocationList(verified, now)
  return verified
}

/**
 * Throws `revocation-list-stale` for a list the verifier's clock `now` is past the `nextUpdate` of (at
 * `nextUpdate` exactly it is still fresh): it may lack a recent revocation.
 */
export function assertFreshRevocationList(list: VerifiedRevocationList, now: Date): void {
  if (!list.stale) return
  const {sequence, nextUpdate} = list.content
  throw new RevocationError(
    'revocation-list-stale',
    `The revocation list (sequence ${sequence}) was due to be replaced at ${nextUpdate}; it is now ${formatTimestamp(now)}. Fetch a current list.`,
    {details: {sequence, nextUpdate}},
  )
}

/**
 * The content of revocations.json judged by its shape alone (strict JSON, the members of a list), not by
 * its signature: for a list verified before and kept since. Throws `revocation-list-invalid`.
 */
export function readRevocationListContent(json: Uint8Array): RevocationListContent {
  return listContentOf(readListObject(json))
}

function listContentOf(value: Record<string, unknown>): RevocationListContent {
  const problem = checkRevocationListContent(value)
  if (problem !== null) throw invalid(`The revocation list is malformed: ${problem}.`)
  return value as unknown as RevocationListContent
}

/** The summary of a verified list for a verification result. */
export function summarizeRevocationList(list: VerifiedRevocationList): RevocationListSummary {
  const {rootKeyId, sequence, issuedAt, nextUpdate} = list.content
  return {rootKeyId, sequence, issuedAt, nextUpdate, stale: list.stale}
}

/** What to revoke: the target and reason; `revokedAt` defaults to the signing time of the new list. */
export interface RevocationRequest {
  kind: RevocationKind
  value: string
  reason: RevocationReason
  revokedAt?: Date | string
}

/** Times of a newly signed list. */
export interface RevocationListTimes {
  /** `issuedAt` (and the default `revokedAt`); default now. */
  now?: Date
  /** Default `now` + 7 days ({@link defaultRevocationListValidityMs}); must be after `now`. */
  nextUpdate?: Date | string
}

/** What `createRevocationList` needs. */
export interface CreateRevocationListOptions extends RevocationListTimes {
  rootKeyId: string
  /** The root's 32-byte private seed. */
  rootPrivateKey: Uint8Array
  /** Default none. */
  entries?: readonly RevocationRequest[]
  /** Default 1. */
  sequence?: number
}

/** Creates and signs a list (default: sequence 1, no entries, fresh for 7 days). */
export function createRevocationList(options: CreateRevocationListOptions): VerifiedRevocationList {
  return signList(newRevocationListContent(options), options.rootPrivateKey)
}

/** The content of a new list (default: sequence 1, no entries, fresh for 7 days), not yet signed. */
export function newRevocationListContent(options: Omit<CreateRevocationListOptions, 'rootPrivateKey'>): RevocationListContent {
  if (!rootKeyIdPattern.test(options.rootKeyId)) {
    throw new RevocationError('invalid-root-key-id', `The root key id ${JSON.stringify(options.rootKeyId)} must be "root_" followed by 4 to 32 of [0-9a-z].`)
  }
  const now = options.now ?? new Date()
  const entries: RevocationEntry[] = []
  for (const request of options.entries ?? []) {
    const entry = entryOf(request, now)
    if (entries.some((existing) => entryKey(existing) === entryKey(entry))) {
      throw new RevocationError('already-revoked', `${entry.kind} ${entry.value} is listed twice.`, {details: {kind: entry.kind, value: entry.value}})
    }
    entries.push(entry)
  }
  return {schemaVersion: 1, rootKeyId: options.rootKeyId, sequence: options.sequence ?? 1, ...listTimes(now, options.nextUpdate), entries}
}

/**
 * Adds a revocation to `list` and re-signs it: `sequence` + 1, `issuedAt` now, `nextUpdate` as given or
 * now + 7 days. The list must verify under `rootPrivateKey`'s public key (`revocation-list-invalid`
 * otherwise: another root's key, or an altered list), stale or not. A target already listed is
 * replaced only when the new entry refuses strictly more signatures (a `superseded` certificate later
 * found `key-compromise`d, an earlier `revokedAt`); otherwise `already-revoked`: revocation only widens.
 */
export function revoke(list: RevocationList, request: RevocationRequest, rootPrivateKey: Uint8Array, options: RevocationListTimes = {}): VerifiedRevocationList {
  return signList(revokedListContent(list, request, publicKeyOf(rootPrivateKey), options), rootPrivateKey)
}

/**
 * The content {@link revoke} signs, before it is signed: `list` must verify under `rootPublicKey`
 * (`revocation-list-invalid`), stale or not; the entry is added, or replaces a less strict one (`already-revoked` otherwise).
 */
export function revokedListContent(list: RevocationList, request: RevocationRequest, rootPublicKey: Uint8Array, options: RevocationListTimes = {}): RevocationListContent {
  // Extending a list needs the list to be this root's and intact; it may be stale (that is why it is re-signed).
  const current = verifyListWith(list, {allowStale: true}, {
    rootKey: () => rootPublicKey,
    badSignature: (rootKeyId) => `The revocation list does not verify under the given root key: the list names ${rootKeyId}, so either the key is another root's or the list was altered.`,
  })
  const now = options.now ?? new Date()
  const entry = entryOf(request, now)
  const entries = [...current.content.entries]
  const index = entries.findIndex((existing) => entryKey(existing) === entryKey(entry))
  if (index === -1) entries.push(entry)
  else {
    const existing = entries[index] as RevocationEntry
    if (covers(existing, entry)) {
      throw new RevocationError('already-revoked', `${entry.kind} ${entry.value} is already revoked (${existing.reason}, ${existing.revokedAt}), at least as strictly.`, {
        details: {kind: entry.kind, value: entry.value, existing},
      })
    }
    entries[index] = entry
  }
  const {content} = current
  return {schemaVersion: 1, rootKeyId: content.rootKeyId, sequence: content.sequence + 1, ...listTimes(now, options.nextUpdate), entries}
}

/** `kind value`: the identity of an entry's target. */
export function entryKey(entry: Pick<RevocationEntry, 'kind' | 'value'>): string {
  return `${entry.kind} ${entry.value}`
}

/** True when `existing` already refuses every signature `next` would. */
function covers(existing: RevocationEntry, next: RevocationEntry): boolean {
  if (existing.kind !== 'certificate' || refusesEverySignature(existing.reason)) return true
  if (refusesEverySignature(next.reason)) return false
  return (parseTimestamp(existing.revokedAt) as number) <= (parseTimestamp(next.revokedAt) as number)
}

function entryOf(request: RevocationRequest, now: Date): RevocationEntry {
  const entry = {kind: request.kind, value: request.value, revokedAt: timeText(request.revokedAt ?? now, 'revokedAt'), reason: request.reason}
  const problem = checkRevocationEntry(entry)
  if (problem !== null) throw new RevocationError('invalid-revocation', `The revocation cannot be listed: ${problem}.`, {details: {kind: request.kind, value: request.value}})
  return entry
}

function listTimes(now: Date, nextUpdate: Date | string | undefined): {issuedAt: string; nextUpdate: string} {
  const issuedAt = timeText(now, 'issuedAt')
  const next = timeText(nextUpdate ?? new Date((parseTimestamp(issuedAt) as number) + defaultRevocationListValidityMs), 'nextUpdate')
  if ((parseTimestamp(next) as number) <= (parseTimestamp(issuedAt) as number)) {
    throw new RevocationError('invalid-validity', `nextUpdate (${next}) must be after issuedAt (${issuedAt}).`)
  }
  return {issuedAt, nextUpdate: next}
}

function timeText(value: Date | string, name: string): string {
  const text = value instanceof Date ? (Number.isNaN(value.getTime()) ? '' : formatTimestamp(value)) : value
  if (parseTimestamp(text) === null) throw new RevocationError('invalid-validity', `${name} ${JSON.stringify(String(value))} is not a UTC time written YYYY-MM-DDTHH:MM:SSZ.`)
  return text
}

/** Signs `content` with the root's private key ({@link revocationListBytes}, then the signature over {@link revocationListMessage}). */
function signList(content: RevocationListContent, rootPrivateKey: Uint8Array): VerifiedRevocationList {
  const unsigned = revocationListBytes(content)
  return signedRevocationList(unsigned, sign(revocationListMessage(unsigned.json), rootPrivateKey))
}

/**
 * Serialises `content` (members in the documented order, 2-space indent, final `\n`): the exact bytes of
 * revocations.json a signature will cover. `invalid-revocation` when the list would be malformed.
 */
export function revocationListBytes(content: RevocationListContent): {json: Uint8Array; content: RevocationListContent} {
  const problem = checkRevocationListContent(content as unknown as Record<string, unknown>)
  if (problem !== null) throw new RevocationError('invalid-revocation', `The revocation list would be malformed: ${problem}.`)
  const ordered: RevocationListContent = {
    schemaVersion: content.schemaVersion,
    rootKeyId: content.rootKeyId,
    sequence: content.sequence,
    issuedAt: content.issuedAt,
    nextUpdate: content.nextUpdate,
    entries: content.entries.map(({kind, value, revokedAt, reason}) => ({kind, value, revokedAt, reason})),
  }
  return {json: new Uint8Array(Buffer.from(`${JSON.stringify(ordered, null, 2)}\n`, 'utf8')), content: ordered}
}

/** A serialised list and the 64-byte root signature over its {@link revocationListMessage}, as a signed list. */
export function signedRevocationList(unsigned: {json: Uint8Array; content: RevocationListContent}, signature: Uint8Array): VerifiedRevocationList {
  return {json: unsigned.json, sig: encodeBase64(signature), content: unsigned.content, stale: false}
}

/**
 * The list a prepared statement carries (`svc-plugin-revocations/1\n` then the new revocations.json's exact
 * bytes), judged by its shape; null when the bytes are not such a statement.
 */
export function revocationListOfStatement(statement: Uint8Array): RevocationListContent | null {
  const domain = Buffer.from(revocationDomain, 'utf8')
  if (!Buffer.from(statement.subarray(0, domain.length)).equals(domain)) return null
  try {
    return readRevocationListContent(statement.subarray(domain.length))
  } catch {
    return null
  }
}

/** revocations.json as a strict JSON object, or `revocation-list-invalid`. */
function readListObject(json: Uint8Array): Record<string, unknown> {
  if (json.length > maxRevocationListBytes) throw invalid(`revocations.json is ${formatMiB(json.length)}, more than the ${formatMiB(maxRevocationListBytes)} a revocation list may be.`)
  const document = readJsonDocument(json, {maxBytes: Number.POSITIVE_INFINITY})
  if (!document.ok) throw invalid(`revocations.json is not a strict JSON object: ${document.problem.message}`)
  return document.value
}

function decodeSignature(text: string): Uint8Array | null {
  return decodeBase64(text.endsWith('\n') ? text.slice(0, -1) : text, signatureLength)
}

function invalid(message: string): RevocationError {
  return new RevocationError('revocation-list-invalid', message)
}
