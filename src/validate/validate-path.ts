import {lstat} from 'node:fs/promises'
import path from 'node:path'
import {resolveLimits} from '../archive/limits.js'
import type {ArchiveLimits} from '../archive/types.js'
import {readFolderContent} from '../artifact/folder.js'
import {classifyInput, suggestion, wrongInput, type ExpectedInput} from '../artifact/input-kind.js'
import {packedManifestRefusal} from '../artifact/source-tree.js'
import {validateArtifact} from '../artifact/validate-artifact.js'
import {inputError, readInputFile} from '../fs/input.js'
import type {PackageContent} from '../manifest/content.js'
import {supportedManifestVersion, validateDocument} from '../manifest/engine.js'
import {ValidationError} from '../manifest/errors.js'
import {levelIncludes, type Level} from '../manifest/levels.js'
import type {SubjectKind, ValidationReport} from '../manifest/report.js'
import type {HostContext} from '../manifest/host.js'
import {declaredEntrypoints, member, normalizePackagePath} from '../manifest/rules/values.js'
import {defaultProtocolRange, developmentHostVersion, type ProtocolRange} from '../model/compatibility.js'
import {checkExecutablePath} from '../model/paths.js'
import {hostRid} from '../model/rid.js'
import {readManifestDocument} from '../manifest/validate.js'
import {maxManifestBytes} from '../model/manifest-size.js'

/** What to validate: at most one selector; none means `./manifest.json`. */
export interface ValidationSubject {
  /** A manifest.json file. */
  manifest?: string
  /** A plugin folder holding manifest.json at its root. */
  directory?: string
  /** A `.svcPlugin` artifact. */
  artifact?: string
  /** A path of any of these kinds, detected from what is on disk. */
  path?: string
}

/** Options of `validatePath`. */
export interface ValidatePathOptions {
  /** Default: `development` for a manifest or a directory, `package` for an artifact. */
  level?: Level
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /**
   * The host to judge a manifest file or a folder for: its runtime identifier (default this machine's),
   * whose entrypoint must be on disk (`entrypoint-missing`), and, when given, its version and protocol
   * range, against which the plugin's `compatibility` is judged (`incompatible`) as an install would.
   */
  host?: {rid?: string; hostVersion?: string; protocol?: ProtocolRange}
  /** The archive limits an artifact is judged by, and a folder's future artifact (default: the readers' limits). */
  limits?: Partial<ArchiveLimits>
  /** Cancels reading an artifact or a folder's content: it rejects with an error named `AbortError` (code `cancelled`). */
  signal?: AbortSignal | undefined
}

/**
 * Validates a manifest file, a plugin directory or an artifact from disk. A directory, or a manifest's
 * folder, is read as package content only at package level and up, with digests only when the manifest
 * declares `files`. Throws `ValidationError` when there is nothing to judge: `too-many-selectors`,
 * `file-not-found`, `unreadable` (a FIFO or device, a file that cannot be read); a path of another kind than
 * its flag takes (told by its content) throws `not-a-manifest`, `not-a-folder` or `not-an-artifact`, saying
 * which flag takes it; an artifact that is missing or not a ZIP throws its `ArchiveError`.
 */
export async function validatePath(subject: ValidationSubject = {}, options: ValidatePathOptions = {}): Promise<ValidationReport> {
  const cwd = options.cwd ?? process.cwd()
  const selected = (['manifest', 'directory', 'artifact', 'path'] as const).filter((key) => subject[key] !== undefined)
  if (selected.length > 1) {
    throw new ValidationError('too-many-selectors', `Choose one subject to validate; got ${selected.map((key) => (key === 'path' ? 'a PATH argument' : `--${key}`)).join(' and ')}.`, {
      details: {selectors: selected},
    })
  }
  const selector = selected[0] ?? 'manifest'
  const given = (selected[0] === undefined ? 'manifest.json' : subject[selector]) as string
  const absolute = path.resolve(cwd, given)
  const kind = selector === 'path' ? await subjectKind(absolute, given) : await requireKind(selector, absolute, given)
  if (kind === 'artifact') return validateArtifact(absolute, {...(options.level ? {level: options.level} : {}), label: given, signal: options.signal, ...(options.limits ? {limits: options.limits} : {})})
  const level = options.level ?? 'development'
  const root = kind === 'directory' ? absolute : path.dirname(absolute)
  const file = kind === 'directory' ? path.join(given, 'manifest.json') : given
  const read = readManifestDocument(await readManifestBytes(path.resolve(cwd, file), file))
  let content: PackageContent | undefined
  let host: HostContext | undefined
  if (read.ok && member(read.value, 'manifestVersion') === supportedManifestVersion) {
    if (levelIncludes(level, 'package')) content = await readPackage(root, read.value, {digests: Array.isArray(member(read.value, 'files')), limits: options.limits, signal: options.signal})
    host = {
      rid: options.host?.rid ?? hostRid(),
      ...(options.host?.hostVersion === undefined && options.host?.protocol === undefined
        ? {}
        : {compatibility: {hostVersion: options.host.hostVersion ?? developmentHostVersion, protocol: options.host.protocol ?? defaultProtocolRange}}),
      existingExecutables: await existingExecutables(root, read.value),
    }
  }
  return validateDocument(read, {level, file, subjectKind: kind satisfies SubjectKind, subjectPath: given, content, host})
}

