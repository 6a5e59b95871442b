import {ArchiveError} from '../archive/errors.js'
import {openArchive} from '../archive/reader.js'
import type {ArchiveLimits, StrictArchive} from '../archive/types.js'
import type {PackageContent} from '../manifest/content.js'
import type {Diagnostic} from '../manifest/diagnostic.js'
import {validateManifest} from '../manifest/validate.js'
import type {Level} from '../manifest/levels.js'
import type {ValidationReport} from '../manifest/report.js'

/** Archive codes that mean there is no artifact to judge: thrown, so the CLI exits 3. */
const unreadableArchiveCodes = new Set(['not-an-artifact', 'file-not-found', 'unreadable'])

/**
 * Validates an artifact (DESIGN §4.1, implied level `package`): the archive is opened by the
 * strict reader and every entry streamed once (CRC, sizes and SHA-256), then the manifest is
 * judged against the archive's real entries — declared `files[]` against the bytes,
 * `undeclared-file`, entrypoints, icon and layout. A §5 violation is one diagnostic carrying the
 * archive's code. Throws the `ArchiveError` when the file is missing or not a ZIP at all.
 */
export async function validateArtifact(file: string, options: {level?: Level; limits?: Partial<ArchiveLimits>; label?: string} = {}): Promise<ValidationReport> {
  const label = options.label ?? file
  const level = options.level ?? 'package'
  const manifestLabel = `${label}!manifest.json`
  let archive: StrictArchive | undefined
  try {
    archive = await openArchive(file, options.limits ? {limits: options.limits} : {})
    const entry = archive.get('manifest.json')
    if (!entry) return archiveReport(label, level, problem('manifest-missing', `${label} has no manifest.json at its root; pack the plugin with svc-plugin pack.`))
    const manifest = await archive.readEntry(entry, archive.limits.maxManifestBytes)
    const digests = await archive.digestEntries()
    digests.delete('manifest.json')
    const content: PackageContent = {kind: 'artifact', files: digests}
    return validateManifest(manifest, {level, file: manifestLabel, subjectKind: 'artifact', subjectPath: label, content})
  } catch (error) {
    if (!(error instanceof ArchiveError) || unreadableArchiveCodes.has(error.code)) throw error
    return archiveReport(label, level, problem(error.code as Diagnostic['code'], error.message))
  } finally {
    await archive?.close()
  }
}

function problem(code: Diagnostic['code'], message: string): Diagnostic {
  return {code, severity: 'error', message, pointer: null, line: null, column: null}
}

/** A report for an artifact whose manifest could not be reached. */
function archiveReport(label: string, level: Level, diagnostic: Diagnostic): ValidationReport {
  return {valid: false, pluginId: null, version: null, level, file: `${label}!manifest.json`, subject: {kind: 'artifact', path: label}, problems: [diagnostic]}
}
