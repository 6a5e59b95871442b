import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {plural} from '../quantities.js'
import {throwIfCancelled} from '../cancellation.js'
import {missingManifestAdvice} from '../archive/foreign.js'
import type {EntryDigest} from '../archive/types.js'
import {contentsOf, type ManifestRead} from '../artifact/contents.js'
import {openArtifact, type OpenedArtifact} from '../artifact/open.js'
import {pathExists} from '../fs/durable.js'
import {trackTemporaryTree} from '../fs/temporary-files.js'
import {compareDeclaredFiles, manifestEntryName} from '../manifest/declared-files.js'
import {readManifest} from '../manifest/read-manifest.js'
import {entryNameOf} from '../model/entry-name.js'
import {resolveEntrypoint, type ResolvedEntrypoint} from '../model/entrypoint.js'
import {effectiveSettings} from '../model/settings.js'
import type {Manifest} from '../model/manifest.js'
import {findStoreSignature} from '../signing/countersignature.js'
import {checkContents, withStoreSignature, type VerifyContext} from '../signing/verify.js'
import {admit, type Admission} from './admission.js'
import {checkCompatibility} from './compatibility.js'
import {consentToChanges} from './consent.js'
import {realDirectory} from './data-root.js'
import {InstallError, asInstallError} from './errors.js'
import {extractArchive} from './extract.js'
import {readActivePlugins} from './installed.js'
import {operationBasics, resolveSettings, type InstallSettings} from './install-settings.js'
import {writeTransaction, type InstallTransaction} from './journal.js'
import {freeDirectoryName, levels, pluginPaths, versionPath} from './layout.js'
import {withPluginLock} from './locked.js'
import {evaluateRelations} from './relations.js'
import {revocationContext} from './revocation-state.js'
import {createStaging, type Staging} from './staging.js'
import {applyTransaction} from './transaction.js'
import {assertNoTrustDowngrade, assertSamePublisher, readTrustRecord, type TrustRecord} from './trust-record.js'
import type {InstallOptions, InstallProgress, InstallResult, InstallStep} from './types.js'
import {readInstalledVersions, type InstalledVersions} from './version-directories.js'
import {warning, type InstallWarning} from './warnings.js'

/** Reports a step to the caller's progress hook. */
type Report = (step: InstallStep, bytesDone?: number, bytesTotal?: number, entry?: string) => Promise<void>

/** What an install works with once its settings are checked and its revocation lists settled. */
interface InstallRun {
  settings: InstallSettings
  context: VerifyContext
  options: InstallOptions
  report: Report
}

/** The artifact as judged before anything is written: its manifest, the executable the host starts. */
interface Judged {
  artifact: OpenedArtifact
  manifest: Manifest
  manifestBytes: Uint8Array
  entrypoint: ResolvedEntrypoint | null
  /** The entry name of the host's executable, null without an entrypoint for the host. */
  executable: string | null
  warnings: InstallWarning[]
}

/** The plugin as found under its lock: its versions, the active one, its trust record. */
interface Target {
  installed: InstalledVersions
  previousVersion: string | null
  record: TrustRecord | null
}

/**
 * Installs a `.svcPlugin` artifact into `options.dataRoot`, in the order of the checklist:
 * 1. **Revocation lists.** A list given is verified and recorded in the data root's revocation state at
 *    once, before anything else can refuse; every list the data root has recorded applies from then on.
 * 2. **Judge** the artifact before anything is written: strict reading, the expected digest, the manifest
 *    at development level, the expected id and version, the host's compatibility, the host's executable.
 *    Under the plugin's lock, an update that asks for more than the active version did needs consent
 *    (`consent`, else `consent-required`).
 * 3. **Stage**, holding the plugin's lock: the archive is extracted into a fresh staging directory,
 *    hashed as it is written.
 * 4. **Admit** the staged tree: `files[]` exhaustively, the signature (with every revocation list), the
 *    store countersignature when one is given or required, the trust the plugin holds and its publisher,
 *    relations to the other plugins.
 * 5. **Commit**: the journal is written (from here on the install happens even if the process dies), the
 *    staged tree is promoted by one rename, the trust record, `current.json` and pruning follow, and the
 *    version ends in `versions/<version>/`.
 * The clock is read once: certificates, `signedAt` and lists are judged at that instant. A process killed
 * at any point leaves the old state or the new one. Throws {@link InstallError} (and the revocation and
 * trust-store refusals). `options.signal` cancels it at any step before the journal is written: it rejects
 * with its `AbortError` once the staging directory is removed and the lock given up, the data root as it was.
 */
