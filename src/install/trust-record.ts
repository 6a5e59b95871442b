import {writeFileAtomic} from '../fs/output.js'
import type {Certificate} from '../pki/certificate.js'
import {isSemVer} from '../model/semver.js'
import type {StoreSignature} from '../signing/countersignature.js'
import {readStateFile} from './data-root.js'
import {InstallError} from './errors.js'

/** The verdicts an install can admit: Trusted, or Unsigned when the caller allowed it. */
export type AdmittedVerdict = 'Trusted' | 'Unsigned'

/** How one installed version was admitted. */
export interface VersionAdmission {
  verdict: AdmittedVerdict
  certificateId: string | null
  /** The signing certificate's subject (kind and id) of a Trusted admission. */
  publisher?: PinnedPublisher | null
  /** The store countersignature verified at admission: the registry certificate, the store, when it countersigned. */
  storeSignature?: StoreSignature | null
  /** RFC 3339 UTC. */
  admittedAt: string
}

/** Who signed a plugin: the subject kind and id of its package certificate, and the root that certified it. */
export interface PinnedPublisher {
  kind: string
  id: string
  /** The trust-store root the certificate chains to (absent in records written before roots were pinned). */
  rootKeyId?: string
}

/**
 * `<id>/trust.json`: the most trust this plugin was ever admitted with, and how each installed
 * version was admitted. The plugin-level verdict never goes down: a plugin once admitted Trusted accepts
 * only Trusted versions, across updates, rollbacks and uninstalls (only a purge forgets it).
 */
export interface TrustRecord {
  verdict: AdmittedVerdict
  /** The certificate of the latest Trusted version, null when never signed. */
  certificateId: string | null
  /** The subject that signed the Trusted versions: an update signed by anyone else is refused. */
  publisher: PinnedPublisher | null
  versions: Record<string, VersionAdmission>
}

const rank: Record<AdmittedVerdict, number> = {Unsigned: 0, Trusted: 1}

/**
 * Reads a trust record; null when there is none. A record that exists but cannot be read as one fails
 * closed: it is taken as Trusted with no versions, so that tampering with it can never lower the bar.
 */
export async function readTrustRecord(file: string): Promise<TrustRecord | null> {
  const text = await readStateFile(file)
  if (text === null) return null
  return parseTrustRecord(text) ?? {verdict: 'Trusted', certificateId: null, publisher: null, versions: {}}
}

function parseTrustRecord(text: string): TrustRecord | null {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof value !== 'object' || value === null) return null
  const {verdict, certificateId, publisher, versions} = value as Record<string, unknown>
  if (!isAdmittedVerdict(verdict) || !(typeof certificateId === 'string' || certificateId === null)) return null
  const admissions: Record<string, VersionAdmission> = {}
  if (typeof versions === 'object' && versions !== null) {
    for (const [version, entry] of Object.entries(versions)) {
      const admission = entry as Partial<VersionAdmission> | null
      // Only a version's own record counts: a key that is not a version (`__proto__` among them) is no admission.
      if (!isSemVer(version) || admission === null || typeof admission !== 'object' || !isAdmittedVerdict(admission.verdict)) continue
      admissions[version] = {
        verdict: admission.verdict,
        certificateId: typeof admission.certificateId === 'string' ? admission.certificateId : null,
        publisher: pinnedPublisherOf(admission.publisher),
        storeSignature: storeSignatureOf(admission.storeSignature),
        admittedAt: typeof admission.admittedAt === 'string' ? admission.admittedAt : '',
      }
    }
  }
  return {verdict, certificateId, publisher: pinnedPublisherOf(publisher), versions: admissions}
}

/** A `{kind, id, rootKeyId?}` publisher read back from JSON, or null. */
export function pinnedPublisherOf(value: unknown): PinnedPublisher | null {
  if (typeof value !== 'object' || value === null) return null
  const {kind, id, rootKeyId} = value as Record<string, unknown>
  if (typeof kind !== 'string' || typeof id !== 'string') return null
  return typeof rootKeyId === 'string' ? {kind, id, rootKeyId} : {kind, id}
}

