import {lstat} from 'node:fs/promises'
import {throwIfCancelled} from '../cancellation.js'
import {compareDeclaredFiles, manifestEntryName, type FileProblem} from '../manifest/declared-files.js'
import type {Manifest} from '../model/manifest.js'
import {entryNameOf} from '../model/entry-name.js'
import {resolveEntrypoint} from '../model/entrypoint.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import type {TrustStore} from '../pki/trust.js'
import type {RevocationList} from '../revocation/list.js'
import type {Verdict, VerificationResult} from '../signing/result.js'
import {checkContents, type VerifyContext} from '../signing/verify.js'
import {hasErrno} from '../fs/durable.js'
import {asInstallError} from './errors.js'
import {requireDataRoot} from './data-root.js'
import {loadInstalledManifest, readInstalledContents} from './installed-manifest.js'
import {readTransaction} from './journal.js'
import {assertPluginId, assertVersion, pluginPaths} from './layout.js'
import {checkDirectoriesAbove, checkVersionModes} from './modes.js'
import {revocationContext} from './revocation-state.js'
import {isSamePublisher, publisherOfCertificate, readTrustRecord, type AdmittedVerdict, type TrustRecord, type VersionAdmission} from './trust-record.js'
import {resolveInstalledVersion} from './version-directories.js'
import {warning, type InstallWarning} from './warnings.js'

/** One way an installed version differs from what was admitted. */
export interface InstalledProblem {
  /**
   * `manifest-missing`, a manifest diagnostic code (`id-mismatch`, `version-mismatch`, `malformed`, …),
   * `file-missing` (removed), `undeclared-file` (added), `file-size-mismatch` / `file-digest-mismatch`
   * (changed), `unexpected-file-type` (a link or special file), `entrypoint-missing` (the host's executable
   * is gone), `unexpected-mode` (a file or directory of the version whose mode is not the one install set),
   * `directory-writable-by-others` (`plugins`, `<id>` or `versions` writable by others), a signature
   * verification code (`revoked` among them), `trust-downgrade` (admitted Trusted, no longer),
   * `unsigned-not-permitted` (unsigned, never admitted so), `trust-record-missing` (Trusted, but never
   * admitted by an install), `store-signature-missing` (a store countersignature is required and none was
   * verified at admission) or `certificate-changed` (signed by another certificate than at admission,
   * not of the same publisher under the same root).
   */
  code: string
  message: string
  /** The file concerned, as an archive path; null for the whole version. */
  path: string | null
}

/** What `verifyInstalled` found. */
export interface InstalledVerification {
  id: string
  version: string
  directory: string
  /** True when the version is exactly what was admitted and may be launched. */
  valid: boolean
  /** The signature verdict over the files as they are now; null when the manifest could not be read. */
  verdict: Verdict | null
  certificateId: string | null
  /** How this version was admitted at install (`trust.json`), null without a record. */
  admittedVerdict: AdmittedVerdict | null
  problems: InstalledProblem[]
  warnings: InstallWarning[]
}

/** Options of {@link verifyInstalled}. */
export interface VerifyInstalledOptions {
  /** The installed version to check; default the active one. */
  version?: string
  /** The roots the signature must chain to (the host's trust store); default none. */
  trust?: TrustStore
  /** The verifier's clock, read once; default now. */
  now?: Date
  /**
   * A root-signed revocation list: verified against `trust`, refused when older than the newest this data
   * root has seen (`revocation-list-rollback`) and recorded at once. Every list the data root has recorded
   * applies in any case: a revoked signer or artifact is refused.
   */
  revocations?: RevocationList
  /** Apply a given list past its nextUpdate instead of refusing it (a recorded list applies whatever its age). */
  allowStaleRevocations?: boolean
  /** The host's runtime identifier, whose executable must be present; default this machine's. */
  hostRid?: string
  /**
   * Refuse a version that was not admitted with a store countersignature (`store-signature-missing`): the
   * install that admitted it verified one and recorded it in the trust record.
   */
  requireStoreSignature?: boolean
  /**
   * Cancels the check: it rejects with an error named `AbortError` (code `cancelled`, the signal's reason as
   * its `cause`) instead of giving a verification; the data root is left as it was (a revocation list given
   * is remembered as seen all the same).
   */
  signal?: AbortSignal
}

/**
 * The launch gate, run before every start: re-checks an installed version (the active one unless
 * `options.version`) with the rules `install` applied: its manifest against its directory, every file
 * against its own `files[]` (each file changed, added or removed since install is reported), the host's
 * executable present, the modes install set (and no directory above the version writable by others), and
 * its signature over the files as they are now, with every revocation list the data root has recorded and
 * the one given (recorded first, as at install), which must be Trusted — with a trust record, and by the
 * certificate recorded at admission or one of the same publisher under the same root — or Unsigned for a
 * version admitted unsigned; with `requireStoreSignature`, admitted with a store countersignature. Throws
 * `not-installed`, `version-not-installed`, `unsafe-data-root`, and the list's refusals; `signal` cancels
 * the check between files and chunks.
 */
