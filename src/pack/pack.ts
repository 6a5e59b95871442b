import path from 'node:path'
import {ArchiveError, isArchiveError} from '../archive/errors.js'
import {SizeTally, checkEntryCount, manifestEntryName, resolveLimits} from '../archive/limits.js'
import {computeArtifactDigest, type ArtifactDigest} from '../artifact/digest.js'
import {unsignedManifestOf} from '../artifact/trailer.js'
import {pathExists} from '../fs/durable.js'
import {InputFileError, readInputFile} from '../fs/input.js'
import {maxManifestBytes} from '../model/manifest-size.js'
import type {ArchiveLimits} from '../archive/types.js'
import {writeArchiveBody, type ArchiveBody, type WrittenEntry} from '../archive/writer.js'
import type {PackageContent} from '../manifest/content.js'
import type {Diagnostic} from '../manifest/diagnostic.js'
import {validateManifest} from '../manifest/validate.js'
import {entryNameOf} from '../model/entry-name.js'
import type {FileDigest, Manifest} from '../model/manifest.js'
import {collectSourceFiles, type SourceFile} from './collect.js'
import {PackError} from './errors.js'
import {hashSourceFiles, type HashProgress} from './hash.js'
import {deriveLanguages, languageSetsDiffer} from './languages.js'
import {renderPackedManifest} from '../manifest/packed-manifest.js'

/** Options of {@link pack}. */
export interface PackOptions {
  /** Artifact path; default `<cwd>/<id>-<version>.svcPlugin`. */
  output?: string
  /** Replace an existing output file. */
  force?: boolean
  /** Judge and list what would be packed; write nothing. */
  dryRun?: boolean
  /** Working directory for the default output path. */
  cwd?: string
  limits?: Partial<ArchiveLimits>
  /** Called as files are hashed and written. */
  onProgress?: (progress: PackProgress) => void
}

/**
 * Progress of a pack, by phase: `hash` while each file is read (once: hashed and compressed into
 * place), `write` while the artifact is put together behind its manifest.
 */
export interface PackProgress extends HashProgress {
  phase: 'hash' | 'write'
}

/** What `pack` produced (or, for a dry run, would produce). */
export interface PackResult {
  /** The artifact path (for a dry run: where it would be written). */
  path: string
  id: string
  version: string
  /** Archive entries, `manifest.json` included. */
  entries: number
  /** Uncompressed bytes of every entry, `manifest.json` included. */
  uncompressedBytes: number
  /** SHA-256 of the artifact file (hex); `null` for a dry run. */
  sha256: string | null
  /** Size of the artifact file; `null` for a dry run. */
  bytes: number | null
  /** Every payload file, sorted as in the archive. */
  files: {path: string; size: number}[]
  warnings: Diagnostic[]
  dryRun: boolean
  /** The packed manifest's bytes (what `manifest.json` holds in the artifact). */
  manifest: Uint8Array
  /** Digests of every payload file, by path. */
  digests: ReadonlyMap<string, {size: number; sha256: string}>
  /** The canonical artifact digest P of the packed artifact: what a signature will cover. */
  artifactDigest: ArtifactDigest
}

/**
 * Packs the plugin in `source` into a `.svcPlugin` artifact: validates the source
 * manifest, collects the files and reads each one once (its digest and its compressed bytes come
 * from the same read), derives `languages`, writes a fresh `files[]` and a deterministic archive
 * with that manifest first. Throws {@link PackError} (or the archive writer's ArchiveError for an
 * output that cannot be written); on failure nothing is left on disk.
 */
