import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {contentsOf, manifestRead} from '../artifact/contents.js'
import {readTree} from '../fs/tree.js'
import {compareDeclaredFiles, manifestEntryName} from '../manifest/declared-files.js'
import {entryNameOf} from '../model/entry-name.js'
import {resolveEntrypoint} from '../model/entrypoint.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import type {TrustStore} from '../pki/trust.js'
import type {RevocationList} from '../revocation/list.js'
import type {Verdict} from '../signing/result.js'
import {checkContents, verificationContext} from '../signing/verify.js'
import {asInstallError} from './errors.js'
import {requireDataRoot} from './data-root.js'
import {loadInstalledManifest} from './installed-manifest.js'
import {readTransaction} from './journal.js'
import {assertPluginId, assertVersion, pluginPaths} from './layout.js'
import {recordRevocationSequence} from './revocation-state.js'
import {isSamePublisher, publisherOfCertificate, readTrustRecord, type AdmittedVerdict, type VersionAdmission} from './trust-record.js'
import {resolveInstalledVersion} from './version-directories.js'
import {warning, type InstallWarning} from './warnings.js'

/** One way an installed version differs from what was admitted. */
export interface InstalledProblem {
  /**
   * `manifest-missing`, a manifest diagnostic code (`id-mismatch`, `version-mismatch`, `malformed`, …),
   * `file-missing` (removed), `undeclared-file` (added), `file-size-mismatch` / `file-digest-mismatch`
   * (changed), `unexpected-file-type` (a link or special file), `entrypoint-missing` (the host's executable
   * is gone), a signature verification code, `trust-downgrade` (admitted Trusted, no longer),
   * `unsigned-not-permitted` (unsigned, never admitted so), `trust-record-missing` (Trusted, but never
   * admitted by an install) or `certificate-changed` (signed by another certificate than at admission,
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
   * root has seen (`revocation-list-rollback`) and remembered as seen; a revoked signer or artifact is refused.
   */
  revocations?: RevocationList
  /** Apply a list past its nextUpdate instead of refusing it. */
  allowStaleRevocations?: boolean
  /** The host's runtime identifier, whose executable must be present; default this machine's. */
  hostRid?: string
}

/**
 * The launch gate, run before every start: re-checks an installed version (the active one unless
 * `options.version`) with the rules `install` applied: its manifest against its directory, every file
 * against its own `files[]` (each file changed, added or removed since install is reported), the host's
 * executable present, and its signature over the files as they are now, which must be Trusted — with a
 * trust record, and by the certificate recorded at admission or one of the same publisher under the same
 * root — or Unsigned for a version admitted unsigned. A revocation list is checked for rollback and
 * remembered, as at install. Throws `not-installed`, `version-not-installed`, `unsafe-data-root`, and the
 * list's refusals.
 */
