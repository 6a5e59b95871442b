import {missingManifestAdvice} from '../archive/foreign.js'
import {containerClaim, containerDigestMember} from '../artifact/container.js'
import type {ArtifactContents} from '../artifact/contents.js'
import {computeArtifactDigest, signatureMessage} from '../artifact/digest.js'
import {readSignedManifestJson, type SignatureFields, splitTrailer} from '../artifact/trailer.js'
import {checkFilesShape, compareDeclaredFiles, decidingFileProblem, declaredFilesOf} from '../manifest/declared-files.js'
import {maxManifestBytes} from '../model/manifest-size.js'
import {signingFileNames} from '../model/signing-files.js'
import {decodeBase64} from '../pki/base64.js'
import {type Certificate, certificatePublicKey, maxCertificateBytes, validityAt} from '../pki/certificate.js'
import {checkChain, type ChainFiles, type VerifiedChain} from '../pki/chain.js'
import {signatureLength, verifyStrict} from '../pki/ed25519.js'
import {parseTimestamp} from '../pki/timestamp.js'
import {parseTrustStore, type TrustStore} from '../pki/trust.js'
import {checkRevocations} from '../revocation/check.js'
import {type RevocationList, type RevocationListContent, summarizeRevocationList, verifyRevocationList, type VerifiedRevocationList} from '../revocation/list.js'
import {problem, verdictOf, type VerificationResult, type VerifyProblem, type VerifyWarning} from './result.js'
import {formatMiB} from '../quantities.js'

/** How to verify. */
export interface VerifyOptions {
  /** The roots to trust. */
  trust: TrustStore
  /** The verifier's clock, read once per operation (default: now); `signedAt` may be at most 5 minutes ahead of it. */
  now?: Date
  /**
   * A root-signed revocation list to apply (the last step of the checklist). It is verified against `trust`
   * first, once: an unusable list throws `RevocationError` (`revocation-list-invalid`, or
   * `revocation-list-stale` when the clock is past its `nextUpdate`), since it says nothing about the artifact.
   */
  revocations?: RevocationList
  /**
   * Apply a list whose `nextUpdate` has passed instead of throwing `revocation-list-stale`; the result's
   * `revocations.stale` says so. Off by default: a stale list may lack a recent revocation, and an attacker
   * who can withhold the current list (a freeze attack) would otherwise keep a revoked signer accepted.
   */
  allowStaleRevocations?: boolean
  /**
   * Refuse an artifact file whose signature does not cover its container (`container-unsigned`: signed
   * without `containerDigest`) instead of accepting it with that warning. Off by default.
   */
  requireContainerSignature?: boolean
}

/**
 * Everything a verification is judged against, settled once per operation: the trust store (null when a
 * signer re-checks its own output, which has no root link to check), the one reference time, and the
 * revocation list, verified once.
 */
export interface VerifyContext {
  trust: TrustStore | null
  now: Date
  /** The list given to this operation (the result summarises it). */
  revocations: VerifiedRevocationList | null
  /** Lists applied besides it: the newest list of every root a data root has recorded (install/revocation-state.ts). */
  recordedRevocations?: readonly RevocationListContent[]
  /** Refuse an artifact file signed without a container digest (`container-unsigned`) instead of warning. */
  requireContainerSignature: boolean
}

/** How far `signedAt` may lie ahead of the verifier's clock. */
export const maxClockSkewMs = 5 * 60 * 1000

/** What a passed checklist knows. */
export interface Verified {
  chain: VerifiedChain
  signature: SignatureFields
  /** Hex SHA-256 of the canonical digest text P. */
  artifactDigest: string
  warnings: VerifyWarning[]
}

/** What the checklist learned before it stopped, for the result. */
interface ChecklistProgress {
  signature: SignatureFields | null
  certificate: Certificate | null
  issuer: Certificate | null
}

/**
 * Settles the context of one verification: the trust store checked, the clock read once, the revocation
 * list verified against that store at that instant. Throws `trust-store-invalid`, `revocation-list-invalid`,
 * `revocation-list-stale`.
 */
