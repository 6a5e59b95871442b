import {randomBytes} from 'node:crypto'
import {readJsonDocument} from '../json/strict-json.js'
import {decodeBase64, encodeBase64} from './base64.js'
import {isStrictPublicKey, keyLength, publicKeyOf, sign} from './ed25519.js'
import {SigningError} from './errors.js'
import {formatTimestamp, parseTimestamp} from './timestamp.js'

/** Who a certificate is for. */
export const subjectKinds = ['creator', 'organization', 'service', 'issuer'] as const
/** One of `creator`, `organization`, `service`, `issuer`. */
export type SubjectKind = (typeof subjectKinds)[number]

/** What a certificate's key may do: sign artifacts, sign registry data, or issue certificates. */
export const keyUsages = ['package', 'registry', 'issuer'] as const
/** One of `package`, `registry`, `issuer`. */
export type KeyUsage = (typeof keyUsages)[number]

/** A certificate's subject. */
export interface CertificateSubject {
  kind: SubjectKind
  /** Non-blank, at most 128 characters, no control characters. */
  id: string
  /** Non-blank, at most 128 characters, no control characters. */
  name: string
}

/** A parsed `certificate.json` / `issuer.json`; only these members, each in its exact format. */
export interface Certificate {
  /** 1, or 2 exactly when `issuer` is present. */
  schemaVersion: 1 | 2
  /** `cert_` + 32 lowercase hex digits. */
  certificateId: string
  subject: CertificateSubject
  algorithm: 'ed25519'
  /** Standard padded base64 of the 32-byte Ed25519 public key. */
  publicKey: string
  keyUsage: [KeyUsage]
  /** First instant of validity, `YYYY-MM-DDTHH:MM:SSZ`, inclusive. */
  notBefore: string
  /** Last instant of validity, `YYYY-MM-DDTHH:MM:SSZ`, inclusive. */
  notAfter: string
  issuedAt: string
  /** `root_` + 4 to 32 of `[0-9a-z]`: the trust store root at the top of the chain. */
  rootKeyId: string
  /** The issuer certificate's id (schemaVersion 2 only). */
  issuer?: string
}

/** The bytes and signature of a certificate as they travel: `certificate.json` + `certificate.sig` (or `issuer.*`). */
export interface CertificateFiles {
  /** The exact bytes of the JSON file: the signature covers them, so they are never re-serialised. */
  json: Uint8Array
  /** Base64 of the 64-byte signature (the `.sig` file's text, a trailing newline allowed). */
  sig: string
}

/** A certificate id: `cert_` and 32 lowercase hex digits. */
export const certificateIdPattern = /^cert_[0-9a-f]{32}$/
/** A root key id: `root_` and 4 to 32 of `[0-9a-z]`. */
export const rootKeyIdPattern = /^root_[0-9a-z]{4,32}$/
/** Largest certificate file read: certificates are a few hundred bytes. */
export const maxCertificateBytes = 64 * 1024

const certificateDomain = 'svc-plugin-certificate/1\n'
const certificateMembers = new Set(['schemaVersion', 'certificateId', 'subject', 'algorithm', 'publicKey', 'keyUsage', 'notBefore', 'notAfter', 'issuedAt', 'rootKeyId', 'issuer'])
const subjectMembers = new Set(['kind', 'id', 'name'])

/** The bytes a certificate signature covers: `svc-plugin-certificate/1\n` then the exact certificate.json bytes. */
export function certificateMessage(certificateJson: Uint8Array): Uint8Array {
  return Buffer.concat([Buffer.from(certificateDomain, 'utf8'), certificateJson])
}

/** The certificate JSON as a strict JSON object (the toolchain's strict JSON), or null when the bytes are not one. */
export function readCertificateObject(bytes: Uint8Array): Record<string, unknown> | null {
  const document = readJsonDocument(bytes, {maxBytes: maxCertificateBytes})
  return document.ok ? document.value : null
}

/**
 * The one key usage each subject kind may have: publishers (`creator`, `organization`) sign packages, a
 * `service` signs registry data, an `issuer` issues certificates. A certificate pairing them otherwise
 * would let one key act in two roles.
 */
export const keyUsageOfKind: Readonly<Record<SubjectKind, KeyUsage>> = {creator: 'package', organization: 'package', service: 'registry', issuer: 'issuer'}

