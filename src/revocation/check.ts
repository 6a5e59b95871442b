import {type Certificate, certificatePublicKey} from '../pki/certificate.js'
import {entryKey, publicKeyFingerprint, refusesEverySignature, type RevocationEntry, type RevocationListContent} from './list.js'
import {parseTimestamp} from '../pki/timestamp.js'

/** What the revocation step knows about an artifact whose signature was proven valid. */
export interface RevocationSubject {
  /** The package certificate that signed. */
  certificate: Certificate
  /** Its issuer certificate, when there is one. */
  issuer: Certificate | null
  /** The signing time, covered by the verified signature. */
  signedAt: string
  /** `sha256:` + hex SHA-256 of P, the canonical artifact digest. */
  artifactDigest: string
}

/** Why the revocation step refuses an artifact: the list entry that matched. */
export interface RevocationProblem {
  code: 'revoked'
  message: string
  revocation: RevocationEntry
}

/**
 * The revocation step over several lists (a data root applies the newest list of every root it has seen,
 * and the one given): a subject is revoked when any list revokes it; the first list that does decides.
 */
export function checkRevocations(lists: readonly RevocationListContent[], subject: RevocationSubject): RevocationProblem | null {
  for (const list of lists) {
    const revoked = checkRevocation(list, subject)
    if (revoked !== null) return revoked
  }
  return null
}

/**
 * The revocation step of the checklist (`revoked`, verdict Revoked), first match decides, in this order:
 * 1. an `artifact` entry naming the artifact digest: refused always;
 * 2. a `key` entry naming the fingerprint of the certificate's key, then of the issuer's key: refused
 *    always (a key revoked is a key that may be in anyone's hands, so its signing times prove nothing);
 * 3. a `certificate` entry naming the certificate, then the issuer certificate (revoking an issuer revokes
 *    what it issued): with reason `key-compromise` or `malicious` refused always; otherwise refused when
 *    `signedAt >= revokedAt`, so a signature made before a routine revocation stays valid.
 * Root keys are not matched: a root is distrusted by removing it from the trust store.
 */
export function checkRevocation(list: RevocationListContent, subject: RevocationSubject): RevocationProblem | null {
  const entries = new Map(list.entries.map((entry) => [entryKey(entry), entry]))
  const find = (kind: RevocationEntry['kind'], value: string): RevocationEntry | undefined => entries.get(entryKey({kind, value}))

  const artifact = find('artifact', subject.artifactDigest)
  if (artifact !== undefined) {
    return revoked(`The artifact ${artifact.value} is revoked (${artifact.reason}, ${artifact.revokedAt}); it is refused whoever signed it and whenever.`, artifact)
  }
  const chain: Array<[Certificate, string]> = [[subject.certificate, 'certificate']]
  if (subject.issuer !== null) chain.push([subject.issuer, 'issuer certificate'])
  for (const [certificate, role] of chain) {
    const key = find('key', publicKeyFingerprint(certificatePublicKey(certificate)))
    if (key !== undefined) {
      return revoked(`The key ${key.value} of the ${role} ${certificate.certificateId} is revoked (${key.reason}, ${key.revokedAt}); no signature under it is accepted, whenever it was made.`, key)
    }
  }
  const signedAt = parseTimestamp(subject.signedAt) as number
  for (const [certificate, role] of chain) {
    const entry = find('certificate', certificate.certificateId)
    if (entry === undefined) continue
    if (refusesEverySignature(entry.reason)) {
      return revoked(`The ${role} ${certificate.certificateId} is revoked for ${entry.reason} (${entry.revokedAt}); no signature under it is accepted, whenever it was made.`, entry)
    }
    if (signedAt >= (parseTimestamp(entry.revokedAt) as number)) {
      return revoked(`The ${role} ${certificate.certificateId} is revoked (${entry.reason}) from ${entry.revokedAt}, and the artifact was signed at ${subject.signedAt}, not before.`, entry)
    }
  }
  return null
}

function revoked(message: string, entry: RevocationEntry): RevocationProblem {
  return {code: 'revoked', message, revocation: entry}
}