export async function install(artifactFile: string, options: InstallOptions): Promise<InstallResult> {
  let artifact: OpenedArtifact | undefined
  try {
    throwIfCancelled(options.signal)
    const basics = operationBasics(options)
    const context = await revocationContext(basics.dataRoot, {...options, now: basics.now})
    const settings = resolveSettings(options, basics)
    const countersignature = await findStoreSignature(artifactFile, options)
    // Every read of the archive, the extraction's too, stops once the signal is aborted.
    artifact = await openArtifact(artifactFile, {limits: settings.limits, fileDigest: settings.expectSha256 !== null || countersignature !== null, signal: options.signal})
    const run: InstallRun = {settings, context: withStoreSignature(context, countersignature, artifact.fileSha256), options, report: progressReporter(options)}
    const judged = judge(artifact, artifactFile, run.settings, options)
    await run.report('judged')
    return await withPluginLock(basics.dataRoot, judged.manifest.id, options, async () => {
      await run.report('locked')
      const target = await readTarget(run.settings.dataRoot, judged.manifest, options.force === true)
      const changes = await consentToChanges(run.settings.dataRoot, judged.manifest, target.installed, options.consent)
      const staging = await createStaging(run.settings.dataRoot, judged.manifest.id)
      // Until the journal names it, the staged tree is this process's alone: an interrupted one removes it.
      const forgetStaging = trackTemporaryTree(staging.dir)
      let committed = false
      try {
        const files = await stage(judged, staging, run.report, options.signal)
        const admission = await admitStaged(judged, files, staging, target, run)
        const onCommitted = (): void => {
          committed = true
          forgetStaging()
        }
        return {...(await commit(judged, admission, target, staging, run, onCommitted)), changes}
      } finally {
        // Past the commit point a failed step leaves the journal and its staged tree for the next operation.
        if (!committed || !(await pathExists(pluginPaths(run.settings.dataRoot, judged.manifest.id).transaction))) await staging.remove()
        forgetStaging()
      }
    })
  } catch (error) {
    throw asInstallError(error)
  } finally {
    await artifact?.close()
  }
}

function progressReporter(options: InstallOptions): Report {
  return async (step, bytesDone = 0, bytesTotal = 0, entry) => {
    if (options.onProgress === undefined) return
    const progress: InstallProgress = {step, bytesDone, bytesTotal}
    if (entry !== undefined) progress.entry = entry
    await options.onProgress(progress)
  }
}

/**
 * Judges the opened artifact: its file digest when one is expected (`artifact-digest-mismatch`), its
 * manifest (see {@link judgeManifest}), the host's compatibility (`incompatible`) and the executable the
 * host would start (`entrypoint-missing`: an artifact without it would install, activate and fail at launch).
 */
function judge(artifact: OpenedArtifact, artifactFile: string, settings: InstallSettings, options: InstallOptions): Judged {
  if (settings.expectSha256 !== null && artifact.fileSha256 !== settings.expectSha256) {
    throw new InstallError('artifact-digest-mismatch', `${artifactFile} has the SHA-256 ${artifact.fileSha256}, not the expected ${settings.expectSha256}.`, {
      details: {expected: settings.expectSha256, actual: artifact.fileSha256},
    })
  }
  const manifest = judgeManifest(artifact, artifactFile, {id: options.expectId, version: options.expectVersion})
  const warnings = checkCompatibility(manifest, settings.host)
  const entrypoint = resolveEntrypoint(manifest, settings.hostRid)
  const executable = entrypoint === null ? null : entryNameOf(entrypoint.executable)
  if (entrypoint !== null && artifact.archive.get(executable as string) === undefined) {
    throw new InstallError('entrypoint-missing', `The ${entrypoint.rid} entrypoint ${entrypoint.executable}, which a ${settings.hostRid} host starts, is not in ${artifactFile}.`, {
      details: {rid: entrypoint.rid, hostRid: settings.hostRid, executable},
    })
  }
  return {artifact, manifest, manifestBytes: (artifact.manifest as ManifestRead).bytes, entrypoint, executable, warnings}
}

