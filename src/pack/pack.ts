import path from 'node:path'
import {lstat} from 'node:fs/promises'
import {isArchiveError} from '../archive/errors.js'
import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {cancellable, throwIfCancelled} from '../cancellation.js'
import {computeArtifactDigest, type ArtifactDigest} from '../artifact/digest.js'
import {SecretScanner, maxScannedBytes} from '../artifact/secrets.js'
import {judgeSourceTree, packedManifestRefusal, type JudgedSourceTree, type SourceFile} from '../artifact/source-tree.js'
import {unsignedManifestOf} from '../artifact/trailer.js'
import {classifyInput, suggestion, wrongInput, type InputKind} from '../artifact/input-kind.js'
import {InputFileError, readInputFile} from '../fs/input.js'
import {checkOutputFree, inputAsOutput, resolveOutputFile, withOutputs} from '../fs/output.js'
import {maxManifestBytes} from '../model/manifest-size.js'
import type {ArchiveLimits} from '../archive/types.js'
import {writeArchiveBody, type ArchiveBody, type WriterEntry, type WrittenEntry} from '../archive/writer.js'
import {workerModuleBeside} from '../archive/worker-pool.js'
import type {PackageContent, SecretFinding, SourceRefusal} from '../manifest/content.js'
import type {Diagnostic} from '../manifest/diagnostic.js'
import {levelIncludes, type Level} from '../manifest/levels.js'
import type {ValidationReport} from '../manifest/report.js'
import {validateManifest} from '../manifest/validate.js'
import {signingEntryNames} from '../model/signing-files.js'
import {entryNameOf} from '../model/entry-name.js'
import type {FileDigest, Manifest} from '../model/manifest.js'
import {PackError} from './errors.js'
import {hashSourceFiles, type HashProgress} from './hash.js'
import {deriveLanguages, languageSetsDiffer} from '../manifest/languages.js'
import {renderPackedManifest} from '../manifest/packed-manifest.js'
import {formatMiB, plural} from '../quantities.js'

/** Options of {@link pack}. */
export interface PackOptions {
  /**
   * Artifact path; an existing folder means `<id>-<version>.svcPlugin` inside it. Missing parent folders
   * are created. Default: `<cwd>/<id>-<version>.svcPlugin`.
   */
  output?: string
  /** Replace an existing output file. */
  force?: boolean
  /**
   * The level the packed artifact must pass (default `development`: package-level findings are
   * warnings). At `package` or `publication`, an artifact that would fail that level is refused
   * (`level-not-met`) and nothing is written.
   */
  level?: Level
  /**
   * Package paths (`/`-separated, relative to the source folder) that may be packed although a secret
   * was found in them. Without it, any secret refuses the pack (`secret-detected`).
   */
  allowSecrets?: readonly string[]
  /** Judge and list what would be packed; write nothing. */
  dryRun?: boolean
  /** Working directory for the default output path. */
  cwd?: string
  limits?: Partial<ArchiveLimits>
  /** Called as files are hashed and written. */
  onProgress?: (progress: PackProgress) => void
  /**
   * Cancels the pack: it rejects with an error named `AbortError` (code `cancelled`, the signal's reason as
   * its `cause`) and leaves neither the artifact, nor a temporary file, nor a folder it created.
   */
  signal?: AbortSignal
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
  /** Operating-system files left out (`.DS_Store`, `Thumbs.db`, `__MACOSX/`…); a folder ends in `/`. */
  leftOut: string[]
  /** Secrets found in files that `allowSecrets` let through (for a dry run: every secret found). */
  secrets: SecretFinding[]
  /**
   * Findings that refuse the pack. Always empty for a written artifact (the pack throws instead); a dry
   * run lists them here and writes nothing either way.
   */
  problems: Diagnostic[]
  warnings: Diagnostic[]
  /** The first folder created to hold the output (it did not exist), or null. */
  createdFolder: string | null
  dryRun: boolean
  /** The packed manifest's bytes (what `manifest.json` holds in the artifact). */
  manifest: Uint8Array
  /** Digests of every payload file, by path. */
  digests: ReadonlyMap<string, {size: number; sha256: string}>
  /** The canonical artifact digest P of the packed artifact: what a signature will cover. */
  artifactDigest: ArtifactDigest
}