export async function verifyInstalled(dataRoot: string, id: string, options: VerifyInstalledOptions = {}): Promise<InstalledVerification> {
  assertPluginId(id)
  if (options.version !== undefined) assertVersion(options.version)
  try {
    throwIfCancelled(options.signal)
    await requireDataRoot(dataRoot)
    const context = await revocationContext(dataRoot, {...options, now: options.now ?? new Date()})
    // The check takes no lock: an operation on the plugin may move the directory it reads (a forced
    // reinstall discards the old tree and brings the new one to rest, an uninstall takes versions out)
    // while it reads. A verdict over a directory that moved away is about no installed tree: the check
    // starts again on the directory the version resolves to now (or says it is no longer installed).
    for (let attempt = 1; ; attempt += 1) {
      const gate = await readAdmission(dataRoot, id, options.version)
      const identity = await directoryIdentity(gate.directory)
      let result: InstalledVerification
      try {
        result = await verifyAdmitted(dataRoot, id, gate, context, options)
      } catch (error) {
        if (attempt < maxAttempts && hasErrno(error, 'ENOENT', 'ENOTDIR') && (await movedAway(dataRoot, id, options.version, gate, identity))) continue
        throw error
      }
      if (attempt < maxAttempts && (await movedAway(dataRoot, id, options.version, gate, identity))) continue
      return result
    }
  } catch (error) {
    throw asInstallError(error)
  }
}

// How many times the check starts again when the directory it read was moved away meanwhile.
const maxAttempts = 5

/**
 * The directory's device, inode and change time, or null when it is gone: a rename changes the change
 * time, so a tree moved away and another one (even on a reused inode) put in its place differ.
 */
async function directoryIdentity(directory: string): Promise<string | null> {
  const info = await lstat(directory, {bigint: true}).catch((error: unknown) => {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return null
    throw error
  })
  return info === null ? null : `${info.dev}:${info.ino}:${info.ctimeNs}`
}

/**
 * True when the version no longer resolves to the very directory that was read (another name, another
 * tree under the same name, or none). When it is no longer installed at all, that refusal is thrown.
 */
async function movedAway(dataRoot: string, id: string, version: string | undefined, gate: Admitted, identity: string | null): Promise<boolean> {
  const now = await resolveInstalledVersion(dataRoot, id, version)
  return now.directory !== gate.directory || (await directoryIdentity(now.directory)) !== identity
}

/** The checks of {@link verifyInstalled} over the directory `gate` resolved. */
async function verifyAdmitted(dataRoot: string, id: string, gate: Admitted, context: VerifyContext, options: VerifyInstalledOptions): Promise<InstalledVerification> {
  const {version, directory} = gate
  const result: InstalledVerification = {id, version, directory, valid: false, verdict: null, certificateId: null, admittedVerdict: gate.admittedVerdict, problems: [], warnings: []}
  result.problems.push(...(await checkDirectoriesAbove(dataRoot, id)))
  const loaded = await loadInstalledManifest(directory, id)
  if (loaded === null) {
    result.problems.push({code: 'manifest-missing', message: `${directory} has no manifest.json.`, path: manifestEntryName})
    return result
  }
  for (const diagnostic of loaded.report.problems) {
    if (diagnostic.severity === 'error') result.problems.push({code: diagnostic.code, message: diagnostic.message, path: manifestEntryName})
  }
  const read = await readInstalledContents(directory, loaded.bytes, options.signal)
  for (const name of read.unexpected) result.problems.push({code: 'unexpected-file-type', message: `${name} is not a regular file.`, path: name})
  const executable = loaded.manifest === null ? null : executableOf(loaded.manifest, options.hostRid)
  const fileProblems = checkInstalledFiles(result, loaded.manifest, read.files, executable)
  // Which file is the executable is known only from a valid manifest.
  if (loaded.manifest !== null) result.problems.push(...(await checkVersionModes(directory, executable?.name ?? null)))
  const signature = checkContents(read.contents, context)
  result.verdict = signature.verdict
  result.certificateId = signature.certificateId
  judgeSignature(result, signature, gate, fileProblems)
  if (options.requireStoreSignature === true && (gate.admission?.storeSignature ?? null) === null) {
    result.problems.push({code: 'store-signature-missing', message: `${id} ${version} was admitted without a store countersignature, and one is required; install it again with its countersignature.`, path: null})
  }
  result.valid = result.problems.length === 0
  return result
}

/** The version to check, its directory, and how it (and the plugin) was admitted. */
interface Admitted {
  version: string
  directory: string
  record: TrustRecord | null
  admission: VersionAdmission | null
  admittedVerdict: AdmittedVerdict | null
  /** The most trust the plugin was admitted with. */
  pluginVerdict: AdmittedVerdict | null
}