/**
 * Reads the plugin under its lock: its installed versions (`already-installed` for this version unless
 * `force`), its trust record, and checks that its state directory is a real one (or not there yet): it is
 * handed to the plugin.
 */
async function readTarget(dataRoot: string, manifest: Manifest, force: boolean): Promise<Target> {
  const {id, version} = manifest
  const installed = await readInstalledVersions(dataRoot, id)
  await realDirectory(dataRoot, levels.data(id))
  const previousVersion = installed.active?.version ?? null
  if (!force && installed.directories.has(version)) {
    throw new InstallError('already-installed', `${id} ${version} is already installed; replacing it was not asked for.`, {
      details: {id, version, active: previousVersion === version},
    })
  }
  return {installed, previousVersion, record: await readTrustRecord(pluginPaths(dataRoot, id).trust)}
}

/** Extracts every entry into the staging directory, hashed as it is written; returns each payload file's digest. */
async function stage(judged: Judged, staging: Staging, report: Report, signal: AbortSignal | undefined): Promise<Map<string, EntryDigest>> {
  const digests = await extractArchive(judged.artifact.archive, staging.content, {
    signal,
    preloaded: new Map([[manifestEntryName, judged.manifestBytes]]),
    executables: judged.executable === null ? [] : [judged.executable],
    onProgress: (progress) => report('extracting', progress.bytesDone, progress.bytesTotal, progress.entry),
  })
  await report('extracted')
  return new Map([...digests].filter(([name]) => name !== manifestEntryName))
}

/**
 * Admits the staged tree: `files[]` exhaustively (`hash-mismatch`), the signature over the bytes as
 * written with every revocation list (see `admit`), no lower trust than the plugin holds
 * (`trust-downgrade`) and the same publisher (`publisher-changed`); then the warnings of relations.
 */
async function admitStaged(judged: Judged, files: Map<string, EntryDigest>, staging: Staging, target: Target, run: InstallRun): Promise<Admission> {
  const {id, version} = judged.manifest
  throwIfCancelled(run.options.signal)
  judged.warnings.push(...checkDeclaredFiles(judged.manifest, files))
  const contents = await contentsOf(judged.artifact.manifest, files, (name) => readFile(path.join(staging.content, ...name.split('/'))))
  const admission = admit(checkContents(contents, run.context), {allowUnsigned: run.options.allowUnsigned, subject: `${id} ${version}`})
  assertNoTrustDowngrade(target.record, admission.verdict, id, version)
  assertSamePublisher(target.record, admission.publisher, id, version)
  judged.warnings.push(...admission.warnings)
  await run.report('verified')
  if (judged.entrypoint === null) {
    judged.warnings.push(warning('no-entrypoint-for-runtime', `${id} ${version} has no entrypoint for ${run.settings.hostRid}; it is installed and activated, but not started.`))
  }
  judged.warnings.push(...evaluateRelations(judged.manifest, await readActivePlugins(run.settings.dataRoot, id)))
  return admission
}

/**
 * Writes the journal (the commit point, reported through `committed`), then carries it to its end
 * (transaction.ts) and describes the installed version.
 */
