import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {resolveLimits} from '../archive/limits.js'
import type {Verdict} from '../signing/result.js'
import {isUnlistedEntry} from '../signing/files-check.js'
import type {RevocationList} from '../revocation/list.js'
import type {TrustStore} from '../pki/trust.js'
import {assertVersionInstalled} from './activate.js'
import {verifySignature} from './admission.js'
import {readCurrentVersion} from './current.js'
import {digestTree} from './digest-tree.js'
import {InstallError, asInstallError} from './errors.js'
import {checkFileDigests} from './file-check.js'
import {loadInstalledManifest} from './installed-manifest.js'
import {assertPluginId, assertVersion, pluginPaths, versionDir} from './layout.js'
import {installedVersionNames, readTransaction} from './transaction.js'
import {readTrustRecord, type AdmittedVerdict} from './trust-record.js'
import {warning, type InstallWarning} from './warnings.js'

/** One way an installed version differs from what was admitted. */
export interface InstalledProblem {
  /**
   * `manifest-missing`, a manifest diagnostic code (`id-mismatch`, `version-mismatch`, `malformed`, …),
   * `file-missing` (removed), `undeclared-file` (added), `file-size-mismatch` / `file-digest-mismatch`
   * (changed), `unexpected-file-type` (a link or special file), a signature verification code (DESIGN §7.4),
   * `trust-downgrade` (admitted Trusted, no longer) or `unsigned-not-permitted` (unsigned, never admitted so).
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
  /** The roots the signature must chain to (the host's trust store); default none. */
  trust?: TrustStore
  /** The verifier's clock; default now. */
  now?: Date
  /** A verified root-signed revocation list: a revoked signer or artifact is refused (`revoked`). */
  revocations?: RevocationList
  /** Apply a list past its nextUpdate instead of refusing it. */
  allowStaleRevocations?: boolean
}

// File codes of the signature checklist; the per-file check below reports each file itself.
const signatureFileCodes = new Set(['declared-file-missing', 'file-size-mismatch', 'file-digest-mismatch', 'undeclared-file'])

/**
 * Re-checks an installed version (the active one when `version` is omitted) before a launch: its manifest
 * against its directory, every file against its own `files[]` (reporting each file changed, added or
 * removed since install), and its signature over the files as they are now, which must still be Trusted —
 * or Unsigned for a version admitted unsigned. Reads only. Throws `not-installed`, `version-not-installed`.
 */
export async function verifyInstalled(dataRoot: string, id: string, version?: string, options: VerifyInstalledOptions = {}): Promise<InstalledVerification> {
  assertPluginId(id)
  if (version !== undefined) assertVersion(version)
  try {
    const paths = pluginPaths(dataRoot, id)
    const chosen = version ?? (await activeVersion(paths.current, paths.versions, id))
    const directory = versionDir(dataRoot, id, chosen)
    await assertVersionInstalled(paths.versions, directory, id, chosen)
    const record = await readTrustRecord(paths.trust)
    // A version promoted by an install that was killed before its trust record was written is admitted by
    // the journal the next operation completes.
    const pending = await readTransaction(dataRoot, id)
    const journalled = pending?.version === chosen ? pending.admission.verdict : null
    const admittedVerdict = record?.versions[chosen]?.verdict ?? journalled
    const pluginVerdict = record?.verdict === 'Trusted' || journalled === 'Trusted' ? 'Trusted' : (record?.verdict ?? journalled)
    const result: InstalledVerification = {id, version: chosen, directory, valid: false, verdict: null, certificateId: null, admittedVerdict, problems: [], warnings: []}

    const loaded = await loadInstalledManifest(directory, id, chosen)
    if (loaded === null) {
      result.problems.push({code: 'manifest-missing', message: `${directory} has no manifest.json.`, path: 'manifest.json'})
      return result
    }
    for (const diagnostic of loaded.report.problems) {
      if (diagnostic.severity === 'error') result.problems.push({code: diagnostic.code, message: diagnostic.message, path: 'manifest.json'})
    }

    const tree = await digestTree(directory)
    for (const name of tree.unexpected) {
      result.problems.push({code: 'unexpected-file-type', message: `${name} is not a regular file.`, path: name})
    }
    const declared = loaded.manifest?.files
    if (loaded.manifest !== null && declared === undefined) {
      result.warnings.push(warning('no-file-digests', `${id} ${chosen} lists no file digests; changed files cannot be detected.`))
    }
    const fileProblems = declared === undefined ? [] : checkFileDigests(declared, tree.files)
    result.problems.push(...fileProblems.map(({code, message, path: file}) => ({code, message, path: file})))

    const maxBytes = resolveLimits().maxManifestBytes
    const signature = await verifySignature(
      {
        manifestBytes: loaded.bytes,
        files: new Map([...tree.files].filter(([name]) => name !== 'manifest.json')),
        readFile: async (name) => {
          const digest = tree.files.get(name)
          if (digest === undefined || !isUnlistedEntry(name) || digest.size > maxBytes) return null
          return readFile(path.join(directory, ...name.split('/')))
        },
      },
      options,
    )
    result.verdict = signature.verdict
    result.certificateId = signature.certificateId
    switch (signature.verdict) {
      case 'Trusted':
        break
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
          if (fileProblems.length > 0 && signatureFileCodes.has(problem.code)) continue
          result.problems.push({code: problem.code, message: problem.message, path: null})
        }
        if (signature.problems.length === 0) result.problems.push({code: 'signature-invalid', message: `The signature verdict is ${signature.verdict}.`, path: null})
    }
    result.valid = result.problems.length === 0
    return result
  } catch (error) {
    throw asInstallError(error)
  }
}

/** The active version, or `not-installed` / `version-not-installed` when there is none. */
async function activeVersion(currentFile: string, versionsDir: string, id: string): Promise<string> {
  const current = await readCurrentVersion(currentFile)
  if (current !== null) return current
  const installed = await installedVersionNames(versionsDir)
  if (installed.length === 0) throw new InstallError('not-installed', `${id} is not installed.`, {details: {id}})
  throw new InstallError('version-not-installed', `${id} has no active version; name one.`, {details: {id, installed}})
}