export function verificationContext(options: VerifyOptions): VerifyContext {
  const trust = parseTrustStore(options.trust)
  const now = options.now ?? new Date()
  const revocations = options.revocations === undefined ? null : verifyRevocationList(options.revocations, trust, {now, allowStale: options.allowStaleRevocations})
  return {trust, now, revocations, requireContainerSignature: options.requireContainerSignature === true}
}

/**
 * Verifies a signed artifact's contents and returns the verdict; never throws for anything in the
 * artifact. Every reader of artifacts hands over the same {@link ArtifactContents}: an opened artifact,
 * the tree the installer extracted, an installed version.
 */
export async function verifyContents(contents: ArtifactContents, options: VerifyOptions): Promise<VerificationResult> {
  return checkContents(contents, verificationContext(options))
}

/** {@link verifyContents} against a context already settled for the operation. */
export function checkContents(contents: ArtifactContents, context: VerifyContext): VerificationResult {
  const progress: ChecklistProgress = {signature: null, certificate: null, issuer: null}
  const outcome = runChecklist(contents, context, progress)
  const known = {
    certificateId: progress.certificate?.certificateId ?? null,
    issuerCertificateId: progress.issuer?.certificateId ?? null,
    signedAt: progress.signature?.signedAt ?? null,
    certificate: progress.certificate,
  }
  const applied = context.revocations === null ? {} : {revocations: summarizeRevocationList(context.revocations)}
  if ('code' in outcome) return {valid: false, verdict: verdictOf[outcome.code], ...known, problems: [outcome], warnings: [], ...applied}
  return {valid: true, verdict: 'Trusted', ...known, artifactDigest: `sha256:${outcome.artifactDigest}`, problems: [], warnings: outcome.warnings, ...applied}
}

/** A failed verification result with one problem (the archive could not be read, say). */
export function failedResult(failure: VerifyProblem): VerificationResult {
  return {valid: false, verdict: verdictOf[failure.code], certificateId: null, issuerCertificateId: null, signedAt: null, certificate: null, problems: [failure], warnings: []}
}

/**
 * The verification checklist, one guard per step, in this order; the first failure decides and is the one
 * problem reported (docs/signing.md, "Verification"). `contents.files` are every entry except manifest.json.
 *
 * 1. `manifest-missing`: no manifest.json. 2. `manifest-too-large`: more bytes than a manifest may have.
 * 3. `manifest-malformed`: not strict JSON (UTF-8, no BOM, no comments or trailing commas, no duplicate
 *    names after unescaping, a top-level object), where a repeated top-level `signature` is left to step 5;
 *    or `files`, when present, is not an array of `{path, sha256, size}`.
 * 4. `signature-missing` (verdict Unsigned): no top-level `signature` member.
 * 5. `signature-malformed`: see `splitTrailer` (the exact trailer, U, the four values).
 * 6. `signature-algorithm-unsupported`: algorithm is not `ed25519`.
 * 7. The certificate chain, see `checkChain`: `certificate-unreadable`, `certificate-untrusted`,
 *    `certificate-malformed`, `certificate-wrong-purpose`, `certificate-issuer-missing`,
 *    `certificate-issuer-mismatch`, `certificate-outlives-issuer`.
 * 8. `signature-key-id-mismatch`: keyId is not the certificate's certificateId.
 * 9. `certificate-not-yet-valid` / `certificate-expired`: signedAt outside [notBefore, notAfter].
 * 10. `signed-in-future`: signedAt more than 5 minutes after the verifier's clock.
 * 11. Files against `files[]`, exhaustively (the one comparison of `declared-files`): `file-missing`,
 *     `file-size-mismatch`, `file-digest-mismatch`, `undeclared-file`.
 * 12. `publisher-mismatch`: the certificate subject is a creator or organization, the manifest's
 *     `publisher` is an object with an own `id` member, and that value is not the subject id.
 * 13. `signature-invalid`: strict Ed25519 of the signature message over P fails under the certificate's key.
 * 14. The container, only for contents read from an artifact file: see {@link checkContainer}. It comes
 *     once the signature is proven, since the signature is what vouches for `containerDigest`: removing
 *     or altering the member is `signature-invalid`.
 * 15. `revoked` (verdict Revoked), only with revocation lists (the one given, those a data root recorded):
 *     see `checkRevocation`; revoked when any list revokes it. It comes once
 *     the signature is proven, for three reasons: `signedAt`, which decides a routine revocation, is only
 *     evidence once the signature covering it verifies; a `Revoked` verdict then always states a fact
 *     about what the certificate really signed, so nobody can pin a revoked certificate's id onto forged
 *     bytes and have a host report (and act on) a revocation instead of a forgery; and every earlier code
 *     is a more specific reason to refuse.
 * 16. `container-unsigned`: an artifact file signed without `containerDigest` is refused when the context
 *     requires the container signature, and otherwise verifies with that warning. Last: it is the host's
 *     policy about a signature that is otherwise valid, and a revocation says more.
 *
 * `context.trust` null is the signer re-checking its own output, or `activate` asking whether a version
 * installed Trusted is revoked since: everything but the root link is checked.
 */