export async function pack(source: string, options: PackOptions = {}): Promise<PackResult> {
  const root = path.resolve(source)
  const limits = resolveLimits(options.limits)
  const manifestFile = path.join(root, 'manifest.json')
  const sourceBytes = await readSourceManifest(manifestFile)

  const sourceReport = validateManifest(sourceBytes, {level: 'development', file: manifestFile, subjectKind: 'directory'})
  if (!sourceReport.valid) {
    throw new PackError('manifest-invalid', `${manifestFile} is not a valid manifest; run svc-plugin validate for every problem.`, {report: sourceReport})
  }
  const manifest = JSON.parse(Buffer.from(sourceBytes).toString('utf8')) as Manifest
  const output = path.resolve(options.cwd ?? process.cwd(), options.output ?? `${manifest.id}-${manifest.version}.svcPlugin`)
  if (!options.dryRun && !options.force && (await pathExists(output))) throw outputExists(output)

  const collected = await collectSourceFiles(root, {exclude: [output]})
  enforceLimits(collected, limits)
  const onHashed = (progress: HashProgress) => options.onProgress?.({phase: 'hash', ...progress})
  if (options.dryRun) {
    const hashed = await hashSourceFiles(collected, {onProgress: onHashed})
    return {...describePack(manifest, hashed.map((file) => ({name: file.name, size: file.size, sha256: file.sha256})), output, limits, sourceReport.problems, manifestFile), sha256: null, bytes: null, dryRun: true}
  }

  const executables = new Set(Object.values(manifest.entrypoints).map((entrypoint) => entryNameOf(entrypoint.executable)))
  let body: ArchiveBody | undefined
  try {
    body = await writeArchiveBody(
      output,
      collected.map((file) => ({name: file.name, mode: executables.has(file.name) ? 0o755 : 0o644, store: false, source: {kind: 'file', path: file.absolutePath, size: file.size}})),
      {
        limits,
        onProgress: (progress) => onHashed({files: progress.entries, totalFiles: progress.totalEntries, bytes: progress.bytes, totalBytes: progress.totalBytes}),
      },
    )
    const result = describePack(manifest, body.entries, output, limits, sourceReport.problems, manifestFile)
    const written = await body.finish(
      {name: manifestEntryName, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(result.manifest)}},
      {
        overwrite: options.force === true,
        onProgress: (progress) => options.onProgress?.({phase: 'write', files: progress.entries, totalFiles: progress.totalEntries, bytes: progress.bytes, totalBytes: progress.totalBytes}),
      },
    )
    return {...result, sha256: written.sha256, bytes: written.bytes, dryRun: false}
  } catch (error) {
    throw packErrorOf(error, output)
  } finally {
    body?.discard()
  }
}

/**
 * Everything a pack reports but the artifact's own size and digest: the packed manifest (with
 * `files[]` from the digests of what was read and the derived `languages`) and the warnings.
 * Refuses a packed manifest over the limit.
 */
