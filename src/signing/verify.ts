import {decodeBase64} from '../pki/base64.js'
import {type Certificate, certificatePublicKey, validityAt} from '../pki/certificate.js'
import {chainEntryNames, checkChain, type VerifiedChain} from '../pki/chain.js'
import {computeArtifactDigest, signatureMessage} from '../artifact/digest.js'
import {signatureLength, verifyStrict} from '../pki/ed25519.js'
import {checkDeclaredFiles, checkFilesMember, declaredFiles} from './files-check.js'
import {problem, verdictOf, type VerificationResult, type VerifyProblem} from './result.js'
import {checkRevocation} from '../revocation/check.js'
import {type RevocationList, type RevocationListContent, type RevocationListSummary, summarizeRevocationList, verifyRevocationList} from '../revocation/list.js'
import {parseTimestamp} from '../pki/timestamp.js'
import {readSignedManifestJson, type SignatureFields, splitTrailer} from '../artifact/trailer.js'
import {parseTrustStore, type TrustStore} from '../pki/trust.js'
import {maxManifestBytes} from '../json/strict-json.js'
import type {EntryDigest} from '../archive/types.js'

/** An artifact's contents as a verifier sees them, however it read them (archive or extracted files). */
export interface ArtifactContents {
  /** The bytes of manifest.json; null when the artifact has none. */
  manifestBytes: Uint8Array | null
  /** Size and SHA-256 of every entry except manifest.json (certificate.* and issuer.* included). */
  files: ReadonlyMap<string, Pick<EntryDigest, 'size' | 'sha256'>>
  /** The bytes of a root entry (certificate.*, issuer.*), null when absent; a throw means unreadable. */
  readFile: (name: string) => Promise<Uint8Array | null>
}

/** How to verify. */
export interface VerifyOptions {
  /** The roots to trust. */
  trust: TrustStore
  /** The verifier's clock (default: now); `signedAt` may be at most 5 minutes ahead of it. */
  now?: Date
  /** Largest manifest.json accepted (default 8 MiB, DESIGN §5.2). */
  maxManifestBytes?: number
  /**
   * A root-signed revocation list to apply (step 14 of `runChecklist`). It is verified against `trust`
   * first: an unusable list throws `RevocationError` (`revocation-list-invalid`, or
   * `revocation-list-stale` when the clock is past its `nextUpdate`), since it says nothing about the artifact.
   */
  revocations?: RevocationList
  /**
   * Apply a list whose `nextUpdate` has passed instead of throwing `revocation-list-stale`; the result's
   * `revocations.stale` says so. Off by default: a stale list may lack a recent revocation, and an attacker
   * who can withhold the current list (a freeze attack) would otherwise keep a revoked signer accepted.
   */
  allowStaleRevocations?: boolean
}

/** How far `signedAt` may lie ahead of the verifier's clock (DESIGN §7.4). */
export const maxClockSkewMs = 5 * 60 * 1000

/** What a passed checklist knows. */
export interface Verified {
  chain: VerifiedChain
  signature: SignatureFields
}

/** What the checklist learned before it stopped, for the result. */
export interface ChecklistProgress {
  signature: SignatureFields | null
  certificate: Certificate | null
  issuer: Certificate | null
}

/**
 * Verifies a signed artifact's contents (DESIGN §7.4) and returns the verdict; never throws for
 * anything in the artifact. The installer calls this over the bytes it extracted itself.
 */
export async function verifyContents(contents: ArtifactContents, options: VerifyOptions): Promise<VerificationResult> {
  const trust = parseTrustStore(options.trust)
  const now = options.now ?? new Date()
  const revocations = options.revocations === undefined ? null : verifyRevocationList(options.revocations, trust, {now, allowStale: options.allowStaleRevocations})
  const progress: ChecklistProgress = {signature: null, certificate: null, issuer: null}
  const outcome = await runChecklist(contents, {trust, now, maxManifestBytes: options.maxManifestBytes ?? maxManifestBytes, revocations: revocations?.content ?? null}, progress)
  return resultOf(outcome, progress, revocations === null ? undefined : summarizeRevocationList(revocations))
}

