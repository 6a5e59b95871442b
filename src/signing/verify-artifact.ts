import {isArchiveError, type ArchiveError} from '../archive/errors.js'
import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {openArchive} from '../archive/reader.js'
import type {ArchiveLimits, StrictArchive} from '../archive/types.js'
import {maxCertificateBytes} from '../pki/certificate.js'
import {problem, type VerificationResult, type VerifyProblem} from './result.js'
import {readRevocationList} from '../revocation/files.js'
import type {RevocationList} from '../revocation/list.js'
import {readTrustStore, type TrustStore} from '../pki/trust.js'
import {type ArtifactContents, failedResult, verifyContents} from './verify.js'

/** How to verify an artifact file. */
export interface VerifyArtifactOptions {
  trust: TrustStore
  /** The verifier's clock (default: now). */
  now?: Date
  /** Archive limits (DESIGN §5.2 defaults for anything not given). */
  limits?: Partial<ArchiveLimits>
  /** A revocation list to apply (see `VerifyOptions.revocations`). */
  revocations?: RevocationList
  /** Apply a list past its `nextUpdate` instead of throwing `revocation-list-stale`. */
  allowStaleRevocations?: boolean
}

/**
 * Verifies a `.svcPlugin` file (DESIGN §7.4): opens it through the strict reader (§5.3), streams every
 * entry once for its size and SHA-256, reads manifest.json and the certificate files, and runs the
 * verification checklist. Archive errors become the result's one problem: `archive-unsupported` is
 * `package-format-unsupported`, a manifest over its limit is `manifest-too-large`, anything else
 * `package-unreadable`, with the reader's code in `archiveCode` and in the message.
 */
export async function verifyArtifact(file: string, options: VerifyArtifactOptions): Promise<VerificationResult> {
  const limits = resolveLimits(options.limits)
  const outcome = await withArtifactContents(file, limits, (contents) =>
    verifyContents(contents, {
      trust: options.trust,
      now: options.now,
      maxManifestBytes: limits.maxManifestBytes,
      revocations: options.revocations,
      allowStaleRevocations: options.allowStaleRevocations,
    }),
  )
  return 'code' in outcome ? failedResult(outcome) : outcome
}

/**
 * `verifyArtifact` with the trust store read from a file (`trust-store-unreadable` when it cannot be) and,
 * with `revocationsFile`, the revocation list beside its `.sig` (`revocation-list-unreadable`).
 */
export async function verifyArtifactFile(
  file: string,
  options: Omit<VerifyArtifactOptions, 'trust' | 'revocations'> & {trustFile: string; revocationsFile?: string},
): Promise<VerificationResult> {
  const {trustFile, revocationsFile, ...rest} = options
  const trust = await readTrustStore(trustFile)
  const revocations = revocationsFile === undefined ? undefined : await readRevocationList(revocationsFile)
  return verifyArtifact(file, {...rest, trust, revocations})
}

/**
 * Opens an artifact, reads what a verifier needs (every entry's digest, streamed once; manifest.json;
 * the certificate files on demand) and hands it to `use`. An archive the strict reader refuses gives
 * the verification problem instead.
 */
export async function withArtifactContents<T>(file: string, limits: ArchiveLimits, use: (contents: ArtifactContents) => Promise<T>): Promise<T | VerifyProblem> {
  let archive: StrictArchive
  try {
    archive = await openArchive(file, {limits})
  } catch (error) {
    if (isArchiveError(error)) return archiveProblem(error)
    throw error
  }
  try {
    let contents: ArtifactContents
    try {
      const files = await archive.digestEntries()
      const manifestEntry = archive.get(manifestEntryName)
      const manifestBytes = manifestEntry === undefined ? null : await archive.readEntry(manifestEntry, limits.maxManifestBytes)
      files.delete(manifestEntryName)
      contents = {manifestBytes, files, readFile: (name: string) => readSmallEntry(archive, name)}
    } catch (error) {
      if (isArchiveError(error)) return archiveProblem(error)
      throw error
    }
    return await use(contents)
  } finally {
    await archive.close()
  }
}

/** A certificate file's bytes, null when absent; an entry larger than a certificate can be is refused unread. */
async function readSmallEntry(archive: StrictArchive, name: string): Promise<Uint8Array | null> {
  const entry = archive.get(name)
  if (entry === undefined) return null
  if (entry.uncompressedSize > maxCertificateBytes) throw new Error(`${name} has ${entry.uncompressedSize} bytes; a certificate file has at most ${maxCertificateBytes}.`)
  return archive.readEntry(entry, maxCertificateBytes)
}

/** The verification problem for an archive the strict reader refused. */
function archiveProblem(error: ArchiveError): VerifyProblem {
  const message = `The artifact cannot be read (${error.code}, ${error.details.reason}): ${error.message}`
  if (error.code === 'archive-unsupported') return problem('package-format-unsupported', message, error.code)
  if (error.details.reason === 'manifest-too-large') return problem('manifest-too-large', message, error.code)
  return problem('package-unreadable', message, error.code)
}