/** Pack's encoding worker (`pack-worker.ts`): only the bytes of files that may hold a secret come back from it. */
const packWorker = workerModuleBeside(import.meta.url, 'pack-worker')

/**
 * Packs the plugin in `source` into a `.svcPlugin` artifact: validates the source manifest, collects
 * the files (leaving out operating-system files), reads each one once (its digest, its compressed
 * bytes and the look for secrets come from the same read), derives `languages`, writes a fresh
 * `files[]` and a deterministic archive with that manifest first. Refuses (PackError) a package that
 * holds a secret not in `allowSecrets` (`secret-detected`) and, with `level`, one that would fail that
 * level (`level-not-met`); an output it cannot write is an OutputError. On failure nothing is left on
 * disk; a dry run reads everything, writes nothing and returns what a pack would refuse in `problems`.
 * `signal` cancels it at any point before the artifact is in place (see {@link PackOptions.signal}).
 */
export async function pack(source: string, options: PackOptions = {}): Promise<PackResult> {
  const {signal} = options
  throwIfCancelled(signal)
  const limits = resolveLimits(options.limits)
  const {root, manifestFile, manifest, report: sourceReport} = await readPackSource(source)
  const fileName = `${manifest.id}-${manifest.version}.svcPlugin`
  const output = await resolveOutputFile(options.output ?? fileName, fileName, options.cwd)
  await refuseSourceFileAsOutput(root, manifestFile, output)
  if (!options.dryRun) await checkOutputFree(output, {replace: options.force === true, advice: 'pass --force to replace it'})

  const collected = await planPackFiles({root, manifest}, {exclude: [output], limits, signal})
  const scanner = new SecretScanner()
  const scanned = new Set<string>()
  const sourceOf = (file: SourceFile) => ({
    kind: 'file' as const,
    path: file.absolutePath,
    size: file.size,
    exactPath: true,
    ...(file.size <= maxScannedBytes ? {inspect: (bytes: Buffer) => void (scanner.add(file.name, bytes), scanned.add(file.name))} : {}),
  })
  const onHashed = (progress: HashProgress) => options.onProgress?.({phase: 'hash', ...progress})
  const judge = async (files: readonly WrittenEntry[]) => {
    // Empty files and files too large to read whole are judged by their names alone.
    for (const file of files) if (!scanned.has(file.name)) scanner.add(file.name, null)
    const secrets = await cancellable(scanner.findings(), signal)
    return judgePack({manifest, files, output, limits, sourceProblems: sourceReport.problems, manifestFile, root, leftOut: collected.leftOut, secrets, options})
  }

  if (options.dryRun) {
    const hashed = await hashSourceFiles(collected.files.map((file) => ({name: file.name, source: sourceOf(file)})), {onProgress: onHashed, signal})
    const judged = await judge(hashed.map((file) => ({name: file.name, size: file.size, sha256: file.sha256})))
    return {...judged.result, problems: judged.refusal === null ? [] : judged.refusal.problems, sha256: null, bytes: null, createdFolder: null, dryRun: true}
  }

  const entries = collected.files.map((file): WriterEntry => ({name: file.name, mode: file.mode, store: false, source: sourceOf(file)}))
  return withOutputs(async (outputs) => {
    const createdFolder = await outputs.prepare(output)
    let body: ArchiveBody | undefined
    try {
      body = await writeArchiveBody(output, entries, {
        limits,
        signal,
        encodeWorker: packWorker,
        onProgress: (progress) => {
          onHashed({files: progress.entries, totalFiles: progress.totalEntries, bytes: progress.bytes, totalBytes: progress.totalBytes})
          // Reading waits while the secret scan lags: the text it holds stays bounded.
          const room = scanner.room()
          return room === undefined ? undefined : cancellable(room, signal)
        },
      })
      const {result, refusal} = await judge(body.entries)
      if (refusal !== null) throw refusal.error
      const written = await body.finish(
        {name: manifestEntryName, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(result.manifest)}},
        {
          overwrite: options.force === true,
          onProgress: (progress) => options.onProgress?.({phase: 'write', files: progress.entries, totalFiles: progress.totalEntries, bytes: progress.bytes, totalBytes: progress.totalBytes}),
        },
      )
      return {...result, problems: [], sha256: written.sha256, bytes: written.bytes, createdFolder, dryRun: false}
    } catch (error) {
      throw packErrorOf(error)
    } finally {
      body?.discard()
    }
  })
}