export async function verifyInstalled(dataRoot: string, id: string, options: VerifyInstalledOptions = {}): Promise<InstalledVerification> {
  assertPluginId(id)
  if (options.version !== undefined) assertVersion(options.version)
  try {
    await requireDataRoot(dataRoot)
    const context = verificationContext({trust: options.trust ?? {roots: []}, now: options.now, revocations: options.revocations, allowStaleRevocations: options.allowStaleRevocations})
    if (context.revocations !== null) await recordRevocationSequence(dataRoot, context.revocations)
    const paths = pluginPaths(dataRoot, id)
    const {version: chosen, directory} = await resolveInstalledVersion(dataRoot, id, options.version)
    const record = await readTrustRecord(paths.trust)
    // A version promoted by an install that was killed before its trust record was written is admitted by
    // the journal the next operation completes.
    const pending = await readTransaction(dataRoot, id)
    const admission: VersionAdmission | null = record?.versions[chosen] ?? (pending?.version === chosen ? pending.admission : null)
    const admittedVerdict = admission?.verdict ?? null
    const pluginVerdict = record?.verdict === 'Trusted' || admittedVerdict === 'Trusted' ? 'Trusted' : (record?.verdict ?? admittedVerdict)
    const result: InstalledVerification = {id, version: chosen, directory, valid: false, verdict: null, certificateId: null, admittedVerdict, problems: [], warnings: []}

    const loaded = await loadInstalledManifest(directory, id)
    if (loaded === null) {
      result.problems.push({code: 'manifest-missing', message: `${directory} has no manifest.json.`, path: manifestEntryName})
      return result
    }
    for (const diagnostic of loaded.report.problems) {
      if (diagnostic.severity === 'error') result.problems.push({code: diagnostic.code, message: diagnostic.message, path: manifestEntryName})
    }

    const tree = await readTree(directory, {digests: true})
    for (const name of tree.unexpected) result.problems.push({code: 'unexpected-file-type', message: `${name} is not a regular file.`, path: name})
    const files = new Map([...tree.files].filter(([name]) => name !== manifestEntryName)) as Map<string, {size: number; sha256: string}>
    const manifest = loaded.manifest
    if (manifest !== null && manifest.files === undefined) {
      result.warnings.push(warning('no-file-digests', `${id} ${chosen} lists no file digests; changed files cannot be detected.`))
    }
    const fileProblems = manifest?.files === undefined ? [] : compareDeclaredFiles(manifest.files, files, {exhaustive: true, signed: Object.hasOwn(manifest, 'signature')})
    result.problems.push(...fileProblems.map(({code, message, path: file}) => ({code, message, path: file})))
    if (manifest !== null) {
      const entrypoint = resolveEntrypoint(manifest, options.hostRid ?? currentHostRid())
      const executable = entrypoint === null ? null : entryNameOf(entrypoint.executable)
      if (executable !== null && !files.has(executable)) {
        result.problems.push({code: 'entrypoint-missing', message: `The ${entrypoint!.rid} executable ${executable} is not in ${directory}; the plugin cannot start.`, path: executable})
      }
    }

    const contents = await contentsOf(manifestRead(loaded.bytes), files, (name) => readFile(path.join(directory, ...name.split('/'))))
    const signature = checkContents(contents, context)
    result.verdict = signature.verdict
    result.certificateId = signature.certificateId
    switch (signature.verdict) {
      case 'Trusted': {
        const publisher = publisherOfCertificate(signature.certificate)
        const pinned = admission?.publisher ?? record?.publisher ?? null
        if (admission === null || admittedVerdict !== 'Trusted') {
          result.problems.push({code: 'trust-record-missing', message: `${id} ${chosen} verifies Trusted but was never admitted by an install (no trust record); install it again.`, path: null})
        } else if (admission.certificateId !== signature.certificateId && (pinned === null || publisher === null || !isSamePublisher(pinned, publisher))) {
          result.problems.push({
            code: 'certificate-changed',
            message: `${id} ${chosen} was admitted signed by ${admission.certificateId}; its files now verify under ${signature.certificateId}, which is not the same publisher under the same root.`,
            path: null,
          })
        }
        break
      }
      case 'Unsigned':
        if (admittedVerdict === 'Unsigned' && pluginVerdict === 'Unsigned') {
          result.warnings.push(warning('artifact-unsigned', `${id} ${chosen} is not signed; it was admitted unsigned.`))
        } else if (admittedVerdict === 'Trusted' || pluginVerdict === 'Trusted') {
          result.problems.push({code: 'trust-downgrade', message: `${id} was admitted as Trusted; ${chosen} is no longer signed.`, path: null})
        } else {
          result.problems.push({code: 'unsigned-not-permitted', message: `${id} ${chosen} is not signed and was never admitted unsigned.`, path: null})
        }
        break
      default:
        for (const problem of signature.problems) {
          // A file problem the exhaustive comparison above reported already is not repeated.
          if (fileProblems.some((reported) => reported.code === problem.code)) continue
          result.problems.push({code: problem.code, message: problem.message, path: null})
        }
    }
    result.valid = result.problems.length === 0
    return result
  } catch (error) {
    throw asInstallError(error)
  }
}