async function readAdmission(dataRoot: string, id: string, version: string | undefined): Promise<Admitted> {
  const {version: chosen, directory} = await resolveInstalledVersion(dataRoot, id, version)
  const record = await readTrustRecord(pluginPaths(dataRoot, id).trust)
  // A version promoted by an install that was killed before its trust record was written is admitted by
  // the journal the next operation completes.
  const pending = await readTransaction(dataRoot, id)
  const admission: VersionAdmission | null = record?.versions[chosen] ?? (pending?.version === chosen ? pending.admission : null)
  const admittedVerdict = admission?.verdict ?? null
  const pluginVerdict = record?.verdict === 'Trusted' || admittedVerdict === 'Trusted' ? 'Trusted' : (record?.verdict ?? admittedVerdict)
  return {version: chosen, directory, record, admission, admittedVerdict, pluginVerdict}
}

/** The host's executable (its runtime identifier and archive path), null when the manifest has no entrypoint for the host. */
function executableOf(manifest: Manifest, hostRid: string | undefined): {rid: string; name: string} | null {
  const entrypoint = resolveEntrypoint(manifest, hostRid ?? currentHostRid())
  return entrypoint === null ? null : {rid: entrypoint.rid, name: entryNameOf(entrypoint.executable)}
}

/** The host's executable present, and the files against `files[]` (exhaustively); returns the file problems. */
function checkInstalledFiles(
  result: InstalledVerification,
  manifest: Manifest | null,
  files: ReadonlyMap<string, {size: number; sha256: string}>,
  executable: {rid: string; name: string} | null,
): FileProblem[] {
  const {id, version, directory} = result
  if (manifest === null) return []
  if (manifest.files === undefined) result.warnings.push(warning('no-file-digests', `${id} ${version} lists no file digests; changed files cannot be detected.`))
  const fileProblems = manifest.files === undefined ? [] : compareDeclaredFiles(manifest.files, files, {exhaustive: true, signed: Object.hasOwn(manifest, 'signature')})
  result.problems.push(...fileProblems.map(({code, message, path: file}) => ({code, message, path: file})))
  if (executable !== null && !files.has(executable.name)) {
    result.problems.push({code: 'entrypoint-missing', message: `The ${executable.rid} executable ${executable.name} is not in ${directory}; the plugin cannot start.`, path: executable.name})
  }
  return fileProblems
}

/**
 * The signature verdict against the admission: Trusted needs a Trusted admission (`trust-record-missing`)
 * by the same certificate or the same publisher under the same root (`certificate-changed`); Unsigned is
 * fine only for a plugin never admitted Trusted and a version admitted unsigned (`trust-downgrade`,
 * `unsigned-not-permitted`); any other verdict is its deciding problem.
 */
function judgeSignature(result: InstalledVerification, signature: VerificationResult, gate: Admitted, fileProblems: readonly FileProblem[]): void {
  const {id, version} = result
  const {admission, admittedVerdict, pluginVerdict, record} = gate
  switch (signature.verdict) {
    case 'Trusted': {
      const publisher = publisherOfCertificate(signature.certificate)
      const pinned = admission?.publisher ?? record?.publisher ?? null
      if (admission === null || admittedVerdict !== 'Trusted') {
        result.problems.push({code: 'trust-record-missing', message: `${id} ${version} verifies Trusted but was never admitted by an install (no trust record); install it again.`, path: null})
      } else if (admission.certificateId !== signature.certificateId && (pinned === null || publisher === null || !isSamePublisher(pinned, publisher))) {
        result.problems.push({
          code: 'certificate-changed',
          message: `${id} ${version} was admitted signed by ${admission.certificateId}; its files now verify under ${signature.certificateId}, which is not the same publisher under the same root.`,
          path: null,
        })
      }
      return
    }
    case 'Unsigned':
      if (admittedVerdict === 'Unsigned' && pluginVerdict === 'Unsigned') {
        result.warnings.push(warning('artifact-unsigned', `${id} ${version} is not signed; it was admitted unsigned.`))
      } else if (admittedVerdict === 'Trusted' || pluginVerdict === 'Trusted') {
        result.problems.push({code: 'trust-downgrade', message: `${id} was admitted as Trusted; ${version} is no longer signed.`, path: null})
      } else {
        result.problems.push({code: 'unsigned-not-permitted', message: `${id} ${version} is not signed and was never admitted unsigned.`, path: null})
      }
      return
    default:
      for (const problem of signature.problems) {
        // A file problem the exhaustive comparison reported already is not repeated.
        if (fileProblems.some((reported) => reported.code === problem.code)) continue
        result.problems.push({code: problem.code, message: problem.message, path: null})
      }
  }
}