/** The result object for a checklist outcome. */
function resultOf(outcome: Verified | VerifyProblem, progress: ChecklistProgress, revocations?: RevocationListSummary): VerificationResult {
  const known = {
    certificateId: progress.certificate?.certificateId ?? null,
    issuerCertificateId: progress.issuer?.certificateId ?? null,
    signedAt: progress.signature?.signedAt ?? null,
    certificate: progress.certificate,
  }
  const applied = revocations === undefined ? {} : {revocations}
  if ('code' in outcome) return {valid: false, verdict: verdictOf[outcome.code], ...known, problems: [outcome], ...applied}
  return {valid: true, verdict: 'Trusted', ...known, problems: [], ...applied}
}

/** A failed verification result with one problem (the archive could not be read, say). */
export function failedResult(failure: VerifyProblem): VerificationResult {
  return resultOf(failure, {signature: null, certificate: null, issuer: null})
}

/**
 * The checklist of DESIGN §7.4, one guard per step, in this order; the first failure decides and is
 * the one problem reported. `files` are every entry except manifest.json.
 *
 * 1. `manifest-missing`: no manifest.json. 2. `manifest-too-large`: more bytes than the limit (8 MiB).
 * 3. `manifest-malformed`: not strict JSON (DESIGN §4.2: UTF-8, no BOM, no comments or trailing commas,
 *    no duplicate names after unescaping, a top-level object), where a repeated top-level `signature`
 *    is left to step 5; or `files`, when present, is not an array of `{path: non-empty string,
 *    sha256: "sha256:" + 64 lowercase hex, size: integer >= 0}`.
 * 4. `signature-missing` (verdict Unsigned): no top-level `signature` member.
 * 5. `signature-malformed`: see `splitTrailer` (the exact trailer, U, the four values).
 * 6. `signature-algorithm-unsupported`: algorithm is not `ed25519`.
 * 7. The certificate chain, see `checkChain`: `certificate-unreadable`, `certificate-untrusted`,
 *    `certificate-malformed`, `certificate-wrong-purpose`, `certificate-issuer-missing`,
 *    `certificate-issuer-mismatch`, `certificate-outlives-issuer`.
 * 8. `signature-key-id-mismatch`: keyId is not the certificate's certificateId.
 * 9. `certificate-not-yet-valid` / `certificate-expired`: signedAt outside [notBefore, notAfter].
 * 10. `signed-in-future`: signedAt more than 5 minutes after the verifier's clock.
 * 11. Files, see `checkDeclaredFiles`: `declared-file-missing`, `file-size-mismatch`,
 *     `file-digest-mismatch`, `undeclared-file`.
 * 12. `publisher-mismatch`: the certificate subject is a creator or organization, the manifest's
 *     `publisher` is an object with an own `id` member, and that value is not the subject id.
 * 13. `signature-invalid`: strict Ed25519 (DESIGN §7.3) of the signature message over P fails under the
 *     certificate's key.
 * 14. `revoked` (verdict Revoked), only with a revocation list: see `checkRevocation`. It comes last, once
 *     the signature is proven, for three reasons: `signedAt`, which decides a routine revocation, is only
 *     evidence once the signature covering it verifies; a `Revoked` verdict then always states a fact
 *     about what the certificate really signed, so nobody can pin a revoked certificate's id onto forged
 *     bytes and have a host report (and act on) a revocation instead of a forgery; and every earlier code
 *     is a more specific reason to refuse. Being a map look-up, it adds no cost worth ordering for.
 *
 * `trust` null is the signer re-checking its own output: everything but the root link is checked.
 */
