import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {resolveLimits} from '../archive/limits.js'
import {openArchive} from '../archive/reader.js'
import type {ArchiveLimits, EntryDigest, StrictArchive} from '../archive/types.js'
import {readManifest} from '../manifest/read-manifest.js'
import {entryNameOf} from '../model/entry-name.js'
import {resolveEntrypoint} from '../model/entrypoint.js'
import {isUnlistedEntry} from '../signing/files-check.js'
import {verifyRevocationList} from '../revocation/list.js'
import {checkRevocationSequence, recordRevocationSequence} from './revocation-state.js'
import type {Manifest} from '../model/manifest.js'
import {hostRid as currentHostRid} from '../model/rid.js'
import {admit, verifySignature} from './admission.js'
import {checkCompatibility, defaultProtocolRange, developmentHostVersion, type HostCompatibility} from './compatibility.js'
import {readCurrentVersion} from './current.js'
import {isDirectory, pathExists} from '../fs/durable.js'
import {InstallError, asInstallError} from './errors.js'
import {extractArchive} from './extract.js'
import {checkFileDigests} from './file-check.js'
import {readActivePlugins} from './installed.js'
import {assertPluginId, assertVersion, pluginPaths, versionDir} from './layout.js'
import {withPluginLock} from './locked.js'
import {evaluateRelations} from './relations.js'
import {createStaging} from './staging.js'
import {applyTransaction, writeTransaction, type InstallTransaction} from './transaction.js'
import {assertNoTrustDowngrade, assertSamePublisher, readTrustRecord} from './trust-record.js'
import type {InstallOptions, InstallProgress, InstallResult, InstallStep} from './types.js'
import {warning, type InstallWarning} from './warnings.js'

/** Every option of an install with its default applied and checked. */
interface InstallSettings {
  dataRoot: string
  hostRid: string
  host: HostCompatibility
  retain: number
  activate: boolean
  limits: ArchiveLimits
}

/**
 * Installs a `.svcPlugin` artifact into `options.dataRoot` (DESIGN §8). Everything is judged before anything
 * is written: the archive (strict reading), the manifest at development level, the expected id and the
 * host compatibility. Then, holding the plugin's lock, the archive is extracted into a fresh staging
 * directory, hashed as it is written, checked against `files[]` and the signature, and promoted into
 * `versions/<version>` by one rename; the trust record, `current.json` and pruning follow. A process
 * killed at any point leaves the old state or the new one. Throws {@link InstallError}.
 */