export function runChecklist(contents: ArtifactContents, context: VerifyContext, progress: ChecklistProgress = {signature: null, certificate: null, issuer: null}): Verified | VerifyProblem {
  const read = readSignedManifest(contents)
  if ('code' in read) return read
  const {manifest, signature, unsigned} = read
  progress.signature = signature
  if (signature.algorithm !== 'ed25519') {
    return problem('signature-algorithm-unsupported', `The signature algorithm ${JSON.stringify(signature.algorithm)} is not supported; only "ed25519" is.`)
  }

  // The certificate chain.
  const chainFiles = readChainFiles(contents)
  if ('code' in chainFiles) return chainFiles
  const chain = checkChain(chainFiles, context.trust)
  if ('code' in chain) return chain
  const {certificate} = chain
  progress.certificate = certificate
  progress.issuer = chain.issuer
  const signing = checkSigningTime(signature, certificate, context.now)
  if (signing !== null) return signing

  // The content against the signed manifest.
  const fileProblem = decidingFileProblem(compareDeclaredFiles(declaredFilesOf(manifest), contents.files, {exhaustive: true, signed: true}))
  if (fileProblem !== null) return problem(fileProblem.code, fileProblem.message)
  const publisher = checkPublisher(manifest, certificate)
  if (publisher !== null) return publisher

  // The signature itself: over U, every entry, the key id and the signing time.
  const digest = computeArtifactDigest({unsignedManifest: unsigned, files: contents.files})
  const message = Buffer.from(signatureMessage({keyId: signature.keyId, signedAt: signature.signedAt, artifactDigestHex: digest.sha256}), 'utf8')
  const signatureBytes = decodeBase64(signature.value, signatureLength) as Uint8Array
  if (!verifyStrict(signatureBytes, message, certificatePublicKey(certificate))) {
    return problem('signature-invalid', `The Ed25519 signature does not verify under the key of certificate ${certificate.certificateId}.`)
  }

  // The container, then revocation, once the signature (and with it containerDigest and signedAt) is proven.
  const container = checkContainer(manifest, contents)
  if (container !== null && typeof container !== 'string') return container
  const lists = [...(context.revocations === null ? [] : [context.revocations.content]), ...(context.recordedRevocations ?? [])]
  const revoked = checkRevocations(lists, {certificate, issuer: chain.issuer, signedAt: signature.signedAt, artifactDigest: `sha256:${digest.sha256}`})
  if (revoked !== null) return revoked
  if (container === null) return {chain, signature, artifactDigest: digest.sha256, warnings: []}
  const unsignedContainer = `The signature does not cover the container: manifest.json has no ${containerDigestMember} (it was signed without one), so the archive's headers and compressed bytes are not signed.`
  if (context.requireContainerSignature) return problem('container-unsigned', `${unsignedContainer} A container signature is required.`)
  return {chain, signature, artifactDigest: digest.sha256, warnings: [{code: 'container-unsigned', message: unsignedContainer}]}
}