/** Why a subject kind and a key usage do not go together (a phrase), or null. */
export function checkKindAndUsage(kind: SubjectKind, usage: KeyUsage): string | null {
  const expected = keyUsageOfKind[kind]
  return usage === expected ? null : `keyUsage "${usage}" does not go with subject.kind "${kind}": a ${kind} certificate has key usage "${expected}"`
}

/** Why `value` is not a certificate as docs/signing.md defines it (a sentence), or null when it is one. */
export function checkCertificate(value: Record<string, unknown>): string | null {
  for (const key of Object.keys(value)) {
    if (!certificateMembers.has(key)) return `it has the unknown member ${JSON.stringify(key)}`
  }
  const {schemaVersion, certificateId, subject, algorithm, publicKey, keyUsage, notBefore, notAfter, issuedAt, rootKeyId, issuer} = value
  if (schemaVersion !== 1 && schemaVersion !== 2) return 'schemaVersion must be 1 or 2'
  if (typeof certificateId !== 'string' || !certificateIdPattern.test(certificateId)) return 'certificateId must be "cert_" followed by 32 lowercase hex digits'
  const subjectProblem = checkSubject(subject)
  if (subjectProblem !== null) return subjectProblem
  if (algorithm !== 'ed25519') return 'algorithm must be "ed25519"'
  if (typeof publicKey !== 'string' || decodeBase64(publicKey, keyLength) === null) return `publicKey must be canonical base64 of ${keyLength} bytes`
  if (!Array.isArray(keyUsage) || keyUsage.length !== 1 || !(keyUsages as readonly unknown[]).includes(keyUsage[0])) {
    return 'keyUsage must be exactly one of ["package"], ["registry"], ["issuer"]'
  }
  const pairing = checkKindAndUsage((subject as CertificateSubject).kind, keyUsage[0] as KeyUsage)
  if (pairing !== null) return pairing
  for (const [name, time] of [['notBefore', notBefore], ['notAfter', notAfter], ['issuedAt', issuedAt]] as const) {
    if (parseTimestamp(time) === null) return `${name} must be a UTC time written YYYY-MM-DDTHH:MM:SSZ`
  }
  if ((parseTimestamp(notBefore) as number) > (parseTimestamp(notAfter) as number)) return 'notBefore is after notAfter'
  if (typeof rootKeyId !== 'string' || !rootKeyIdPattern.test(rootKeyId)) return 'rootKeyId must be "root_" followed by 4 to 32 of [0-9a-z]'
  if (schemaVersion === 1 && issuer !== undefined) return 'issuer is only allowed with schemaVersion 2'
  if (schemaVersion === 2 && (typeof issuer !== 'string' || !certificateIdPattern.test(issuer))) return 'schemaVersion 2 needs issuer, a certificate id'
  return null
}

function checkSubject(subject: unknown): string | null {
  if (typeof subject !== 'object' || subject === null || Array.isArray(subject)) return 'subject must be an object'
  const fields = subject as Record<string, unknown>
  for (const key of Object.keys(fields)) {
    if (!subjectMembers.has(key)) return `subject has the unknown member ${JSON.stringify(key)}`
  }
  if (!(subjectKinds as readonly unknown[]).includes(fields.kind)) return `subject.kind must be one of ${subjectKinds.join(', ')}`
  for (const name of ['id', 'name'] as const) {
    const problem = checkSubjectText(fields[name])
    if (problem !== null) return `subject.${name} ${problem}`
  }
  return null
}

/** Why a subject id or name is unusable, or null: non-blank, at most 128 UTF-16 units, no control characters. */
function checkSubjectText(text: unknown): string | null {
  if (typeof text !== 'string' || text.trim() === '') return 'must be a non-blank string'
  if (text.length > 128) return 'must be at most 128 characters'
  if (/[\u0000-\u001f\u007f-\u009f]/.test(text)) return 'must not contain control characters'
  return null
}

/** Parses certificate bytes strictly (JSON and every field's format); `certificate-malformed` otherwise. */
export function parseCertificate(bytes: Uint8Array): Certificate {
  const value = readCertificateObject(bytes)
  if (value === null) throw new SigningError('certificate-malformed', 'The certificate is not a strict JSON object (UTF-8, no BOM, no duplicate keys).')
  const problem = checkCertificate(value)
  if (problem !== null) throw new SigningError('certificate-malformed', `The certificate is malformed: ${problem}.`)
  return value as unknown as Certificate
}

/** The certificate's public key bytes (its format was checked by `checkCertificate`). */
export function certificatePublicKey(certificate: Certificate): Uint8Array {
  return decodeBase64(certificate.publicKey, keyLength) as Uint8Array
}