/** A plugin source folder's manifest, read and judged at development level. */
export interface PackSource {
  /** The source folder, absolute. */
  root: string
  /** `<root>/manifest.json`. */
  manifestFile: string
  manifest: Manifest
  /** The source manifest's validation report (valid: its problems are warnings). */
  report: ValidationReport
}

/**
 * Reads `<source>/manifest.json` and judges it at development level, as the first step of a pack:
 * `manifest-invalid` (PackError) when it is not valid, `not-a-folder` when `source` is a file.
 */
export async function readPackSource(source: string): Promise<PackSource> {
  const root = path.resolve(source)
  const manifestFile = path.join(root, 'manifest.json')
  const sourceBytes = await readSourceManifest(manifestFile, source)
  const report = validateManifest(sourceBytes, {level: 'development', file: manifestFile, subjectKind: 'directory'})
  if (!report.valid) {
    throw new PackError('manifest-invalid', `${manifestFile} is not a valid manifest; run svc-plugin validate for every problem.`, {report})
  }
  return {root, manifestFile, manifest: JSON.parse(Buffer.from(sourceBytes).toString('utf8')) as Manifest, report}
}

/** A payload file of a pack: the source file and the mode its entry gets. */
export interface PlannedFile extends SourceFile {
  /** 0o755 for an entrypoint's executable, 0o644 for every other file. */
  mode: WriterEntry['mode']
}

/** What a pack puts into the artifact besides its manifest, judged before a byte of it is read. */
export interface PackFiles {
  /** Every payload file, in archive order, with its mode. */
  files: PlannedFile[]
  /** Operating-system files left out, as {@link JudgedSourceTree.leftOut}. */
  leftOut: string[]
}

/**
 * The one list of what pack packs from a source folder: the judged tree (`.svcpluginignore` applied,
 * `exclude` left out) with each entry's mode, or the folder's first refusal (PackError), the packed
 * manifest's size included. Pack and reproduce both take it from here.
 */
export async function planPackFiles(
  source: Pick<PackSource, 'root' | 'manifest'>,
  options: {exclude: readonly string[]; limits: ArchiveLimits; signal?: AbortSignal | undefined},
): Promise<PackFiles> {
  const {root, manifest} = source
  const collected = await judgeSourceTree(root, {exclude: options.exclude, limits: options.limits, signal: options.signal})
  // The folder's first refusal, in the order the judgement meets them; the packed manifest is measured before a byte is read.
  const refusal = collected.refusals[0] ?? packedManifestRefusal(manifest as unknown as Record<string, unknown>, collected.files, options.limits)
  if (refusal) throw packErrorOfRefusal(refusal)
  const executables = new Set(Object.values(manifest.entrypoints).map((entrypoint) => entryNameOf(entrypoint.executable)))
  return {files: collected.files.map((file) => ({...file, mode: executables.has(file.name) ? (0o755 as const) : (0o644 as const)})), leftOut: collected.leftOut}
}

/**
 * The manifest pack writes for payload files read with these digests: the source manifest with a fresh
 * `files[]` and `languages` derived from the resource names (`languages` given when already derived).
 */