/** A PATH is judged as what its content is: a folder, an artifact (a ZIP file, or any file named `*.svcPlugin`), else a manifest. */
async function subjectKind(absolute: string, given: string): Promise<'manifest' | 'directory' | 'artifact'> {
  const found = await classifyInput(absolute, given).catch((error: unknown) => fail(error, given))
  if (found === 'folder') return 'directory'
  return found === 'artifact' || given.toLowerCase().endsWith('.svcplugin') ? 'artifact' : 'manifest'
}

/** The flags that name a subject of one kind, and the kind each takes. */
const flagOfKind = {manifest: '--manifest', directory: '--directory', artifact: '--artifact'} as const
const kindOfFlag = {manifest: 'manifest', directory: 'folder', artifact: 'artifact'} as const satisfies Record<keyof typeof flagOfKind, ExpectedInput>

/**
 * The kind `selector` takes, once the path is known to be one: a path of another kind (told by its content)
 * is refused, saying which flag takes it. A path that cannot be classified is left to the reader of its
 * kind, which says why.
 */
async function requireKind(selector: keyof typeof flagOfKind, absolute: string, given: string): Promise<'manifest' | 'directory' | 'artifact'> {
  const found = await classifyInput(absolute, given).catch(() => null)
  const expected = kindOfFlag[selector]
  if (found === null || found === expected || (found === 'file' && expected !== 'folder')) return selector
  const asPath = suggestion(['validate'], given)
  const take = found === 'folder' ? 'directory' : found === 'artifact' ? 'artifact' : 'manifest'
  const advice = found === 'file' ? 'Pass the folder that holds manifest.json.' : `Pass it with ${flagOfKind[take]}${asPath === null ? '' : `, or as PATH, which is told apart by its content: ${asPath}`}.`
  throw wrongInput(given, found, expected, advice)
}

/**
 * A folder's package content judged as pack judges it: its files, their secrets, and every refusal pack would
 * make of it, the size of the manifest it would pack last (as pack measures it, after the entries).
 */
async function readPackage(root: string, manifest: Record<string, unknown>, options: {digests: boolean; limits: Partial<ArchiveLimits> | undefined; signal: AbortSignal | undefined}): Promise<PackageContent> {
  const content = await readFolderContent(root, {digests: options.digests, secrets: true, signal: options.signal, ...(options.limits ? {limits: options.limits} : {})})
  const packed = packedManifestRefusal(manifest, [...content.files].map(([name, file]) => ({name, size: file.size})), resolveLimits(options.limits))
  return packed === null ? content : {...content, refusals: [...(content.refusals ?? []), packed]}
}

/** The declared entrypoint executables that are regular files beside the manifest, as package paths. */
async function existingExecutables(root: string, manifest: Record<string, unknown>): Promise<Set<string>> {
  const existing = new Set<string>()
  for (const {executable} of declaredEntrypoints(manifest)) {
    if (executable === null || checkExecutablePath(executable) !== null) continue
    const file = normalizePackagePath(executable)
    const stats = await lstat(path.join(root, ...file.split('/'))).catch(() => null)
    if (stats?.isFile() === true) existing.add(file)
  }
  return existing
}

/** The manifest's bytes, at most one byte past the 8 MiB limit: enough for the reader to refuse it. */
async function readManifestBytes(absolute: string, given: string): Promise<Uint8Array> {
  try {
    return (await readInputFile(absolute, {limit: maxManifestBytes + 1})).bytes
  } catch (error) {
    fail(error, given)
  }
}

function fail(error: unknown, given: string): never {
  const input = inputError(given, error)
  throw new ValidationError(input.code === 'file-not-found' ? 'file-not-found' : 'unreadable', input.message, {cause: error, details: {...input.details, path: given}})
}
