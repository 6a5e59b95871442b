import {ArchiveError} from '../archive/errors.js'
import {missingManifestAdvice} from '../archive/foreign.js'
import type {ArchiveLimits} from '../archive/types.js'
import type {Diagnostic, DiagnosticCode} from '../manifest/diagnostic.js'
import {validateDocument} from '../manifest/engine.js'
import type {Level} from '../manifest/levels.js'
import type {ValidationReport} from '../manifest/report.js'
import type {ArtifactContents} from './contents.js'
import {withArtifact} from './open.js'

/** Archive codes that mean there is no artifact to judge: thrown, so the command line exits 3. */
const unreadableArchiveCodes: ReadonlySet<string> = new Set(['not-an-artifact', 'file-not-found', 'unreadable'])

/** Options of {@link validateArtifact}. */
export interface ValidateArtifactOptions {
  /** Default `package`: an artifact is a package. */
  level?: Level
  limits?: Partial<ArchiveLimits>
  /** How reports name the artifact (default: its path). */
  label?: string
  /** Cancels the validation: it rejects with an error named `AbortError` (code `cancelled`) instead of giving a report. */
  signal?: AbortSignal | undefined
}

/**
 * Validates an artifact (implied level `package`): the archive is opened by the strict reader and every
 * entry read once, then the manifest is judged against the real entries — declared `files[]` against the
 * bytes, `undeclared-file`, entrypoints, icon and layout. A refusal of the strict reader is one diagnostic
 * carrying the archive's code. Throws the `ArchiveError` when the file is missing or not a ZIP at all.
 */
export async function validateArtifact(file: string, options: ValidateArtifactOptions = {}): Promise<ValidationReport> {
  const label = options.label ?? file
  const level = options.level ?? 'package'
  try {
    return await withArtifact(file, {limits: options.limits, signal: options.signal}, async (artifact) => judgeContents(await artifact.contents({secrets: true}), {label, level}))
  } catch (error) {
    if (!(error instanceof ArchiveError) || unreadableArchiveCodes.has(error.code)) throw error
    return artifactReport(label, level, archiveDiagnostic(error.code as DiagnosticCode, error.message))
  }
}

/** The validation report of an artifact's contents: what `validate --artifact` and the store judge. */
export function judgeContents(contents: ArtifactContents, options: {label: string; level: Level}): ValidationReport {
  const {label, level} = options
  if (contents.manifest === null) {
    return artifactReport(label, level, archiveDiagnostic('manifest-missing', `${label} has no manifest.json at its root.${missingManifestAdvice(contents.files.keys()) || ' Pack the plugin with svc-plugin pack.'}`))
  }
  return validateDocument(contents.manifest.document, {
    level,
    file: `${label}!manifest.json`,
    subjectKind: 'artifact',
    subjectPath: label,
    content: {kind: 'artifact', files: contents.files, ...(contents.secrets === undefined ? {} : {secrets: contents.secrets})},
  })
}

function archiveDiagnostic(code: DiagnosticCode, message: string): Diagnostic {
  return {code, severity: 'error', message, pointer: null, line: null, column: null}
}

/** A report for an artifact whose manifest could not be reached. */
function artifactReport(label: string, level: Level, diagnostic: Diagnostic): ValidationReport {
  return {valid: false, pluginId: null, version: null, level, file: `${label}!manifest.json`, subject: {kind: 'artifact', path: label}, problems: [diagnostic]}
}
