import {InputFileError, readInputFile} from '../fs/input.js'
import {readJsonDocument} from '../json/strict-json.js'
import {decodeBase64, encodeBase64} from '../pki/base64.js'
import {type Certificate, certificateIdPattern, certificatePublicKey, maxCertificateBytes, validityAt} from '../pki/certificate.js'
import {checkChain, type ChainFiles} from '../pki/chain.js'
import {signatureLength, verifyStrict} from '../pki/ed25519.js'
import {isTimestamp, maxClockSkewMs, parseTimestamp} from '../pki/timestamp.js'
import type {TrustStore} from '../pki/trust.js'
import {checkRevocations} from '../revocation/check.js'
import type {RevocationListContent} from '../revocation/list.js'

/**
 * A store's countersignature (docs/countersignature.md): a detached file, `<artifact>.countersig` by
 * convention, in which a store that accepted an upload signs, with a `registry` certificate, a statement
 * naming the artifact file's SHA-256, its canonical digest P and the publisher's signature. The artifact is
 * not changed by a byte. This module owns the format: the statement's bytes, the file's one canonical form,
 * and the check a host runs.
 */

/** The first line of the statement and the `format` member of the file. */
export const countersignatureFormat = 'svc-plugin-countersignature/1'

/** The file name suffix a countersignature is looked for under, beside its artifact. */
export const countersignatureSuffix = '.countersig'

/** The largest countersignature file read: two certificates in base64 and a few short values. */
export const maxCountersignatureBytes = 256 * 1024

/** What a countersignature states: every line of the signed statement. */
export interface CountersignatureStatement {
  /** The registry certificate's `certificateId`. */
  keyId: string
  /** `YYYY-MM-DDTHH:MM:SSZ`: when the store countersigned. */
  countersignedAt: string
  /** `sha256:` + hex SHA-256 of the whole artifact file, byte for byte. */
  artifactSha256: string
  /** `sha256:` + hex SHA-256 of the canonical artifact digest P the publisher signed. */
  artifactDigest: string
  /** The publisher signature's `value` (canonical base64 of 64 bytes), as the signed manifest's trailer holds it. */
  publisherSignature: string
}

/** A countersignature file: the statement, the store's signature over it and the certificate chain that vouches for the key. */
export interface Countersignature extends CountersignatureStatement {
  /** Canonical base64 of the 64-byte Ed25519 signature over the statement. */
  signature: string
  /** The exact bytes of the registry certificate's JSON and its signature (base64 of 64 bytes). */
  certificate: Uint8Array
  certificateSignature: string
  /** The issuer certificate, when the registry certificate was issued by one. */
  issuer?: {certificate: Uint8Array; signature: string}
}

/** What a verified countersignature tells a host, and what an install records of it. */
export interface StoreSignature {
  /** The registry certificate that countersigned. */
  certificateId: string
  /** Its issuer certificate, when there is one. */
  issuerCertificateId: string | null
  /** The store that countersigned: the registry certificate's subject id. */
  store: string
  countersignedAt: string
}

/** Why a countersignature does not hold: always `store-signature-invalid`, with a sentence saying which check failed. */
export interface StoreSignatureProblem {
  code: 'store-signature-invalid'
  message: string
}

/** What the countersignature is checked against: the artifact as it was read, and the verification's context. */
export interface CountersignedSubject {
  /** `sha256:` + hex SHA-256 of the artifact file. */
  fileSha256: string
  /** Hex SHA-256 of P, from the publisher signature that verified. */
  artifactDigest: string
  /** The publisher signature's value. */
  publisherSignature: string
}

/** The trust store, the one reference time and the revocation lists of the operation. */
export interface CountersignatureContext {
  trust: TrustStore | null
  now: Date
  revocations: readonly RevocationListContent[]
}

/** The countersignature a verification checks: its bytes (null when there is none) and the artifact file's hash. */
export interface StoreSignatureRequirement {
  /** Refuse an artifact without a countersignature (`store-signature-missing`). */
  required: boolean
  /** The countersignature file's bytes; null when none was found. */
  bytes: Uint8Array | null
  /** `sha256:` + hex SHA-256 of the artifact file, hashed through the descriptor the artifact was read from. */
  fileSha256: string
}

/** How a caller asks for a store countersignature to be checked (verifyArtifact, install). */
export interface StoreSignatureOptions {
  /**
   * Refuse an artifact unless a store countersignature holds for it: `store-signature-missing` without one,
   * `store-signature-invalid` when it does not hold. Looked for at `<artifact>.countersig` unless
   * `storeSignature` says where it is.
   */
  requireStoreSignature?: boolean
  /** The store countersignature: its bytes, or the path of its file. One given is checked, required or not. */
  storeSignature?: Uint8Array | string
}

