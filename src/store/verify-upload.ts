import type {Readable} from 'node:stream'
import type {ReadableStream} from 'node:stream/web'
import {isArchiveError} from '../archive/errors.js'
import {archiveTooLarge, resolveLimits} from '../archive/limits.js'
import type {ArchiveLimits} from '../archive/types.js'
import {judgeContents} from '../artifact/validate-artifact.js'
import {throwIfCancelled} from '../cancellation.js'
import {withSpooledFile} from '../fs/spool.js'
import type {ValidationReport} from '../manifest/report.js'
import type {Diagnostic} from '../manifest/diagnostic.js'
import {hasMember, isBlank, isRecord, member, quote} from '../manifest/rules/values.js'
import {compareSemVer, isSemVer} from '../model/semver.js'
import {parseTrustStore, readTrustStore, type TrustStore} from '../pki/trust.js'
import {RevocationError} from '../revocation/errors.js'
import {readRevocationList} from '../revocation/files.js'
import {type RevocationList, type VerifiedRevocationList, verifyRevocationList} from '../revocation/list.js'
import {verdictOf, type VerificationResult, type VerifyCode, type VerifyProblem} from '../signing/result.js'
import {checkContents} from '../signing/verify.js'
import {archiveProblem, readArtifactContents} from '../signing/verify-artifact.js'
import {StoreError} from './errors.js'
import type {UploadProblem, UploadReport} from './report.js'

/** The store account an upload comes from. */
export interface UploadAccount {
  /** The account's publisher name: the manifest's `publisher.name` must equal it exactly. */
  name: string
  /** The account's publisher id: a manifest `publisher.id` must equal it; without one, a manifest may not claim any. */
  id?: string
}

/**
 * An upload as a store holds it: the path of its file, its bytes, or a stream of them (a web `ReadableStream`
 * or a Node `Readable`, giving bytes). Bytes and streams are written to a private temporary file first, which
 * is removed afterwards; a stream is read no further than the archive size limit.
 */
export type Upload = string | Uint8Array | ReadableStream<Uint8Array> | Readable

/** How to judge an upload. */
export interface VerifyUploadOptions {
  account: UploadAccount
  /** The roots a signature must chain to. */
  trust: TrustStore
  /** Versions of this plugin already published: the upload must be greater than each (`version-not-newer`). */
  publishedVersions?: readonly string[]
  /** A revocation list to apply to the signature. */
  revocations?: RevocationList
  /** Apply a list past its `nextUpdate` (reported as a warning) instead of refusing with `revocation-list-stale`. */
  allowStaleRevocations?: boolean
  /** The verifier's clock (default: now). */
  now?: Date
  /** Archive limits (defaults for anything not given). */
  limits?: Partial<ArchiveLimits>
  /** How the report's messages name the upload (default: its path; `upload.svcPlugin` for bytes and a stream). */
  label?: string
  /**
   * Cancels the verification: it rejects with an error named `AbortError` (code `cancelled`, the signal's
   * reason as its `cause`) instead of giving a report, and leaves no temporary file.
   */
  signal?: AbortSignal
  /**
   * Refuse an upload whose signature does not cover its container (`container-unsigned`: signed without
   * `containerDigest`). On by default; `false` accepts one with that warning instead.
   */
  requireContainerSignature?: boolean
}

/**
 * The store's upload verifier: one report with every problem, never the first failure only. The artifact
 * is read once through the strict archive reader (every entry inflated and hashed once); those contents
 * feed both checks below, at one reference time.
 * 1. Publication-level validation with the package content (every declared RID's executable present,
 *    the multi-RID layout, the icon, `files[]` against the real bytes): every diagnostic, warnings included.
 * 2. The signature (with the revocation list when given): any verdict but Trusted is an error with the
 *    deciding code (`signature-missing` for an unsigned upload), unless the validator already reported the
 *    same fault (a malformed manifest, the same `files[]` problem, the signature block shape). The
 *    signature must cover the container (`container-unsigned`) unless `requireContainerSignature` is
 *    false, when that is a warning. An unusable
 *    list is its own problem (`revocation-list-invalid`, `revocation-list-stale`); the signature is then
 *    checked without it, so its verdict is still reported.
 * 3. `publisher-mismatch`: `publisher.name` is not the account name; `publisher.id` is present and not the
 *    account id (or the account has none). A missing or mistyped publisher is left to the validator.
 * 4. `version-not-newer`: the version is not greater (SemVer 2.0 precedence) than every published version.
 * An upload over the archive size limit, or bytes that are no artifact, are judged like any bad upload (a
 * report). Throws for what is not the upload's fault: unusable options (`invalid-argument`, a StoreError;
 * `trust-store-invalid`, a SigningError), a path that cannot be read (the reader's ArchiveError
 * `file-not-found`, `unreadable`, `not-an-artifact` for a folder or a FIFO), a stream that fails
 * (`unreadable`), a temporary file that cannot be written (`write-failed`), and a cancellation (`signal`).
 */