export async function install(artifact: string, options: InstallOptions): Promise<InstallResult> {
  const settings = resolveSettings(options)
  const report = async (step: InstallStep, bytesDone = 0, bytesTotal = 0, entry?: string): Promise<void> => {
    if (options.onProgress === undefined) return
    const progress: InstallProgress = {step, bytesDone, bytesTotal}
    if (entry !== undefined) progress.entry = entry
    await options.onProgress(progress)
  }

  const archive = await openArtifact(artifact, settings.limits)
  try {
    const {manifest, manifestBytes} = await judgeManifest(archive, artifact, options.expectId)
    const warnings = checkCompatibility(manifest, settings.host)
    // A revocation list is judged, and checked against the newest this data root has seen, before anything is written.
    const revocations =
      options.revocations === undefined ? null : verifyRevocationList(options.revocations, options.trust ?? {roots: []}, {now: options.now, allowStale: options.allowStaleRevocations})
    if (revocations !== null) await checkRevocationSequence(settings.dataRoot, revocations)
    const entrypoint = resolveEntrypoint(manifest, settings.hostRid)
    const executable = entrypoint === null ? null : entryNameOf(entrypoint.executable)
    await report('judged')

    return await withPluginLock(settings.dataRoot, manifest.id, options, async () => {
      await report('locked')
      const {id, version} = manifest
      const paths = pluginPaths(settings.dataRoot, id)
      const current = await readCurrentVersion(paths.current)
      const previousVersion = current !== null && (await isDirectory(versionDir(settings.dataRoot, id, current))) ? current : null
      if (options.force !== true && (await isDirectory(versionDir(settings.dataRoot, id, version)))) {
        throw new InstallError('already-installed', `${id} ${version} is already installed; use force to replace it.`, {
          details: {id, version, active: previousVersion === version},
        })
      }
      const record = await readTrustRecord(paths.trust)

      const staging = await createStaging(settings.dataRoot, id)
      let committed = false
      try {
        const digests = await extractArchive(archive, staging.content, {
          preloaded: new Map([['manifest.json', manifestBytes]]),
          executables: executable === null ? [] : [executable],
          onProgress: (progress) => report('extracting', progress.bytesDone, progress.bytesTotal, progress.entry),
        })
        await report('extracted')

        warnings.push(...checkDeclaredFiles(manifest, digests))
        const subject = `${id} ${version}`
        const verification = await verifySignature(
          {
            manifestBytes,
            files: new Map([...digests].filter(([name]) => name !== 'manifest.json')),
            readFile: (name) => readStagedFile(staging.content, name, digests, settings.limits.maxManifestBytes),
          },
          {
            trust: options.trust,
            now: options.now,
            maxManifestBytes: settings.limits.maxManifestBytes,
            revocations: options.revocations,
            allowStaleRevocations: options.allowStaleRevocations,
          },
        )
        const admission = admit(verification, {allowUnsigned: options.allowUnsigned, subject})
        assertNoTrustDowngrade(record, admission.verdict, id, `${version}`)
        assertSamePublisher(record, admission.publisher, id, `${version}`)
        // Rollback protection (revocation-state.ts): the list an admitted artifact was judged under is the newest seen.
        if (revocations !== null) await recordRevocationSequence(settings.dataRoot, revocations)
        warnings.push(...admission.warnings)
        await report('verified')

        if (entrypoint === null) {
          warnings.push(warning('no-entrypoint-for-runtime', `${subject} has no entrypoint for ${settings.hostRid}; it is installed but will not start.`, true))
        } else if (!digests.has(executable as string)) {
          warnings.push(warning('entrypoint-not-packed', `The ${entrypoint.rid} entrypoint ${entrypoint.executable} is not in the artifact; the plugin will not start.`, true))
        }
        warnings.push(...evaluateRelations(manifest, await readActivePlugins(settings.dataRoot, id)))

        const transaction: InstallTransaction = {
          operation: 'install',
          version,
          staging: staging.name,
          activate: settings.activate,
          admission: {verdict: admission.verdict, certificateId: admission.certificateId, publisher: admission.publisher, admittedAt: (options.now ?? new Date()).toISOString()},
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
          autoStart: entrypoint !== null && !warnings.some((item) => item.blocking),
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
    await archive.close()
  }
}

function resolveSettings(options: InstallOptions): InstallSettings {
  if (typeof options?.dataRoot !== 'string' || options.dataRoot === '') {
    throw new InstallError('invalid-argument', 'dataRoot must name a directory.', {details: {argument: 'dataRoot'}})
  }
  const hostVersion = options.hostVersion ?? developmentHostVersion
  assertVersion(hostVersion)
  const protocol = options.protocol ?? defaultProtocolRange
  if (!Number.isSafeInteger(protocol.minimum) || !Number.isSafeInteger(protocol.maximum) || protocol.minimum < 1 || protocol.maximum < protocol.minimum) {
    throw new InstallError('invalid-argument', `The host protocol range ${protocol.minimum}-${protocol.maximum} is not one (integers, 1 <= minimum <= maximum).`, {
      details: {argument: 'protocol', value: protocol},
    })
  }
  const retain = options.retain ?? 0
  if (!Number.isSafeInteger(retain) || retain < 0) {
    throw new InstallError('invalid-argument', `retain must be a whole number of versions, not ${retain}.`, {details: {argument: 'retain', value: retain}})
  }
  if (options.expectId !== undefined) assertPluginId(options.expectId)
  return {
    dataRoot: path.resolve(options.dataRoot),
    hostRid: options.hostRid ?? currentHostRid(),
    host: {hostVersion, protocol: {minimum: protocol.minimum, maximum: protocol.maximum}},
    retain,
    activate: options.activate ?? true,
    limits: resolveLimits(options.limits),
  }
}

async function openArtifact(artifact: string, limits: ArchiveLimits): Promise<StrictArchive> {
  try {
    return await openArchive(artifact, {limits})
  } catch (error) {
    throw asInstallError(error)
  }
}

/**
 * Reads `manifest.json` from the archive and judges it at development level (DESIGN §8):
 * `unsupported-manifest-version` → `incompatible`; any other error → `manifest-invalid`; a manifest for
 * another id than expected → `id-mismatch`.
 */
async function judgeManifest(archive: StrictArchive, artifact: string, expectId: string | undefined): Promise<{manifest: Manifest; manifestBytes: Uint8Array}> {
  const entry = archive.get('manifest.json')
  if (entry === undefined) {
    throw new InstallError('manifest-invalid', `${artifact} has no manifest.json at its root.`, {details: {reason: 'manifest-missing', problems: []}})
  }
  const manifestBytes = await archive.readEntry(entry, archive.limits.maxManifestBytes)
  const {manifest, report} = readManifest(manifestBytes, {file: `${artifact}!manifest.json`, subjectKind: 'artifact', subjectPath: artifact})
  if (!report.valid || manifest === null) {
    const errors = report.problems.filter((problem) => problem.severity === 'error')
    const unsupported = errors.find((problem) => problem.code === 'unsupported-manifest-version')
    if (unsupported !== undefined) {
      const declared = manifestVersionOf(manifestBytes)
      throw new InstallError('incompatible', `${artifact}: ${unsupported.message}`, {
        details: {direction: typeof declared === 'number' && declared < 1 ? 'host-too-new' : 'host-too-old', member: 'manifestVersion', required: declared, host: 1},
      })
    }
    const first = errors[0]
    throw new InstallError('manifest-invalid', `${artifact} has an invalid manifest${first === undefined ? '' : `: ${first.code}: ${first.message}`} (${errors.length} error(s)).`, {
      details: {problems: report.problems},
    })
  }
  if (expectId !== undefined && manifest.id !== expectId) {
    throw new InstallError('id-mismatch', `${artifact} holds ${manifest.id}, not the expected ${expectId}.`, {details: {expected: expectId, actual: manifest.id}})
  }
  return {manifest, manifestBytes}
}

/** The declared `manifestVersion`, for the direction of an unsupported one. */
function manifestVersionOf(bytes: Uint8Array): unknown {
  try {
    return (JSON.parse(Buffer.from(bytes).toString('utf8')) as {manifestVersion?: unknown}).manifestVersion
  } catch {
    return undefined
  }
}

/**
 * The exhaustive `files[]` check (DESIGN §8): when present, every file must match and nothing else may be
 * present (`hash-mismatch`, every problem in `details.problems`); when absent, warning `no-file-digests`.
 */
function checkDeclaredFiles(manifest: Manifest, digests: ReadonlyMap<string, EntryDigest>): InstallWarning[] {
  if (manifest.files === undefined) {
    return [warning('no-file-digests', `${manifest.id} ${manifest.version} lists no file digests; its files were installed unchecked.`)]
  }
  const problems = checkFileDigests(manifest.files, digests)
  if (problems.length > 0) {
    const first = problems[0] as {message: string}
    throw new InstallError('hash-mismatch', `${manifest.id} ${manifest.version} does not match its files[]: ${first.message}${problems.length > 1 ? ` (and ${problems.length - 1} more)` : ''}`, {
      details: {problems},
    })
  }
  return []
}

/**
 * Reads an extracted file for the signature check (the certificate files), only if the archive held it,
 * and no larger than the manifest cap: certificates are small, and nothing here buffers a payload.
 */
async function readStagedFile(root: string, name: string, digests: ReadonlyMap<string, EntryDigest>, maxBytes: number): Promise<Uint8Array | null> {
  const digest = digests.get(name)
  if (digest === undefined || !isUnlistedEntry(name) || digest.size > maxBytes) return null
  return readFile(path.join(root, ...name.split('/')))
}