export function packedManifestOf(manifest: Manifest, files: readonly {name: string; size: number; sha256: string}[], languages = deriveLanguages(files.map((file) => file.name))): Buffer {
  const listed: FileDigest[] = files.map((file) => ({path: file.name, sha256: file.sha256, size: file.size}))
  // Its size was judged before the files were read (packedManifestRefusal): every digest has one length.
  return Buffer.from(renderPackedManifest(manifest, {files: listed, ...(languages.length > 0 ? {languages} : {})}), 'utf8')
}

interface PackFacts {
  manifest: Manifest
  files: readonly WrittenEntry[]
  output: string
  limits: ArchiveLimits
  sourceProblems: readonly Diagnostic[]
  manifestFile: string
  root: string
  leftOut: string[]
  secrets: readonly SecretFinding[]
  options: PackOptions
}

type JudgedPack = Omit<PackResult, 'sha256' | 'bytes' | 'dryRun' | 'problems' | 'createdFolder'>

/**
 * Everything a pack reports but the artifact's own size and digest: the packed manifest (with
 * `files[]` from the digests of what was read and the derived `languages`), the warnings, and the
 * refusal when the package holds a secret that was not allowed or fails the level asked for.
 */
async function judgePack(facts: PackFacts): Promise<{result: JudgedPack; refusal: {error: PackError; problems: Diagnostic[]} | null}> {
  const {manifest, files, limits} = facts
  const warnings: Diagnostic[] = facts.sourceProblems.filter((problem) => problem.severity !== 'error')
  const languages = deriveLanguages(files.map((file) => file.name))
  const declared = Array.isArray(manifest.languages) ? manifest.languages : []
  if (languages.length > 0 && declared.length > 0 && languageSetsDiffer(languages, declared)) {
    warnings.push(packWarning('languages-recomputed', `languages ${JSON.stringify(declared)} were replaced by ${JSON.stringify(languages)}, derived from Localization/**/*.resx.`, '/languages'))
  }
  const manifestBytes = packedManifestOf(manifest, files, languages)
  const allowed = new Set((facts.options.allowSecrets ?? []).map(packagePathOf))
  const refused = facts.secrets.filter((secret) => !allowed.has(secret.path))
  const level = facts.options.level ?? 'development'
  const report = judgeArtifact(manifestBytes, files, facts.manifestFile, levelIncludes(level, 'publication') ? 'publication' : 'package', refused)
  const errors = report.problems.filter((problem) => problem.severity === 'error')
  const secretErrors = errors.filter((problem) => problem.code === 'secret-detected')
  const levelErrors = levelIncludes(level, 'package') ? errors.filter((problem) => problem.code !== 'secret-detected') : []
  // Below the level asked for, what the store would refuse is still worth a warning.
  for (const problem of report.problems) if (!secretErrors.includes(problem) && !levelErrors.includes(problem)) warnings.push({...problem, severity: 'warning'})
  warnings.push(...sizeWarnings(files, limits))
  if (isDebugBuild(facts.root, files)) {
    warnings.push(packWarning('source-looks-like-debug-build', 'This looks like a debug build (a bin/Debug/ folder). Pack the release build instead.', null))
  }
  const digests = new Map(files.map((file) => [file.name, {size: file.size, sha256: file.sha256}]))
  const result: JudgedPack = {
    path: facts.output,
    id: manifest.id,
    version: manifest.version,
    entries: files.length + 1,
    uncompressedBytes: files.reduce((sum, file) => sum + file.size, manifestBytes.length),
    files: files.map((file) => ({path: file.name, size: file.size})),
    leftOut: facts.leftOut,
    secrets: facts.options.dryRun === true ? [...facts.secrets] : facts.secrets.filter((secret) => allowed.has(secret.path)),
    warnings: dedupe(warnings),
    manifest: manifestBytes,
    digests,
    artifactDigest: computeArtifactDigest({unsignedManifest: unsignedManifestOf(manifestBytes), files: digests}),
  }
  if (secretErrors.length > 0) return {result, refusal: {error: secretRefusal(refused, report), problems: [...secretErrors, ...levelErrors]}}
  if (levelErrors.length > 0) return {result, refusal: {error: levelRefusal(level, levelErrors, report), problems: levelErrors}}
  return {result, refusal: null}
}