/** True when `instant` (epoch ms) lies within the certificate's validity, bounds included. */
export function validityAt(certificate: Certificate, instant: number): 'valid' | 'not-yet-valid' | 'expired' {
  if (instant < (parseTimestamp(certificate.notBefore) as number)) return 'not-yet-valid'
  if (instant > (parseTimestamp(certificate.notAfter) as number)) return 'expired'
  return 'valid'
}

/** True when `inner`'s validity lies inside `outer`'s. */
export function validityInside(inner: Certificate, outer: Certificate): boolean {
  return (
    (parseTimestamp(inner.notBefore) as number) >= (parseTimestamp(outer.notBefore) as number) &&
    (parseTimestamp(inner.notAfter) as number) <= (parseTimestamp(outer.notAfter) as number)
  )
}

/** What a certificate to issue is made of: everything `issueCertificate` needs but the signing key. */
export interface CertificateToIssueOptions {
  subject: CertificateSubject
  subjectPublicKey: Uint8Array
  keyUsage: KeyUsage
  notBefore: Date | string
  notAfter: Date | string
  /** Required without `issuerCertificate`; with one it defaults to (and must equal) the issuer's. */
  rootKeyId?: string
  /** The exact bytes of `issuer.json` when an issuer certificate signs (schemaVersion 2). */
  issuerCertificate?: Uint8Array
  /** The issue time written as `issuedAt`; defaults to the current time. */
  now?: Date
  /** The certificate id; default `cert_` + 32 random hex digits (a prepared statement's own when completing one). */
  certificateId?: string
  /** The signer's public key, checked against the issuer certificate's (`key-mismatch`); unknown (a vault) when absent. */
  signerPublicKey?: Uint8Array
}

/** What `issueCertificate` needs. */
export interface IssueCertificateOptions extends CertificateToIssueOptions {
  /** The root's private seed, or the issuer's when `issuerCertificate` is given. */
  signerPrivateKey: Uint8Array
}

/** A certificate ready to be signed: its fields, the exact bytes of its JSON file, and the statement the key signs. */
export interface CertificateToIssue {
  certificate: Certificate
  certificateJson: Uint8Array
  /** `svc-plugin-certificate/1\n` then `certificateJson`: what the root's or the issuer's key signs. */
  statement: Uint8Array
}

/** An issued certificate: the bytes of its JSON file and the base64 of its signature. */
export interface IssuedCertificate {
  certificateJson: Uint8Array
  certificateSig: string
  certificate: Certificate
}

/**
 * Issues a certificate signed by the root, or by an issuer certificate's key
 * (schemaVersion 2 with `issuer`). Refuses what a verifier would refuse: an invalid subject key
 * (`key-invalid`), an issuer that is not an `issuer` certificate, a signer key that is not the
 * issuer's, validity outside the issuer's, and a third chain level (`chain-too-long`).
 */
export function issueCertificate(options: IssueCertificateOptions): IssuedCertificate {
  const toIssue = certificateToIssue({...options, signerPublicKey: publicKeyOf(options.signerPrivateKey)})
  return {certificateJson: toIssue.certificateJson, certificateSig: encodeBase64(sign(toIssue.statement, options.signerPrivateKey)), certificate: toIssue.certificate}
}

/**
 * The certificate {@link issueCertificate} would sign, with every refusal it makes, and the statement the
 * signing key signs; the signature is made elsewhere (a vault, a prepared statement completed later).
 */
