import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {plural} from '../quantities.js'
import {missingManifestAdvice} from '../archive/foreign.js'
import {resolveLimits} from '../archive/limits.js'
import type {ArchiveLimits, EntryDigest} from '../archive/types.js'
import {contentsOf, type ManifestRead} from '../artifact/contents.js'
import {openArtifact, type OpenedArtifact} from '../artifact/open.js'
import {pathExists} from '../fs/durable.js'
import {compareDeclaredFiles, manifestEntryName} from '../manifest/declared-files.js'
import {readManifest} from '../manifest/read-manifest.js'
import {entryNameOf} from '../model/entry-name.js'
import {resolveEntrypoint} from '../model/entrypoint.js'
import {effectiveSettings} from '../model/settings.js'
import type {Manifest} from '../model/manifest.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import {checkContents, verificationContext} from '../signing/verify.js'
import {admit} from './admission.js'
import {checkCompatibility, defaultProtocolRange, developmentHostVersion, type HostCompatibility} from './compatibility.js'
import {realDirectory} from './data-root.js'
import {InstallError, asInstallError} from './errors.js'
import {extractArchive} from './extract.js'
import {readActivePlugins} from './installed.js'
import {writeTransaction, type InstallTransaction} from './journal.js'
import {assertPluginId, assertVersion, freeDirectoryName, levels, pluginPaths, versionPath} from './layout.js'
import {withPluginLock} from './locked.js'
import {evaluateRelations} from './relations.js'
import {recordRevocationSequence} from './revocation-state.js'
import {createStaging} from './staging.js'
import {applyTransaction} from './transaction.js'
import {assertNoTrustDowngrade, assertSamePublisher, readTrustRecord} from './trust-record.js'
import type {InstallOptions, InstallProgress, InstallResult, InstallStep} from './types.js'
import {readInstalledVersions} from './version-directories.js'
import {warning, type InstallWarning} from './warnings.js'

/** Every option of an install with its default applied and checked. */
interface InstallSettings {
  dataRoot: string
  hostRid: string
  host: HostCompatibility
  retain: number
  activate: boolean
  limits: ArchiveLimits
  /** `sha256:` + lowercase hex, when the caller expects a file digest. */
  expectSha256: string | null
}

/**
 * Installs a `.svcPlugin` artifact into `options.dataRoot`. Everything is judged before anything is
 * written: the archive (strict reading), the manifest at development level, the expected id and the host
 * compatibility. A revocation list that verifies is checked against the newest this data root has seen
 * and remembered at once, whatever becomes of the install. Then, holding the plugin's lock, the archive is
 * extracted into a fresh staging directory, hashed as it is written, checked against `files[]` and the
 * signature, and promoted into `versions/<version>` by one rename; the trust record, `current.json` and
 * pruning follow. The clock is read once: certificates, `signedAt` and the list are judged at that instant.
 * A process killed at any point leaves the old state or the new one. Throws {@link InstallError}.
 */