/**
 * The countersignature a verification of `artifact` checks, from the caller's options: null when none is
 * asked for; otherwise its bytes (null when the file is not there: then it is missing). A file that is there
 * but cannot be read is the input's own error (`not-a-regular-file`, `unreadable`).
 */
export async function findStoreSignature(artifact: string, options: StoreSignatureOptions): Promise<{required: true; bytes: Uint8Array | null} | null> {
  const {requireStoreSignature, storeSignature} = options
  if (requireStoreSignature !== true && storeSignature === undefined) return null
  if (storeSignature instanceof Uint8Array) return {required: true, bytes: storeSignature}
  const file = storeSignature ?? `${artifact}${countersignatureSuffix}`
  try {
    // One byte past the limit: enough for the format check to refuse a larger file.
    return {required: true, bytes: new Uint8Array((await readInputFile(file, {limit: maxCountersignatureBytes + 1})).bytes)}
  } catch (error) {
    if (error instanceof InputFileError && error.code === 'file-not-found') return {required: true, bytes: null}
    throw error
  }
}

/** Why a store countersignature refuses: there is none where one is required, or it does not hold. */
export type StoreSignatureCode = 'store-signature-missing' | 'store-signature-invalid'

/**
 * The countersignature step of a verification: nothing to check (null) without a requirement, or without
 * bytes when none is required; `store-signature-missing` without bytes when one is required; otherwise
 * {@link checkCountersignature} (a context without a trust store can vouch for no store: invalid).
 */
export function checkStoreSignature(
  requirement: StoreSignatureRequirement | undefined,
  context: CountersignatureContext,
  publisher: Omit<CountersignedSubject, 'fileSha256'>,
): StoreSignature | {code: StoreSignatureCode; message: string} | null {
  if (requirement === undefined || (requirement.bytes === null && !requirement.required)) return null
  if (requirement.bytes === null) return {code: 'store-signature-missing', message: 'The artifact has no store countersignature, and one is required: it was not accepted by a store this host trusts.'}
  if (context.trust === null) return invalid('A store countersignature is checked only against a trust store, and none was given.')
  return checkCountersignature(requirement.bytes, {...publisher, fileSha256: requirement.fileSha256}, {...context, trust: context.trust})
}

const digestPattern = /^sha256:[0-9a-f]{64}$/
const signaturePattern = /^[A-Za-z0-9+/]{86}==$/
/** The file's members, in their one order; the issuer pair is present in full or not at all. */
const members = ['format', 'algorithm', 'keyId', 'countersignedAt', 'artifactSha256', 'artifactDigest', 'publisherSignature', 'signature', 'certificate', 'certificateSignature', 'issuerCertificate', 'issuerSignature'] as const

/** The exact bytes the store signs: seven ASCII lines, each ending with `\n`. */
export function countersignatureStatement(statement: CountersignatureStatement): Uint8Array {
  const lines = [
    countersignatureFormat,
    'algorithm ed25519',
    `key-id ${statement.keyId}`,
    `countersigned-at ${statement.countersignedAt}`,
    `artifact-sha256 ${statement.artifactSha256}`,
    `artifact-digest ${statement.artifactDigest}`,
    `publisher-signature ${statement.publisherSignature}`,
  ]
  return new Uint8Array(Buffer.from(`${lines.join('\n')}\n`, 'ascii'))
}

/**
 * The one canonical form of a countersignature file: a JSON object on one line, the members in the order of
 * `members`, no whitespace, no escapes (every value is printable ASCII without `"` or `\`), then one `\n`.
 */
export function renderCountersignature(countersignature: Countersignature): Uint8Array {
  const values: Record<(typeof members)[number], string | undefined> = {
    format: countersignatureFormat,
    algorithm: 'ed25519',
    keyId: countersignature.keyId,
    countersignedAt: countersignature.countersignedAt,
    artifactSha256: countersignature.artifactSha256,
    artifactDigest: countersignature.artifactDigest,
    publisherSignature: countersignature.publisherSignature,
    signature: countersignature.signature,
    certificate: encodeBase64(countersignature.certificate),
    certificateSignature: countersignature.certificateSignature,
    issuerCertificate: countersignature.issuer === undefined ? undefined : encodeBase64(countersignature.issuer.certificate),
    issuerSignature: countersignature.issuer?.signature,
  }
  const body = members.flatMap((name) => (values[name] === undefined ? [] : [`"${name}":"${values[name]}"`])).join(',')
  return new Uint8Array(Buffer.from(`{${body}}\n`, 'ascii'))
}

/**
 * Reads a countersignature file strictly: a strict JSON object with exactly the members of the format, each
 * value in its format (ids, times, digests, canonical base64 of the right length), and bytes equal to the
 * canonical form those values render to, so that a file has one spelling and any other byte is refused.
 * Returns the countersignature, or a sentence saying why the file is not one.
 */