/** A store countersignature's admission read back from JSON, or null. */
function storeSignatureOf(value: unknown): StoreSignature | null {
  if (typeof value !== 'object' || value === null) return null
  const {certificateId, issuerCertificateId, store, countersignedAt} = value as Record<string, unknown>
  if (typeof certificateId !== 'string' || typeof store !== 'string' || typeof countersignedAt !== 'string') return null
  return {certificateId, issuerCertificateId: typeof issuerCertificateId === 'string' ? issuerCertificateId : null, store, countersignedAt}
}

/** The publisher a certificate certifies: its subject under its root; null without a certificate. */
export function publisherOfCertificate(certificate: Certificate | null): PinnedPublisher | null {
  return certificate === null ? null : {kind: certificate.subject.kind, id: certificate.subject.id, rootKeyId: certificate.rootKeyId}
}

/**
 * True when two publishers are the same subject under the same root (a record written before roots were
 * pinned compares the subject alone).
 */
export function isSamePublisher(pinned: PinnedPublisher, other: PinnedPublisher): boolean {
  if (pinned.kind !== other.kind || pinned.id !== other.id) return false
  return pinned.rootKeyId === undefined || other.rootKeyId === undefined || pinned.rootKeyId === other.rootKeyId
}

function isAdmittedVerdict(value: unknown): value is AdmittedVerdict {
  return value === 'Trusted' || value === 'Unsigned'
}

/** Writes a trust record atomically. */
export async function writeTrustRecord(file: string, record: TrustRecord): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(record, null, 2)}\n`)
}

/**
 * Throws `trust-downgrade` when admitting `verdict` would accept less trust than `record` already holds
 * (once Trusted, never Unsigned). `what` names the version for the message.
 */
export function assertNoTrustDowngrade(record: TrustRecord | null, verdict: AdmittedVerdict, id: string, what: string): void {
  if (record === null || rank[verdict] >= rank[record.verdict]) return
  throw new InstallError(
    'trust-downgrade',
    `${id} was admitted as ${record.verdict}; ${what} is ${verdict} and would lower that trust. Uninstall with purge to start over.`,
    {details: {id, admittedVerdict: record.verdict, verdict, certificateId: record.certificateId}},
  )
}

/**
 * Throws `publisher-changed` when a Trusted update is signed by another subject than the one the plugin
 * was admitted from: any publisher certified by a trusted root could otherwise replace another's
 * plugin by reusing its id. A record without a pinned publisher (never Trusted) pins nothing.
 */
export function assertSamePublisher(record: TrustRecord | null, publisher: PinnedPublisher | null, id: string, what: string): void {
  const pinned = record?.publisher ?? null
  if (pinned === null || publisher === null || isSamePublisher(pinned, publisher)) return
  throw new InstallError(
    'publisher-changed',
    `${id} was admitted from ${describePublisher(pinned)}; ${what} is signed by ${describePublisher(publisher)}. Uninstall with purge to accept another publisher.`,
    {details: {id, pinned, publisher}},
  )
}

/** The record after admitting `version` with `verdict`: the plugin-level verdict only ever rises. */
export function admitVersion(record: TrustRecord | null, version: string, admission: VersionAdmission): TrustRecord {
  const verdict = record !== null && rank[record.verdict] > rank[admission.verdict] ? record.verdict : admission.verdict
  const trusted = admission.verdict === 'Trusted'
  const certificateId = trusted ? admission.certificateId : (record?.certificateId ?? null)
  const publisher = (trusted ? admission.publisher : null) ?? record?.publisher ?? null
  return {verdict, certificateId, publisher, versions: {...record?.versions, [version]: admission}}
}

/** The record with the admissions of versions no longer installed dropped (the plugin-level verdict stays). */
export function forgetVersions(record: TrustRecord, installed: readonly string[]): TrustRecord {
  const keep = new Set(installed)
  return {...record, versions: Object.fromEntries(Object.entries(record.versions).filter(([version]) => keep.has(version)))}
}

function describePublisher(publisher: PinnedPublisher): string {
  return `${publisher.kind} ${publisher.id}${publisher.rootKeyId === undefined ? '' : ` (root ${publisher.rootKeyId})`}`
}