export function certificateToIssue(options: CertificateToIssueOptions): CertificateToIssue {
  const notBefore = timestampOption(options.notBefore, 'notBefore', 'The start of the validity')
  const notAfter = timestampOption(options.notAfter, 'notAfter', 'The end of the validity')
  if ((parseTimestamp(notBefore) as number) > (parseTimestamp(notAfter) as number)) {
    throw new SigningError('invalid-validity', `The validity would start (${notBefore}) after it ends (${notAfter}).`, {details: {notBefore, notAfter}})
  }
  const pairing = (subjectKinds as readonly unknown[]).includes(options.subject.kind) && (keyUsages as readonly unknown[]).includes(options.keyUsage) ? checkKindAndUsage(options.subject.kind, options.keyUsage) : null
  if (pairing !== null) throw new SigningError('invalid-key-usage', `The certificate cannot be issued: ${pairing}.`, {details: {kind: options.subject.kind, usage: options.keyUsage}})
  if (!isStrictPublicKey(options.subjectPublicKey)) {
    throw new SigningError('key-invalid', 'The subject public key is not a strict Ed25519 key (canonical, not the identity, no small-order component).')
  }
  const issuer = options.issuerCertificate === undefined ? undefined : parseCertificate(options.issuerCertificate)
  const rootKeyId = options.rootKeyId ?? issuer?.rootKeyId
  if (rootKeyId === undefined || !rootKeyIdPattern.test(rootKeyId)) {
    throw new SigningError('invalid-root-key-id', `The root key id ${JSON.stringify(rootKeyId ?? '')} must be "root_" followed by 4 to 32 of [0-9a-z].`)
  }
  const certificate: Certificate = {
    schemaVersion: issuer === undefined ? 1 : 2,
    certificateId: options.certificateId ?? `cert_${randomBytes(16).toString('hex')}`,
    subject: {kind: options.subject.kind, id: options.subject.id, name: options.subject.name},
    algorithm: 'ed25519',
    publicKey: encodeBase64(options.subjectPublicKey),
    keyUsage: [options.keyUsage],
    notBefore,
    notAfter,
    issuedAt: formatTimestamp(options.now ?? new Date()),
    rootKeyId,
  }
  if (issuer !== undefined) {
    assertCanIssue(issuer, certificate, options.signerPublicKey ?? null)
    certificate.issuer = issuer.certificateId
  }
  const problem = checkCertificate(certificate as unknown as Record<string, unknown>)
  if (problem !== null) throw new SigningError('certificate-malformed', `The certificate would be malformed: ${problem}.`)
  const certificateJson = new Uint8Array(Buffer.from(`${JSON.stringify(certificate, null, 2)}\n`, 'utf8'))
  return {certificate, certificateJson, statement: new Uint8Array(certificateMessage(certificateJson))}
}

/** The certificate a prepared certificate statement holds (`svc-plugin-certificate/1\n` and a certificate), or null when the bytes are not one. */
export function certificateOfStatement(statement: Uint8Array): Certificate | null {
  const domain = Buffer.from(certificateDomain, 'utf8')
  if (statement.length <= domain.length || !domain.equals(Buffer.from(statement.subarray(0, domain.length)))) return null
  const value = readCertificateObject(statement.subarray(domain.length))
  return value === null || checkCertificate(value) !== null ? null : (value as unknown as Certificate)
}

/** The chain rules an issuer certificate must satisfy before it signs `certificate`. */
function assertCanIssue(issuer: Certificate, certificate: Certificate, signerPublicKey: Uint8Array | null): void {
  if (issuer.keyUsage[0] !== 'issuer') {
    throw new SigningError('certificate-wrong-purpose', `The issuer certificate ${issuer.certificateId} has key usage "${issuer.keyUsage[0]}"; only an "issuer" certificate issues certificates.`)
  }
  if (issuer.schemaVersion !== 1) {
    throw new SigningError('chain-too-long', `The issuer certificate ${issuer.certificateId} is itself issued by an issuer; the chain is at most root → issuer → certificate.`)
  }
  if (certificate.keyUsage[0] === 'issuer') {
    throw new SigningError('chain-too-long', 'An issuer certificate cannot issue another issuer certificate; the chain is at most root → issuer → certificate.')
  }
  if (signerPublicKey !== null && !Buffer.from(signerPublicKey).equals(Buffer.from(certificatePublicKey(issuer)))) {
    throw new SigningError('key-mismatch', `The signing key is not the key of the issuer certificate ${issuer.certificateId}.`)
  }
  if (certificate.rootKeyId !== issuer.rootKeyId) {
    throw new SigningError('certificate-issuer-mismatch', `The root key id ${certificate.rootKeyId} differs from the issuer certificate's ${issuer.rootKeyId}.`)
  }
  if (!validityInside(certificate, issuer)) {
    throw new SigningError(
      'certificate-outlives-issuer',
      `The validity ${certificate.notBefore} – ${certificate.notAfter} must lie inside the issuer's ${issuer.notBefore} – ${issuer.notAfter}.`,
    )
  }
}

function timestampOption(value: Date | string, field: string, what: string): string {
  const text = value instanceof Date ? (Number.isNaN(value.getTime()) ? '' : formatTimestamp(value)) : value
  if (parseTimestamp(text) === null) {
    throw new SigningError('invalid-validity', `${what} ${JSON.stringify(String(value))} is not a UTC time written YYYY-MM-DDTHH:MM:SSZ.`, {details: {field}})
  }
  return text
}
