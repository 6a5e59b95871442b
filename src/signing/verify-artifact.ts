import {type ArchiveError, isArchiveError, isUnreadableFile} from '../archive/errors.js'
import type {ArchiveLimits} from '../archive/types.js'
import type {ArtifactContents} from '../artifact/contents.js'
import {withArtifact} from '../artifact/open.js'
import {readTrustStore} from '../pki/trust.js'
import {readRevocationList} from '../revocation/files.js'
import {problem, type VerificationResult, type VerifyProblem} from './result.js'
import {checkContents, failedResult, verificationContext, type VerifyContext, type VerifyOptions} from './verify.js'

/** How to verify an artifact file. */
export interface VerifyArtifactOptions extends VerifyOptions {
  /** Archive limits (defaults for anything not given). */
  limits?: Partial<ArchiveLimits>
  /**
   * Cancels the verification: it rejects with an error named `AbortError` (code `cancelled`, the signal's
   * reason as its `cause`) instead of giving a verdict.
   */
  signal?: AbortSignal
}

/**
 * Verifies a `.svcPlugin` file: opens it through the strict reader, reads every entry once for its size
 * and SHA-256 (the signing files kept in memory), and runs the verification checklist at one reference
 * time. Archive errors become the result's one problem: `archive-unsupported` is
 * `package-format-unsupported`, a manifest over its limit is `manifest-too-large`, anything else
 * `package-unreadable`, with the reader's code in `archiveCode` and in the message. A cancellation
 * (`signal`) is no verdict: it rejects with its `AbortError`.
 */
export async function verifyArtifact(file: string, options: VerifyArtifactOptions): Promise<VerificationResult> {
  const context = verificationContext(options)
  const outcome = await readArtifactContents(file, {limits: options.limits, signal: options.signal}, async (contents) => checkContents(contents, context))
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

/** Options of {@link readArtifactContents}. */
export interface ReadContentsOptions {
  limits?: Partial<ArchiveLimits> | undefined
  /** Also look for secrets in the entries. */
  secrets?: boolean
  signal?: AbortSignal | undefined
  /**
   * Throw the reader's error when the file itself cannot be read (missing, not a regular file, an I/O error:
   * `isUnreadableFile`) instead of judging it: a fault of where the file is kept, not of its bytes.
   */
  throwUnreadableFile?: boolean
}

/**
 * Opens an artifact, reads its contents once and hands them to `use`. An archive the strict reader refuses
 * gives the verification problem instead (the signer and the store judge unreadable archives the same way);
 * a cancellation (`signal`) rejects with its `AbortError`.
 */
export async function readArtifactContents<T>(file: string, options: ReadContentsOptions, use: (contents: ArtifactContents) => Promise<T>): Promise<T | VerifyProblem> {
  try {
    return await withArtifact(file, {limits: options.limits, signal: options.signal}, async (artifact) => use(await artifact.contents({secrets: options.secrets})))
  } catch (error) {
    if (isArchiveError(error) && !(options.throwUnreadableFile === true && isUnreadableFile(error))) return archiveProblem(error)
    throw error
  }
}

/**
 * Re-verifies contents with a context of the signer: no trust store (the root link is the verifier's), at
 * `now`, the container signature required (the signer writes one).
 */
export function signerContext(now: Date): VerifyContext {
  return {trust: null, now, revocations: null, requireContainerSignature: true}
}

/** The verification problem for an archive the strict reader refused. */
export function archiveProblem(error: ArchiveError): VerifyProblem {
  const message = `The artifact cannot be read (${error.code}, ${error.details.reason}): ${error.message}`
  if (error.code === 'archive-unsupported') return problem('package-format-unsupported', message, error.code)
  if (error.details.reason === 'manifest-too-large') return problem('manifest-too-large', message, error.code)
  return problem('package-unreadable', message, error.code)
}