export async function runChecklist(
  contents: ArtifactContents,
  options: {trust: TrustStore | null; now: Date; maxManifestBytes: number; revocations?: RevocationListContent | null},
  progress: ChecklistProgress = {signature: null, certificate: null, issuer: null},
): Promise<Verified | VerifyProblem> {
  const {manifestBytes} = contents
  const files = new Map([...contents.files].filter(([name]) => name !== 'manifest.json'))

  // The manifest and its trailer.
  if (manifestBytes === null) return problem('manifest-missing', 'The artifact has no manifest.json.')
  if (manifestBytes.length > options.maxManifestBytes) {
    return problem('manifest-too-large', `manifest.json has ${manifestBytes.length} bytes, more than the ${options.maxManifestBytes} a manifest may have.`)
  }
  const manifest = readSignedManifestJson(manifestBytes)
  if ('code' in manifest) return manifest
  const filesShape = checkFilesMember(manifest.value)
  if (filesShape !== null) return problem('manifest-malformed', `manifest.json cannot be checked against the artifact: ${filesShape}.`)
  if (manifest.signatureCount === 0) return problem('signature-missing', 'manifest.json has no "signature": the artifact is not signed.')
  const split = splitTrailer(manifestBytes, manifest)
  if ('code' in split) return split
  const {signature, unsigned} = split
  progress.signature = signature
  if (signature.algorithm !== 'ed25519') {
    return problem('signature-algorithm-unsupported', `The signature algorithm ${JSON.stringify(signature.algorithm)} is not supported; only "ed25519" is.`)
  }

  // The certificate chain.
  let chainFiles
  try {
    chainFiles = {
      certificateJson: await contents.readFile(chainEntryNames.certificateJson),
      certificateSig: await contents.readFile(chainEntryNames.certificateSig),
      issuerJson: await contents.readFile(chainEntryNames.issuerJson),
      issuerSig: await contents.readFile(chainEntryNames.issuerSig),
    }
  } catch (error) {
    return problem('certificate-unreadable', `The certificate files cannot be read: ${(error as Error).message}`)
  }
  const chain = checkChain(chainFiles, options.trust)
  if ('code' in chain) return chain
  const {certificate} = chain
  progress.certificate = certificate
  progress.issuer = chain.issuer

  // The signature block against the certificate and the clock.
  if (signature.keyId !== certificate.certificateId) {
    return problem('signature-key-id-mismatch', `The signature names the key ${signature.keyId}, but the artifact carries the certificate ${certificate.certificateId}.`)
  }
  const signedAt = parseTimestamp(signature.signedAt) as number
  const validity = validityAt(certificate, signedAt)
  if (validity === 'not-yet-valid') {
    return problem('certificate-not-yet-valid', `The artifact was signed at ${signature.signedAt}, before the certificate's validity starts (${certificate.notBefore}).`)
  }
  if (validity === 'expired') {
    return problem('certificate-expired', `The artifact was signed at ${signature.signedAt}, after the certificate's validity ended (${certificate.notAfter}).`)
  }
  if (signedAt > options.now.getTime() + maxClockSkewMs) {
    return problem('signed-in-future', `The signing time ${signature.signedAt} is more than 5 minutes ahead of this clock (${options.now.toISOString()}).`)
  }

  // The content against the signed manifest.
  const filesProblem = checkDeclaredFiles(declaredFiles(manifest.value), files)
  if (filesProblem !== null) return filesProblem
  const publisher = manifest.value.publisher
  if (
    (certificate.subject.kind === 'creator' || certificate.subject.kind === 'organization') &&
    typeof publisher === 'object' &&
    publisher !== null &&
    Object.hasOwn(publisher, 'id') &&
    (publisher as {id: unknown}).id !== certificate.subject.id
  ) {
    return problem(
      'publisher-mismatch',
      `The manifest names the publisher ${JSON.stringify((publisher as {id: unknown}).id)}, but the certificate is for ${JSON.stringify(certificate.subject.id)}.`,
    )
  }

  // The signature itself, last: over U, every entry, the key id and the signing time.
  const digest = computeArtifactDigest({unsignedManifest: unsigned, files})
  const message = Buffer.from(signatureMessage({keyId: signature.keyId, signedAt: signature.signedAt, artifactDigestHex: digest.sha256}), 'utf8')
  const signatureBytes = decodeBase64(signature.value, signatureLength) as Uint8Array
  if (!verifyStrict(signatureBytes, message, certificatePublicKey(certificate))) {
    return problem('signature-invalid', `The Ed25519 signature does not verify under the key of certificate ${certificate.certificateId}.`)
  }

  // Revocation, once the signature (and with it signedAt) is proven.
  const revocations = options.revocations ?? null
  if (revocations !== null) {
    const revoked = checkRevocation(revocations, {certificate, issuer: chain.issuer, signedAt: signature.signedAt, artifactDigest: `sha256:${digest.sha256}`})
    if (revoked !== null) return revoked
  }
  return {chain, signature}
}