export async function install(artifactFile: string, options: InstallOptions): Promise<InstallResult> {
  const settings = resolveSettings(options)
  const now = options.now ?? new Date()
  const report = async (step: InstallStep, bytesDone = 0, bytesTotal = 0, entry?: string): Promise<void> => {
    if (options.onProgress === undefined) return
    const progress: InstallProgress = {step, bytesDone, bytesTotal}
    if (entry !== undefined) progress.entry = entry
    await options.onProgress(progress)
  }

  let artifact: OpenedArtifact | undefined
  try {
    artifact = await openArtifact(artifactFile, {limits: settings.limits, fileDigest: settings.expectSha256 !== null})
    if (settings.expectSha256 !== null && artifact.fileSha256 !== settings.expectSha256) {
      throw new InstallError('artifact-digest-mismatch', `${artifactFile} has the SHA-256 ${artifact.fileSha256}, not the expected ${settings.expectSha256}.`, {
        details: {expected: settings.expectSha256, actual: artifact.fileSha256},
      })
    }
    const manifest = judgeManifest(artifact, artifactFile, {id: options.expectId, version: options.expectVersion})
    const manifestBytes = (artifact.manifest as ManifestRead).bytes
    const warnings = checkCompatibility(manifest, settings.host)
    const context = verificationContext({trust: options.trust ?? {roots: []}, now, revocations: options.revocations, allowStaleRevocations: options.allowStaleRevocations})
    // Rollback protection: a list that verifies is the newest this data root has seen (or it is refused),
    // and it is remembered now, so that refusing this artifact cannot make the host forget it.
    if (context.revocations !== null) await recordRevocationSequence(settings.dataRoot, context.revocations)
    const entrypoint = resolveEntrypoint(manifest, settings.hostRid)
    const executable = entrypoint === null ? null : entryNameOf(entrypoint.executable)
    // The host starts this file: an artifact without it would install, activate and fail at launch.
    if (entrypoint !== null && artifact.archive.get(executable as string) === undefined) {
      throw new InstallError('entrypoint-missing', `The ${entrypoint.rid} entrypoint ${entrypoint.executable}, which a ${settings.hostRid} host starts, is not in ${artifactFile}.`, {
        details: {rid: entrypoint.rid, hostRid: settings.hostRid, executable},
      })
    }
    await report('judged')

    const opened = artifact
    return await withPluginLock(settings.dataRoot, manifest.id, options, async () => {
      await report('locked')
      const {id, version} = manifest
      const paths = pluginPaths(settings.dataRoot, id)
      const installed = await readInstalledVersions(settings.dataRoot, id)
      // The plugin's state directory is handed to the plugin: it must be a real one (or not exist yet).
      await realDirectory(settings.dataRoot, levels.data(id))
      const previousVersion = installed.active?.version ?? null
      if (options.force !== true && installed.directories.has(version)) {
        throw new InstallError('already-installed', `${id} ${version} is already installed; replacing it was not asked for.`, {
          details: {id, version, active: previousVersion === version},
        })
      }
      const record = await readTrustRecord(paths.trust)

      const staging = await createStaging(settings.dataRoot, id)
      let committed = false
      try {
        const digests = await extractArchive(opened.archive, staging.content, {
          preloaded: new Map([[manifestEntryName, manifestBytes]]),
          executables: executable === null ? [] : [executable],
          onProgress: (progress) => report('extracting', progress.bytesDone, progress.bytesTotal, progress.entry),
        })
        await report('extracted')

        const files = new Map([...digests].filter(([name]) => name !== manifestEntryName))
        warnings.push(...checkDeclaredFiles(manifest, files))
        const subject = `${id} ${version}`
        const contents = await contentsOf(opened.manifest, files, (name) => readFile(path.join(staging.content, ...name.split('/'))))
        const admission = admit(checkContents(contents, context), {allowUnsigned: options.allowUnsigned, subject})
        assertNoTrustDowngrade(record, admission.verdict, id, `${version}`)
        assertSamePublisher(record, admission.publisher, id, `${version}`)
        warnings.push(...admission.warnings)
        await report('verified')

        if (entrypoint === null) {
          warnings.push(warning('no-entrypoint-for-runtime', `${subject} has no entrypoint for ${settings.hostRid}; it is installed and activated, but not started.`))
        }
        warnings.push(...evaluateRelations(manifest, await readActivePlugins(settings.dataRoot, id)))

        const transaction: InstallTransaction = {
          operation: 'install',
          version,
          // A forced reinstall never overwrites the directory it replaces: the new tree gets its own name.
          directory: freeDirectoryName(version, installed.taken),
          staging: staging.name,
          activate: settings.activate,
          admission: {verdict: admission.verdict, certificateId: admission.certificateId, publisher: admission.publisher, admittedAt: now.toISOString()},
          previousVersion,
          retain: settings.retain,
        }
        await writeTransaction(settings.dataRoot, id, transaction)
        committed = true
        await report('committed')
        await applyTransaction(settings.dataRoot, id, transaction, (step) => report(step))

        return {
          id,
          version,
          activated: settings.activate || previousVersion === version,
          previousVersion,
          verdict: admission.verdict,
          certificateId: admission.certificateId,
          entrypoint,
          settings: effectiveSettings(manifest),
          autoStart: entrypoint !== null && !warnings.some((item) => item.blocking),
          directory: versionPath(settings.dataRoot, id, transaction.directory),
          dataDirectory: paths.data,
          warnings,
        }
      } finally {
        // Past the commit point a failed step leaves the journal and its staged tree for the next operation.
        if (!committed || !(await pathExists(paths.transaction))) await staging.remove()
      }
    })
  } catch (error) {
    throw asInstallError(error)
  } finally {
    await artifact?.close()
  }
}

function resolveSettings(options: InstallOptions): InstallSettings {
  if (typeof options?.dataRoot !== 'string' || options.dataRoot === '') {
    throw new InstallError('invalid-argument', 'The data root must name a directory.', {details: {argument: 'dataRoot'}})
  }
  const hostVersion = options.hostVersion ?? developmentHostVersion
  assertVersion(hostVersion)
  const protocol = options.protocol ?? defaultProtocolRange
  if (!Number.isSafeInteger(protocol.minimum) || !Number.isSafeInteger(protocol.maximum) || protocol.minimum < 1 || protocol.maximum < protocol.minimum) {
    throw new InstallError('invalid-argument', `The host protocol range ${protocol.minimum}-${protocol.maximum} is not one (integers, 1 <= minimum <= maximum).`, {
      details: {argument: 'protocol', value: protocol},
    })
  }
  const retain = options.retain ?? 1
  if (!Number.isSafeInteger(retain) || retain < 0) {
    throw new InstallError('invalid-argument', `The number of versions to retain must be a whole number, not ${retain}.`, {details: {argument: 'retain', value: retain}})
  }
  if (options.expectId !== undefined) assertPluginId(options.expectId)
  if (options.expectVersion !== undefined) assertVersion(options.expectVersion)
  const expectSha256 = options.expectSha256 === undefined ? null : /^(?:sha256:)?([0-9a-fA-F]{64})$/.exec(options.expectSha256)?.[1]
  if (expectSha256 === undefined) {
    throw new InstallError('invalid-argument', `The expected SHA-256 ${JSON.stringify(options.expectSha256)} is not a SHA-256 digest (64 hex digits).`, {details: {argument: 'expectSha256'}})
  }
  if (options.now !== undefined && !(options.now instanceof Date && !Number.isNaN(options.now.getTime()))) {
    throw new InstallError('invalid-argument', 'now must be a valid Date.', {details: {argument: 'now'}})
  }
  return {
    dataRoot: path.resolve(options.dataRoot),
    hostRid: options.hostRid ?? currentHostRid(),
    host: {hostVersion, protocol: {minimum: protocol.minimum, maximum: protocol.maximum}},
    retain,
    activate: options.activate ?? true,
    limits: resolveLimits(options.limits),
    expectSha256: expectSha256 === null ? null : `sha256:${expectSha256.toLowerCase()}`,
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