/** Steps 1 to 5: the manifest read as a signed manifest, split into U and its signature values. */
function readSignedManifest(contents: ArtifactContents): {manifest: Record<string, unknown>; signature: SignatureFields; unsigned: Uint8Array} | VerifyProblem {
  if (contents.manifest === null) return problem('manifest-missing', `The artifact has no manifest.json.${missingManifestAdvice(contents.files.keys())}`)
  const manifestBytes = contents.manifest.bytes
  if (manifestBytes.length > maxManifestBytes) {
    return problem('manifest-too-large', `manifest.json is ${formatMiB(manifestBytes.length)}, more than the ${formatMiB(maxManifestBytes)} a manifest may be.`)
  }
  const manifest = readSignedManifestJson(manifestBytes, contents.manifest.document)
  if ('code' in manifest) return manifest
  const filesShape = checkFilesShape(manifest.value)
  if (filesShape !== null) return problem('manifest-malformed', `manifest.json cannot be checked against the artifact: ${filesShape}.`)
  if (manifest.signatureCount === 0) return problem('signature-missing', 'manifest.json has no "signature": the artifact is not signed.')
  const split = splitTrailer(manifestBytes, manifest)
  if ('code' in split) return split
  return {manifest: manifest.value, signature: split.signature, unsigned: split.unsigned}
}

/** Steps 8 to 10: the signature block against the certificate and the verifier's clock. */
function checkSigningTime(signature: SignatureFields, certificate: Certificate, now: Date): VerifyProblem | null {
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
  if (signedAt > now.getTime() + maxClockSkewMs) {
    return problem('signed-in-future', `The signing time ${signature.signedAt} is more than 5 minutes ahead of this clock (${now.toISOString()}).`)
  }
  return null
}

/** Step 12: a creator's or organization's certificate must be the manifest's publisher, when it names an id. */
function checkPublisher(manifest: Record<string, unknown>, certificate: Certificate): VerifyProblem | null {
  const publisher = manifest.publisher
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
  return null
}

/**
 * Step 14, for contents read from an artifact file (a tree's container is gone: nothing to judge): a
 * manifest without `containerDigest` is `'unsigned'` (judged after revocation, step 16). With the member:
 * `container-digest-malformed` unless U ends with exactly `,"containerDigest":"sha256:<64 lowercase hex>"}`
 * (the last member, as the signer writes it); `container-manifest-compressed` unless manifest.json is
 * stored; `container-digest-mismatch` unless the file's container digest is the one claimed.
 */
function checkContainer(manifest: Record<string, unknown>, contents: ArtifactContents): VerifyProblem | 'unsigned' | null {
  const evidence = contents.container
  if (evidence === undefined || contents.manifest === null) return null
  if (!Object.hasOwn(manifest, containerDigestMember)) return 'unsigned'
  const claim = containerClaim(contents.manifest.bytes)
  if (claim === null || manifest[containerDigestMember] !== `sha256:${claim.sha256}`) {
    return problem('container-digest-malformed', `manifest.json's ${containerDigestMember} is not the last member of the signed manifest written exactly "${containerDigestMember}":"sha256:<64 lowercase hex digits>".`)
  }
  if (!evidence.manifestStored) {
    return problem('container-manifest-compressed', `manifest.json carries ${containerDigestMember} but is compressed; a manifest with a container digest is stored (method 0).`)
  }
  if (evidence.sha256 !== claim.sha256) {
    return problem('container-digest-mismatch', `The archive is not the container that was signed: its container digest is sha256:${evidence.sha256}, the signed manifest says sha256:${claim.sha256}.`)
  }
  return null
}

/** The signing files as the chain check takes them; a file present but larger than a certificate may be is unreadable. */
function readChainFiles(contents: ArtifactContents): ChainFiles | VerifyProblem {
  const read = (name: string): Uint8Array | null | VerifyProblem => {
    const bytes = contents.signingFiles.get(name)
    if (bytes === undefined) return null
    if (bytes === null) return problem('certificate-unreadable', `${name} is ${formatMiB(contents.files.get(name)?.size ?? 0)}; a certificate file is at most ${formatMiB(maxCertificateBytes)}.`)
    return bytes
  }
  const files = {
    certificateJson: read(signingFileNames.certificateJson),
    certificateSig: read(signingFileNames.certificateSig),
    issuerJson: read(signingFileNames.issuerJson),
    issuerSig: read(signingFileNames.issuerSig),
  }
  for (const value of Object.values(files)) if (value !== null && 'code' in value) return value
  return files as ChainFiles
}