async function commit(judged: Judged, admission: Admission, target: Target, staging: Staging, run: InstallRun, committed: () => void): Promise<Omit<InstallResult, 'changes'>> {
  const {settings} = run
  const {id, version} = judged.manifest
  const transaction: InstallTransaction = {
    operation: 'install',
    version,
    // A forced reinstall never overwrites the directory it replaces: the new tree passes through a name
    // of its own, and moves to `versions/<version>` once the old tree is gone.
    directory: freeDirectoryName(version, target.installed.taken),
    staging: staging.name,
    activate: settings.activate,
    admission: {verdict: admission.verdict, certificateId: admission.certificateId, publisher: admission.publisher, storeSignature: admission.storeSignature, admittedAt: settings.now.toISOString()},
    previousVersion: target.previousVersion,
    retain: settings.retain,
  }
  // The last abort point: from the journal on, the install happens whatever the signal says.
  throwIfCancelled(run.options.signal)
  await writeTransaction(settings.dataRoot, id, transaction)
  committed()
  await run.report('committed')
  const outcome = await applyTransaction(settings.dataRoot, id, transaction, (step) => run.report(step))
  if (!outcome.applied) {
    // The staged tree was gone, or something stood where it goes, when it was to be promoted: the journal
    // was dropped and nothing was installed.
    throw new InstallError('io-error', `${id} ${version} was not installed: its staged tree was removed, or its version directory taken, before it could be put in place. Retry.`, {
      details: {errno: null, path: versionPath(settings.dataRoot, id, transaction.directory), syscall: null},
    })
  }
  return {
    id,
    version,
    activated: settings.activate || target.previousVersion === version,
    previousVersion: target.previousVersion,
    verdict: admission.verdict,
    certificateId: admission.certificateId,
    entrypoint: judged.entrypoint,
    settings: effectiveSettings(judged.manifest),
    autoStart: judged.entrypoint !== null && !judged.warnings.some((item) => item.blocking),
    directory: versionPath(settings.dataRoot, id, outcome.directory),
    dataDirectory: pluginPaths(settings.dataRoot, id).data,
    warnings: judged.warnings,
  }
}

/**
 * Judges the artifact's manifest at development level: none → `manifest-missing`;
 * `unsupported-manifest-version` → `incompatible`; any other error → `manifest-invalid`; a manifest for
 * another id or version than expected → `id-mismatch`, `version-mismatch`.
 */
function judgeManifest(opened: OpenedArtifact, artifact: string, expect: {id?: string; version?: string}): Manifest {
  const read = opened.manifest
  if (read === null) {
    throw new InstallError('manifest-missing', `${artifact} has no manifest.json at its root.${missingManifestAdvice(opened.entries.map((entry) => entry.name))}`, {details: {problems: []}})
  }
  const {manifest, report} = readManifest(read.document, {file: `${artifact}!manifest.json`, subjectKind: 'artifact', subjectPath: artifact})
  if (!report.valid || manifest === null) {
    const errors = report.problems.filter((problem) => problem.severity === 'error')
    const unsupported = errors.find((problem) => problem.code === 'unsupported-manifest-version')
    if (unsupported !== undefined) {
      const declared = read.document.ok ? read.document.value.manifestVersion : undefined
      throw new InstallError('incompatible', `${artifact}: ${unsupported.message}`, {
        details: {direction: typeof declared === 'number' && declared < 1 ? 'host-too-new' : 'host-too-old', member: 'manifestVersion', required: declared, host: 1},
      })
    }
    const first = errors[0]
    throw new InstallError('manifest-invalid', `${artifact} has an invalid manifest${first === undefined ? '' : `: ${first.code}: ${first.message}`} (${plural(errors.length, 'error')}).`, {
      details: {problems: report.problems},
    })
  }
  if (expect.id !== undefined && manifest.id !== expect.id) {
    throw new InstallError('id-mismatch', `${artifact} holds ${manifest.id}, not the expected ${expect.id}.`, {details: {expected: expect.id, actual: manifest.id}})
  }
  if (expect.version !== undefined && manifest.version !== expect.version) {
    throw new InstallError('version-mismatch', `${artifact} holds ${manifest.id} ${manifest.version}, not the expected version ${expect.version}.`, {
      details: {expected: expect.version, actual: manifest.version},
    })
  }
  return manifest
}

/**
 * The exhaustive `files[]` check: when present, every file must match and nothing else may be present
 * (`hash-mismatch`, every problem in `details.problems`; the signing files are exempt only in a signed
 * artifact); when absent, warning `no-file-digests`.
 */
function checkDeclaredFiles(manifest: Manifest, files: ReadonlyMap<string, EntryDigest>): InstallWarning[] {
  if (manifest.files === undefined) {
    return [warning('no-file-digests', `${manifest.id} ${manifest.version} lists no file digests; its files were installed unchecked.`)]
  }
  const problems = compareDeclaredFiles(manifest.files, files, {exhaustive: true, signed: Object.hasOwn(manifest, 'signature')})
  if (problems.length > 0) {
    const first = problems[0]!
    throw new InstallError('hash-mismatch', `${manifest.id} ${manifest.version} does not match its files[]: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, {
      details: {problems},
    })
  }
  return []
}