/**
 * The packed manifest judged at `level` (package or publication) against the packed files and the
 * secrets that were not allowed: the same rules `validate --artifact` and the store apply. Positions are
 * not computed: the packed manifest is ours, a diagnostic points into it by pointer.
 */
function judgeArtifact(manifestBytes: Uint8Array, files: readonly WrittenEntry[], manifestFile: string, level: Level, secrets: readonly SecretFinding[]): ValidationReport {
  const content: PackageContent = {kind: 'artifact', files: new Map(files.map((file) => [file.name, {size: file.size, sha256: file.sha256}])), secrets}
  return validateManifest(manifestBytes, {level, file: manifestFile, subjectKind: 'artifact', content, positions: false})
}

function secretRefusal(secrets: readonly SecretFinding[], report: ValidationReport): PackError {
  const lines = secrets.map((secret) => `  ${secret.path}${secret.line === null ? '' : ` (line ${secret.line})`}: ${secret.what}`)
  return new PackError(
    'secret-detected',
    `The package would ship ${secrets.length === 1 ? 'a secret' : `${secrets.length} secrets`}; nothing was written:\n${lines.join('\n')}\nRemove ${secrets.length === 1 ? 'it' : 'them'}, list ${secrets.length === 1 ? 'it' : 'them'} in .svcpluginignore, or, if ${secrets.length === 1 ? 'it is' : 'they are'} meant to ship, pass --allow-secret <path> for each.`,
    {details: {secrets: secrets.map((secret) => ({path: secret.path, kind: secret.kind, line: secret.line}))}, report},
  )
}

function levelRefusal(level: Level, errors: readonly Diagnostic[], report: ValidationReport): PackError {
  return new PackError('level-not-met', `The packed artifact would not pass ${level}-level validation (${errors.length} ${errors.length === 1 ? 'error' : 'errors'}); nothing was written.`, {
    details: {level, codes: [...new Set(errors.map((error) => error.code))]},
    report: {...report, problems: [...errors]},
  })
}

/**
 * A single file larger than this share of the entry limit (64 MiB of the default 512 MiB) gets a warning:
 * plugins rarely need one, and every install pays for it.
 */
const largeFileShare = 1 / 8
/** A package within this share of a limit (total size, number of entries) gets a warning. */
const nearLimitShare = 0.9

/** Warnings for large single files and for a package near the size or entry limits. */
function sizeWarnings(files: readonly WrittenEntry[], limits: ArchiveLimits): Diagnostic[] {
  const warnings: Diagnostic[] = []
  for (const file of files) {
    if (file.size > limits.maxEntryBytes * largeFileShare) {
      warnings.push(packWarning('large-file', `${file.name} is ${formatMiB(file.size)}; plugins rarely need a file this large. Leave it out (.svcpluginignore) or download it at run time if it is not needed to start.`, null))
    }
  }
  const total = files.reduce((sum, file) => sum + file.size, 0)
  if (total > limits.maxTotalBytes * nearLimitShare) {
    warnings.push(packWarning('package-near-limit', `The package holds ${formatMiB(total)}, near the ${formatMiB(limits.maxTotalBytes)} an artifact may unpack to.`, null))
  }
  const usableEntries = limits.maxEntries - 1 - signingEntryNames.length
  if (files.length > usableEntries * nearLimitShare) {
    warnings.push(packWarning('package-near-limit', `The package holds ${plural(files.length, 'file')}, near the ${usableEntries} an artifact may hold (with its manifest and room for signing).`, null))
  }
  return warnings
}

/** A path as the user wrote it (`./keys\\test.key`) as a package path (`keys/test.key`). */
function packagePathOf(file: string): string {
  return path.posix.normalize(file.replaceAll('\\', '/')).replace(/^(\.\/)+/, '')
}