export function parseCountersignature(bytes: Uint8Array): Countersignature | string {
  if (bytes.length > maxCountersignatureBytes) return `it is ${bytes.length} bytes, more than the ${maxCountersignatureBytes} a countersignature may be`
  const document = readJsonDocument(bytes, {maxBytes: maxCountersignatureBytes})
  if (!document.ok) return `it is not strict JSON: ${document.problem.message}`
  const value = document.value
  const unknown = Object.keys(value).find((name) => !(members as readonly string[]).includes(name))
  if (unknown !== undefined) return `it has the unknown member ${JSON.stringify(unknown)}`
  const read = readMembers(value)
  if (typeof read === 'string') return read
  const canonical = renderCountersignature(read)
  if (!Buffer.from(canonical).equals(Buffer.from(bytes))) {
    return 'it is not written in its one canonical form (one line, the members in the order of the format, no whitespace, no escapes, one final line feed)'
  }
  return read
}

/** Every member's value in its format, or why not. */
function readMembers(value: Record<string, unknown>): Countersignature | string {
  const text = (name: string, valid: (text: string) => boolean, rule: string): string | {problem: string} => {
    const member = value[name]
    return typeof member === 'string' && valid(member) ? member : {problem: `${name} must be ${rule}`}
  }
  const base64Of = (length?: number) => (candidate: string) => decodeBase64(candidate, length) !== null
  const fields = {
    format: text('format', (candidate) => candidate === countersignatureFormat, JSON.stringify(countersignatureFormat)),
    algorithm: text('algorithm', (candidate) => candidate === 'ed25519', '"ed25519"'),
    keyId: text('keyId', (candidate) => certificateIdPattern.test(candidate), 'a certificate id ("cert_" and 32 lowercase hex digits)'),
    countersignedAt: text('countersignedAt', isTimestamp, 'a UTC time written YYYY-MM-DDTHH:MM:SSZ'),
    artifactSha256: text('artifactSha256', (candidate) => digestPattern.test(candidate), '"sha256:" and 64 lowercase hex digits'),
    artifactDigest: text('artifactDigest', (candidate) => digestPattern.test(candidate), '"sha256:" and 64 lowercase hex digits'),
    publisherSignature: text('publisherSignature', (candidate) => signaturePattern.test(candidate) && base64Of(signatureLength)(candidate), `canonical base64 of ${signatureLength} bytes`),
    signature: text('signature', (candidate) => signaturePattern.test(candidate) && base64Of(signatureLength)(candidate), `canonical base64 of ${signatureLength} bytes`),
    certificate: text('certificate', (candidate) => candidate !== '' && base64Of()(candidate) && candidate.length <= (maxCertificateBytes / 3) * 4 + 4, 'canonical base64 of a certificate of at most 64 KiB'),
    certificateSignature: text('certificateSignature', base64Of(signatureLength), `canonical base64 of ${signatureLength} bytes`),
  }
  for (const field of Object.values(fields)) if (typeof field !== 'string') return field.problem
  const read = fields as Record<keyof typeof fields, string>
  const issuer = readIssuer(value, base64Of)
  if (typeof issuer === 'string') return issuer
  return {
    keyId: read.keyId,
    countersignedAt: read.countersignedAt,
    artifactSha256: read.artifactSha256,
    artifactDigest: read.artifactDigest,
    publisherSignature: read.publisherSignature,
    signature: read.signature,
    certificate: decodeBase64(read.certificate) as Uint8Array,
    certificateSignature: read.certificateSignature,
    ...(issuer === null ? {} : {issuer}),
  }
}

/** The issuer pair: both members or neither. */
function readIssuer(value: Record<string, unknown>, base64Of: (length?: number) => (text: string) => boolean): Countersignature['issuer'] | null | string {
  const {issuerCertificate, issuerSignature} = value
  if (issuerCertificate === undefined && issuerSignature === undefined) return null
  if (typeof issuerCertificate !== 'string' || issuerCertificate === '' || !base64Of()(issuerCertificate)) return 'issuerCertificate must be canonical base64 of a certificate, given together with issuerSignature'
  if (typeof issuerSignature !== 'string' || !base64Of(signatureLength)(issuerSignature)) return `issuerSignature must be canonical base64 of ${signatureLength} bytes, given together with issuerCertificate`
  return {certificate: decodeBase64(issuerCertificate) as Uint8Array, signature: issuerSignature}
}