export async function verifyUpload(upload: Upload, options: VerifyUploadOptions): Promise<UploadReport> {
  const {account, publishedVersions = []} = checkOptions(options)
  const trust = parseTrustStore(options.trust)
  const now = options.now ?? new Date()
  const {revocations, listProblems} = revocationsOf(options, trust, now)
  const label = options.label ?? (typeof upload === 'string' ? upload : 'upload.svcPlugin')
  const {limits, signal} = options
  const outcome = await withUploadFile(upload, {limits, signal}, (file) =>
    readArtifactContents(file, {limits, secrets: true, signal, throwUnreadableFile: true}, async (contents) => ({
      validation: judgeContents(contents, {label, level: 'publication'}),
      verification: checkContents(contents, {trust, now, revocations, requireContainerSignature: options.requireContainerSignature !== false}),
      manifest: contents.manifest?.document.ok === true ? contents.manifest.document.value : null,
    })),
  )
  if ('code' in outcome) return unreadableReport(outcome)

  const {validation, verification, manifest} = outcome
  const problems: UploadProblem[] = [
    ...validation.problems.map(uploadProblemOf),
    ...listProblems,
    ...signatureProblems(verification, validation),
    ...verification.warnings.map(({code, message}): UploadProblem => ({code, severity: 'warning', message})),
    ...publisherProblems(manifest, account),
    ...versionProblems(manifest, publishedVersions),
  ]
  return {
    accepted: verification.verdict === 'Trusted' && !problems.some((problem) => problem.severity === 'error'),
    id: validation.pluginId,
    version: validation.version,
    problems,
    verdict: verification.verdict,
    certificateId: verification.certificateId,
  }
}

/** `verifyUpload` with the trust store and (optionally) the revocation list read from files. */
export async function verifyUploadFiles(
  artifact: Upload,
  options: Omit<VerifyUploadOptions, 'trust' | 'revocations'> & {trustFile: string; revocationsFile?: string},
): Promise<UploadReport> {
  const {trustFile, revocationsFile, ...rest} = options
  const trust = await readTrustStore(trustFile)
  const revocations = revocationsFile === undefined ? undefined : await readRevocationList(revocationsFile)
  return verifyUpload(artifact, {...rest, trust, revocations})
}

/**
 * Hands `use` the file of an upload: its path, or a private temporary file its bytes or stream are written to
 * (and removed from afterwards). One over the archive size limit is refused as an archive of that size is,
 * with nothing more of it read.
 */
async function withUploadFile<T>(upload: Upload, options: {limits: Partial<ArchiveLimits> | undefined; signal: AbortSignal | undefined}, use: (file: string) => Promise<T | VerifyProblem>): Promise<T | VerifyProblem> {
  throwIfCancelled(options.signal)
  if (typeof upload === 'string') return use(upload)
  const limits = resolveLimits(options.limits)
  try {
    return await withSpooledFile(upload, {maxBytes: limits.maxArchiveBytes, tooLarge: (atLeast) => archiveTooLarge(limits, atLeast, !(upload instanceof Uint8Array)), signal: options.signal}, use)
  } catch (error) {
    if (isArchiveError(error, 'limit-exceeded') && error.details.reason === 'archive-too-large') return archiveProblem(error)
    throw error
  }
}

/** The revocation list verified at `now`, or the problem it has (the signature is then checked without it). */
function revocationsOf(options: VerifyUploadOptions, trust: TrustStore, now: Date): {revocations: VerifiedRevocationList | null; listProblems: UploadProblem[]} {
  if (options.revocations === undefined) return {revocations: null, listProblems: []}
  try {
    const revocations = verifyRevocationList(options.revocations, trust, {now, allowStale: options.allowStaleRevocations})
    const stale: UploadProblem = {code: 'revocation-list-stale', severity: 'warning', message: `The revocation list (sequence ${revocations.content.sequence}) is past its nextUpdate ${revocations.content.nextUpdate}; it was applied because stale lists were allowed.`}
    return {revocations, listProblems: revocations.stale ? [stale] : []}
  } catch (error) {
    if (!(error instanceof RevocationError) || (error.code !== 'revocation-list-invalid' && error.code !== 'revocation-list-stale')) throw error
    return {revocations: null, listProblems: [{code: error.code, severity: 'error', message: error.message}]}
  }
}