function describePack(manifest: Manifest, files: readonly WrittenEntry[], output: string, limits: ArchiveLimits, sourceProblems: readonly Diagnostic[], manifestFile: string) {
  const warnings: Diagnostic[] = sourceProblems.filter((problem) => problem.severity !== 'error')
  const languages = deriveLanguages(files.map((file) => file.name))
  const declared = Array.isArray(manifest.languages) ? manifest.languages : []
  if (languages.length > 0 && declared.length > 0 && languageSetsDiffer(languages, declared)) {
    warnings.push(packWarning('languages-recomputed', `languages ${JSON.stringify(declared)} were replaced by ${JSON.stringify(languages)}, derived from Localization/**/*.resx.`, '/languages'))
  }
  const listed: FileDigest[] = files.map((file) => ({path: file.name, sha256: file.sha256, size: file.size}))
  const manifestText = renderPackedManifest(manifest, {files: listed, ...(languages.length > 0 ? {languages} : {})})
  const manifestBytes = Buffer.from(manifestText, 'utf8')
  if (manifestBytes.length > limits.maxManifestBytes) {
    throw new PackError('limit-exceeded', `The packed manifest.json would be ${manifestBytes.length} bytes, over the ${limits.maxManifestBytes}-byte limit.`, {
      details: {limit: 'maxManifestBytes', value: manifestBytes.length},
    })
  }
  warnings.push(...packageWarnings(manifestBytes, files, manifestFile))
  if (files.some((file) => /(^|\/)bin\/Debug\//i.test(file.name))) {
    warnings.push(packWarning('source-looks-like-debug-build', 'The tree holds bin/Debug/ files: this looks like a debug build. Pack a release build.', null))
  }
  const digests = new Map(files.map((file) => [file.name, {size: file.size, sha256: file.sha256}]))
  return {
    path: output,
    id: manifest.id,
    version: manifest.version,
    entries: files.length + 1,
    uncompressedBytes: files.reduce((sum, file) => sum + file.size, manifestBytes.length),
    files: files.map((file) => ({path: file.name, size: file.size})),
    warnings: dedupe(warnings),
    manifest: manifestBytes,
    digests,
    artifactDigest: computeArtifactDigest({unsignedManifest: unsignedManifestOf(manifestBytes), files: digests}),
  }
}

function outputExists(output: string, cause?: unknown): PackError {
  return new PackError('output-exists', `${output} already exists; pass --force to replace it.`, {cause, details: {path: output}})
}

/** The writer's refusals that are pack's own outcomes, as PackError; anything else unchanged. */
function packErrorOf(error: unknown, output: string): unknown {
  if (isArchiveError(error, 'output-exists')) return outputExists(output, error)
  if (isArchiveError(error, 'source-changed')) {
    return new PackError('source-changed', `${error.message} Pack again once the build has finished writing.`, {cause: error, details: {...error.details, path: error.details.entry}})
  }
  return error
}

async function readSourceManifest(file: string): Promise<Uint8Array> {
  try {
    return (await readInputFile(file, {limit: maxManifestBytes + 1})).bytes
  } catch (error) {
    if (error instanceof InputFileError && error.code === 'file-not-found') {
      throw new PackError('file-not-found', `${file} does not exist: a plugin source folder holds manifest.json at its root.`, {cause: error, details: {path: file}})
    }
    throw error
  }
}

/** Which limit each archive reason names, for a pack caller. */
const limitOfReason: Readonly<Record<string, keyof ArchiveLimits>> = {
  'too-many-entries': 'maxEntries',
  'entry-too-large': 'maxEntryBytes',
  'total-too-large': 'maxTotalBytes',
}

/**
 * Refuses a tree the readers would refuse before a byte is read, with the archive
 * layer's own checks, reported as `PackError` naming the limit and the path.
 */
function enforceLimits(files: readonly SourceFile[], limits: ArchiveLimits): void {
  try {
    checkEntryCount(limits, files.length + 1)
    const tally = new SizeTally(limits)
    for (const file of files) tally.add(file.name, file.size)
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error
    const {reason, entry, actual} = error.details as {reason: string; entry?: string; actual?: number}
    throw new PackError('limit-exceeded', error.message, {
      cause: error,
      details: {limit: limitOfReason[reason] ?? reason, ...(entry === undefined ? {} : {path: entry}), value: actual},
    })
  }
}

/**
 * Package-level findings on the packed manifest against the packed files: in `pack` they warn
 * (the artifact is still written) so a build script sees them before `validate --artifact` does.
 */
function packageWarnings(manifestBytes: Uint8Array, files: readonly WrittenEntry[], manifestFile: string): Diagnostic[] {
  const content: PackageContent = {kind: 'artifact', files: new Map(files.map((file) => [file.name, {size: file.size, sha256: file.sha256}]))}
  const report = validateManifest(manifestBytes, {level: 'package', file: manifestFile, subjectKind: 'artifact', content})
  return report.problems.map((problem) => ({...problem, severity: 'warning' as const, line: null, column: null}))
}

function packWarning(code: Diagnostic['code'], message: string, pointer: string | null): Diagnostic {
  return {code, severity: 'warning', message, pointer, line: null, column: null}
}

function dedupe(warnings: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>()
  return warnings.filter((warning) => {
    const key = `${warning.code} ${warning.pointer}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