/** The chain files of a countersignature, as the chain check takes them (a `.sig` as its base64 text). */
export function countersignatureChain(countersignature: Pick<Countersignature, 'certificate' | 'certificateSignature' | 'issuer'>): ChainFiles {
  const text = (base64: string) => new Uint8Array(Buffer.from(base64, 'ascii'))
  return {
    certificateJson: countersignature.certificate,
    certificateSig: text(countersignature.certificateSignature),
    issuerJson: countersignature.issuer?.certificate ?? null,
    issuerSig: countersignature.issuer === undefined ? null : text(countersignature.issuer.signature),
  }
}

/**
 * Checks a countersignature file against the artifact it should vouch for, in this order (the first failure
 * decides; every failure is `store-signature-invalid`, its message says which):
 * 1. the file's format (see {@link parseCountersignature});
 * 2. the certificate chain up to a root of the trust store, with key usage `registry` (the chain check's
 *    rules and messages);
 * 3. `keyId` is the registry certificate's id;
 * 4. `countersignedAt` lies inside the certificate's validity, and at most 5 minutes ahead of the clock;
 * 5. the Ed25519 signature over the statement verifies under the certificate's key (strict rules);
 * 6. the statement names this artifact: its file SHA-256, its canonical digest, its publisher signature;
 * 7. no revocation list revokes the registry certificate, its key or its issuer (at `countersignedAt`).
 */
export function checkCountersignature(bytes: Uint8Array, subject: CountersignedSubject, context: CountersignatureContext & {trust: TrustStore}): StoreSignature | StoreSignatureProblem {
  const countersignature = parseCountersignature(bytes)
  if (typeof countersignature === 'string') return invalid(`The store countersignature is malformed: ${countersignature}.`)
  const chain = checkChain(countersignatureChain(countersignature), context.trust, 'registry')
  if ('code' in chain) return invalid(`The store countersignature's certificate does not hold (${chain.code}): ${chain.message}`)
  const {certificate, issuer} = chain
  const timing = checkCountersigningTime(countersignature, certificate, context.now)
  if (timing !== null) return timing
  const statement = countersignatureStatement(countersignature)
  if (!verifyStrict(decodeBase64(countersignature.signature, signatureLength) as Uint8Array, statement, certificatePublicKey(certificate))) {
    return invalid(`The store countersignature does not verify under the key of the registry certificate ${certificate.certificateId}.`)
  }
  const mismatch = checkStatementSubject(countersignature, subject)
  if (mismatch !== null) return mismatch
  const revoked = checkRevocations(context.revocations, {certificate, issuer, signedAt: countersignature.countersignedAt, artifactDigest: countersignature.artifactDigest})
  if (revoked !== null) return invalid(`The store countersignature is revoked: ${revoked.message}`)
  return {certificateId: certificate.certificateId, issuerCertificateId: issuer?.certificateId ?? null, store: certificate.subject.id, countersignedAt: countersignature.countersignedAt}
}

/** Steps 3 and 4: the key id, and the countersigning time against the certificate's validity and the clock. */
function checkCountersigningTime(countersignature: Countersignature, certificate: Certificate, now: Date): StoreSignatureProblem | null {
  if (countersignature.keyId !== certificate.certificateId) {
    return invalid(`The store countersignature names the key ${countersignature.keyId}, but carries the registry certificate ${certificate.certificateId}.`)
  }
  const at = parseTimestamp(countersignature.countersignedAt) as number
  const validity = validityAt(certificate, at)
  if (validity === 'not-yet-valid') return invalid(`The store countersigned at ${countersignature.countersignedAt}, before its registry certificate's validity starts (${certificate.notBefore}).`)
  if (validity === 'expired') return invalid(`The store countersigned at ${countersignature.countersignedAt}, after its registry certificate expired (${certificate.notAfter}).`)
  if (at > now.getTime() + maxClockSkewMs) return invalid(`The countersigning time ${countersignature.countersignedAt} is more than 5 minutes ahead of this clock (${now.toISOString()}).`)
  return null
}

/** Step 6: each statement field against the artifact, named when it differs. */
function checkStatementSubject(statement: CountersignatureStatement, subject: CountersignedSubject): StoreSignatureProblem | null {
  if (statement.artifactSha256 !== subject.fileSha256) {
    return invalid(`The store countersignature is for another artifact file: it names the SHA-256 ${statement.artifactSha256}, this file's is ${subject.fileSha256}.`)
  }
  if (statement.artifactDigest !== `sha256:${subject.artifactDigest}`) {
    return invalid(`The store countersignature is for another artifact: it names the canonical digest ${statement.artifactDigest}, this artifact's is sha256:${subject.artifactDigest}.`)
  }
  if (statement.publisherSignature !== subject.publisherSignature) {
    return invalid('The store countersignature names another publisher signature than the one this artifact carries.')
  }
  return null
}

function invalid(message: string): StoreSignatureProblem {
  return {code: 'store-signature-invalid', message}
}