const debugFolder = /(^|\/)bin\/Debug(\/|$)/i

/** True when the source folder is, or holds, a debug build's output (`…/bin/Debug/…`). */
function isDebugBuild(root: string, files: readonly WrittenEntry[]): boolean {
  return debugFolder.test(root.split(path.sep).join('/')) || files.some((file) => debugFolder.test(file.name))
}

/**
 * Refuses an output that is a source file of the tree it packs (its manifest, or a file that is not an
 * archive): even with `--force`, pack never writes over what it reads. An archive inside the tree, as an
 * earlier pack to the same output left it, is replaced: pack leaves its own output out of the package.
 */
async function refuseSourceFileAsOutput(root: string, manifestFile: string, output: string): Promise<void> {
  // The source manifest by any path (a bind mount, a hard link) is never the output.
  const [outputStats, manifestStats] = await Promise.all([lstat(output).catch(() => null), lstat(manifestFile).catch(() => null)])
  if (outputStats !== null && manifestStats !== null && outputStats.dev === manifestStats.dev && outputStats.ino === manifestStats.ino) {
    throw inputAsOutput(output, 'a file of the plugin being packed')
  }
  const inside = path.relative(root, output)
  if (inside === '' || inside.split(path.sep)[0] === '..' || path.isAbsolute(inside)) return
  const isFile = outputStats?.isFile() === true
  // A file that cannot be read is none pack would read either.
  const kind = isFile ? await classifyInput(output, output).catch(() => 'artifact' as const) : null
  if (output === manifestFile || (kind !== null && kind !== 'artifact')) throw inputAsOutput(output, 'a file of the plugin being packed')
}

/** The writer's refusals that are pack's own outcomes, as PackError; anything else unchanged. */
function packErrorOf(error: unknown): unknown {
  if (isArchiveError(error, 'source-changed')) {
    return new PackError('source-changed', `${error.message} Pack again once the build has finished writing.`, {cause: error, details: {...error.details, path: error.details.entry}})
  }
  return error
}

/**
 * The source folder's manifest.json. When there is none because `source` is not a folder (a manifest, an
 * artifact, another file), `not-a-folder` says what it is and what to pack instead.
 */
async function readSourceManifest(file: string, source: string): Promise<Uint8Array> {
  try {
    return (await readInputFile(file, {limit: maxManifestBytes + 1})).bytes
  } catch (error) {
    if (error instanceof InputFileError && error.code === 'file-not-found') {
      const found = await classifyInput(source, source).catch(() => 'folder' as const)
      if (found !== 'folder') throw wrongInput(source, found, 'folder', packAdvice(source, found))
      throw new PackError('file-not-found', `${file} does not exist: a plugin source folder holds manifest.json at its root.`, {cause: error, details: {path: file}})
    }
    throw error
  }
}

/** What to do with a manifest, an artifact or another file given to pack. */
function packAdvice(source: string, found: InputKind): string {
  const command = (words: string[], operand: string) => suggestion(words, operand) ?? `svc-plugin ${words.join(' ')}`
  if (found === 'manifest') return `Pack the folder that holds it: ${command(['pack'], path.dirname(source))}.`
  if (found === 'artifact') return `It is packed already: look inside it with ${command(['inspect'], source)}, or check it with ${command(['validate'], source)}.`
  return 'Pack the folder that holds manifest.json.'
}

/** A refusal of the source folder as pack's error. */
function packErrorOfRefusal(refusal: SourceRefusal): PackError {
  return new PackError(refusal.code, refusal.message, {details: refusal.details})
}

function packWarning(code: Diagnostic['code'], message: string, pointer: string | null): Diagnostic {
  return {code, severity: 'warning', message, pointer, line: null, column: null}
}

function dedupe(warnings: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>()
  return warnings.filter((warning) => {
    const key = `${warning.code} ${warning.pointer} ${warning.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
