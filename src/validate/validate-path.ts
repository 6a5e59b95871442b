import {lstat, stat} from 'node:fs/promises'
import path from 'node:path'
import {ArchiveError} from '../archive/errors.js'
import {resolveLimits} from '../archive/limits.js'
import type {ArchiveLimits} from '../archive/types.js'
import {readFolderContent} from '../artifact/folder.js'
import {packedManifestRefusal} from '../artifact/source-tree.js'
import {validateArtifact} from '../artifact/validate-artifact.js'
import {InputFileError, inputError, readInputFile} from '../fs/input.js'
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

const zipSignatures = [
  [0x50, 0x4b, 0x03, 0x04],
  [0x50, 0x4b, 0x05, 0x06],
]

/**
 * Validates a manifest file, a plugin directory or an artifact from disk. A directory, or a manifest's
 * folder, is read as package content only at package level and up, with digests only when the manifest
 * declares `files`. Throws `ValidationError` when there is nothing to judge: `too-many-selectors`,
 * `file-not-found`, `unreadable` (a directory where a file belongs, a FIFO or device, a file that cannot be
 * read); an artifact that is missing or not a ZIP throws its `ArchiveError`.
 */
export async function validatePath(subject: ValidationSubject = {}, options: ValidatePathOptions = {}): Promise<ValidationReport> {
  const cwd = options.cwd ?? process.cwd()
  const selected = (['manifest', 'directory', 'artifact', 'path'] as const).filter((key) => subject[key] !== undefined)
  if (selected.length > 1) {
    throw new ValidationError('too-many-selectors', `Choose one subject to validate; got ${selected.map((key) => (key === 'path' ? 'a PATH argument' : `--${key}`)).join(' and ')}.`, {
      details: {selectors: selected},
    })
  }
  const kind = selected[0] === undefined ? 'manifest' : selected[0] === 'path' ? await detectKind(path.resolve(cwd, subject.path as string), subject.path as string) : selected[0]
  const given = (selected[0] === undefined ? 'manifest.json' : subject[selected[0]]) as string
  if (kind === 'artifact') {
    return validateArtifact(path.resolve(cwd, given), {...(options.level ? {level: options.level} : {}), label: given, signal: options.signal, ...(options.limits ? {limits: options.limits} : {})}).catch(async (error: unknown) => {
      throw selected[0] === 'artifact' ? await withManifestHint(error, path.resolve(cwd, given), given) : error
    })
  }
  const level = options.level ?? 'development'
  const root = kind === 'directory' ? path.resolve(cwd, given) : path.dirname(path.resolve(cwd, given))
  if (kind === 'directory') await requireDirectory(root, given)
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

/**
 * A folder's package content judged as pack judges it: its files, their secrets, and every refusal pack would
 * make of it, the size of the manifest it would pack last (as pack measures it, after the entries).
 */
async function readPackage(root: string, manifest: Record<string, unknown>, options: {digests: boolean; limits: Partial<ArchiveLimits> | undefined; signal: AbortSignal | undefined}): Promise<PackageContent> {
  const content = await readFolderContent(root, {digests: options.digests, secrets: true, signal: options.signal, ...(options.limits ? {limits: options.limits} : {})})
  const packed = packedManifestRefusal(manifest, [...content.files].map(([name, file]) => ({name, size: file.size})), resolveLimits(options.limits))
  return packed === null ? content : {...content, refusals: [...(content.refusals ?? []), packed]}
}

/** For `--artifact` naming a JSON file: the reader's refusal, with the hint that `--manifest` was meant. */
async function withManifestHint(error: unknown, absolute: string, given: string): Promise<unknown> {
  if (!(error instanceof ArchiveError) || error.code !== 'not-an-artifact' || error.details.reason !== 'no-end-record') return error
  const head = await readInputFile(absolute, {limit: 64}).then(({bytes}) => bytes.toString('utf8').trimStart(), () => '')
  if (!head.startsWith('{') && !given.toLowerCase().endsWith('.json')) return error
  return new ArchiveError(error.code, `${error.message} It looks like a manifest: did you mean --manifest ${given}?`, {...error.details}, {cause: error})
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

/** A positional path is a directory, an artifact (by extension or ZIP signature) or a manifest file. */
async function detectKind(absolute: string, given: string): Promise<'manifest' | 'directory' | 'artifact'> {
  const stats = await stat(absolute).catch((error: unknown) => fail(error, given))
  if (stats.isDirectory()) return 'directory'
  if (given.toLowerCase().endsWith('.svcplugin')) return 'artifact'
  const {bytes: head} = await readInputFile(absolute, {limit: 4}).catch((error: unknown) => fail(error, given))
  return zipSignatures.some((signature) => signature.every((byte, i) => head[i] === byte)) ? 'artifact' : 'manifest'
}

async function requireDirectory(absolute: string, given: string): Promise<void> {
  const stats = await stat(absolute).catch((error: unknown) => fail(error, given))
  if (!stats.isDirectory()) throw new ValidationError('unreadable', `${given} is not a directory; pass the folder that holds manifest.json.`, {details: {path: given}})
}

/** The manifest's bytes, at most one byte past the 8 MiB limit: enough for the reader to refuse it. */
async function readManifestBytes(absolute: string, given: string): Promise<Uint8Array> {
  try {
    return (await readInputFile(absolute, {limit: maxManifestBytes + 1})).bytes
  } catch (error) {
    if (error instanceof InputFileError && error.details.type === 'directory') {
      throw new ValidationError('unreadable', `${given} is a directory; pass the manifest.json file inside it, or the folder as --directory.`, {cause: error, details: {path: given}})
    }
    fail(error, given)
  }
}

function fail(error: unknown, given: string): never {
  const input = inputError(given, error)
  throw new ValidationError(input.code === 'file-not-found' ? 'file-not-found' : 'unreadable', input.message, {cause: error, details: {...input.details, path: given}})
}