function checkOptions(options: VerifyUploadOptions): VerifyUploadOptions {
  const {account, publishedVersions} = options
  if (!isRecord(account) || typeof account.name !== 'string' || isBlank(account.name)) {
    throw new StoreError('invalid-argument', 'The account needs a non-blank name.', {details: {argument: 'account.name'}})
  }
  if (account.id !== undefined && (typeof account.id !== 'string' || isBlank(account.id))) {
    throw new StoreError('invalid-argument', 'The account id, when given, must be a non-blank string.', {details: {argument: 'account.id'}})
  }
  const notSemVer = (publishedVersions ?? []).find((version) => !isSemVer(version))
  if (notSemVer !== undefined) {
    throw new StoreError('invalid-argument', `The published version ${quote(notSemVer)} is not a SemVer 2.0 version.`, {details: {argument: 'publishedVersions', value: notSemVer}})
  }
  return options
}

/** The signature's one problem, unless it is Trusted or the validator already reported that fault. */
function signatureProblems(verification: VerificationResult, validation: ValidationReport): UploadProblem[] {
  const [deciding] = verification.problems
  if (verification.verdict === 'Trusted' || deciding === undefined) return []
  const errors = validation.problems.filter((problem) => problem.severity === 'error')
  const repeated =
    (deciding.code === 'manifest-malformed' && errors.length > 0) ||
    (deciding.code === 'manifest-missing' && errors.some((problem) => problem.code === 'manifest-missing')) ||
    (deciding.code === 'signature-malformed' && errors.some((problem) => problem.code === 'invalid-signature')) ||
    errors.some((problem) => problem.code === deciding.code)
  return repeated ? [] : [{code: deciding.code, severity: 'error', message: deciding.message}]
}

/** The manifest's publisher is the uploading account. */
function publisherProblems(manifest: Record<string, unknown> | null, account: UploadAccount): UploadProblem[] {
  const publisher = member(manifest, 'publisher')
  if (!isRecord(publisher)) return []
  const problems: UploadProblem[] = []
  const name = member(publisher, 'name')
  if (typeof name === 'string' && name !== account.name) {
    problems.push({code: 'publisher-mismatch', severity: 'error', pointer: '/publisher/name', message: `publisher.name is ${quote(name)}, but the uploading account is ${quote(account.name)}.`})
  }
  const id = member(publisher, 'id')
  if (hasMember(publisher, 'id') && typeof id === 'string' && id !== account.id) {
    problems.push({
      code: 'publisher-mismatch',
      severity: 'error',
      pointer: '/publisher/id',
      message: account.id === undefined ? `publisher.id is ${quote(id)}, but the uploading account has no publisher id.` : `publisher.id is ${quote(id)}, but the uploading account's id is ${quote(account.id)}.`,
    })
  }
  return problems
}

/** A new upload is greater than every published version. */
function versionProblems(manifest: Record<string, unknown> | null, published: readonly string[]): UploadProblem[] {
  const version = member(manifest, 'version')
  // A version that is not SemVer is the validator's `invalid-version`.
  if (!isSemVer(version)) return []
  const highest = published.filter((candidate) => compareSemVer(version, candidate) <= 0).sort(compareSemVer).at(-1)
  if (highest === undefined) return []
  const message = compareSemVer(version, highest) === 0 ? `version ${version} is already published; upload a greater version.` : `version ${version} is not greater than the published ${highest}; upload a greater version.`
  return [{code: 'version-not-newer', severity: 'error', pointer: '/version', message}]
}

/** The report for an artifact the strict reader refused: the one problem there is, nothing else can be judged. */
function unreadableReport(failure: VerifyProblem & {code: VerifyCode}): UploadReport {
  const problem: UploadProblem = {code: failure.code, severity: 'error', message: failure.message}
  if (failure.archiveCode !== undefined) problem.archiveCode = failure.archiveCode
  return {accepted: false, id: null, version: null, problems: [problem], verdict: verdictOf[failure.code], certificateId: null}
}

/** A validation diagnostic as an upload problem: located by its pointer, or by the other file it is in and the line there. */
function uploadProblemOf({code, severity, message, pointer, path, line}: Diagnostic): UploadProblem {
  if (path !== undefined) return line === null ? {code, severity, message, file: path} : {code, severity, message, file: path, line}
  return pointer === null ? {code, severity, message} : {code, severity, message, pointer}
}
