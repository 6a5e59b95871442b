import {open, stat} from 'node:fs/promises'
import path from 'node:path'
import {readDirectoryContent} from './content.js'
import type {PackageContent} from './content.js'
import {supportedManifestVersion, validateDocument} from './engine.js'
import type {ValidateManifestOptions} from './engine.js'
import {ValidationError} from './errors.js'
import {maxManifestBytes, readJsonDocument} from '../json/strict-json.js'
import {levelIncludes} from './levels.js'
import type {Level} from './levels.js'
import type {SubjectKind, ValidationReport} from './report.js'
import {member} from './rules/values.js'

export type {ValidateManifestOptions} from './engine.js'

const encoder = new TextEncoder()

/**
 * Validates manifest.json bytes (or text) at a level and returns every problem in one report
 * (DESIGN §3, §4). Never throws on any input. Package-level content checks (entrypoints, icon,
 * `files[]` against real bytes) run only when `content` is given; the layout and publication
 * metadata checks need none.
 */
export function validateManifest(source: string | Uint8Array, options: ValidateManifestOptions = {}): ValidationReport {
  const bytes = typeof source === 'string' ? encoder.encode(source) : source
  return validateDocument(readJsonDocument(bytes), options)
}

/** What to validate: at most one selector (DESIGN §10); none means `./manifest.json`. */
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
  /** Default: `development` for a manifest or a directory (DESIGN §4.1). */
  level?: Level
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
}

const zipSignatures = [
  [0x50, 0x4b, 0x03, 0x04],
  [0x50, 0x4b, 0x05, 0x06],
]

/**
 * Validates a manifest file, a plugin directory or an artifact from disk. A directory, or a
 * manifest's folder, is read as package content only at package level and up, with digests only when
 * the manifest declares `files`. Throws `ValidationError` when there is nothing to judge:
 * `too-many-selectors`, `file-not-found`, `unreadable`; an artifact that is missing or not a ZIP throws its `ArchiveError`.
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
    // Loaded on demand: the archive layer is not needed to judge a manifest or a folder.
    const {validateArtifact} = await import('../artifact/validate-artifact.js')
    return validateArtifact(path.resolve(cwd, given), {...(options.level ? {level: options.level} : {}), label: given})
  }
  const level = options.level ?? 'development'
  const root = kind === 'directory' ? path.resolve(cwd, given) : path.dirname(path.resolve(cwd, given))
  if (kind === 'directory') await requireDirectory(root, given)
  const file = kind === 'directory' ? path.join(given, 'manifest.json') : given
  const read = readJsonDocument(await readManifestBytes(path.resolve(cwd, file), file))
  let content: PackageContent | undefined
  if (read.ok && levelIncludes(level, 'package') && member(read.value, 'manifestVersion') === supportedManifestVersion) {
    content = await readDirectoryContent(root, {digests: Array.isArray(member(read.value, 'files'))})
  }
  return validateDocument(read, {level, file, subjectKind: kind satisfies SubjectKind, subjectPath: given, content})
}

/** A positional path is a directory, an artifact (by extension or ZIP signature) or a manifest file. */
async function detectKind(absolute: string, given: string): Promise<'manifest' | 'directory' | 'artifact'> {
  const stats = await stat(absolute).catch((error: unknown) => fail(error, given))
  if (stats.isDirectory()) return 'directory'
  if (given.toLowerCase().endsWith('.svcplugin')) return 'artifact'
  const head = await readHead(absolute, 4).catch((error: unknown) => fail(error, given))
  return zipSignatures.some((signature) => signature.every((byte, i) => head[i] === byte)) ? 'artifact' : 'manifest'
}

async function requireDirectory(absolute: string, given: string): Promise<void> {
  const stats = await stat(absolute).catch((error: unknown) => fail(error, given))
  if (!stats.isDirectory()) throw new ValidationError('unreadable', `${given} is not a directory; pass the folder that holds manifest.json.`, {details: {path: given}})
}

/** The manifest's bytes, at most one byte past the 8 MiB limit: enough for the reader to refuse it. */
async function readManifestBytes(absolute: string, given: string): Promise<Uint8Array> {
  const stats = await stat(absolute).catch((error: unknown) => fail(error, given))
  if (stats.isDirectory()) throw new ValidationError('unreadable', `${given} is a directory; pass the manifest.json file inside it, or the folder as --directory.`, {details: {path: given}})
  return readHead(absolute, maxManifestBytes + 1).catch((error: unknown) => fail(error, given))
}

async function readHead(file: string, limit: number): Promise<Uint8Array> {
  const handle = await open(file, 'r')
  try {
    const buffer = Buffer.alloc(Math.min(limit, (await handle.stat()).size))
    let filled = 0
    while (filled < buffer.length) {
      const {bytesRead} = await handle.read(buffer, filled, buffer.length - filled, filled)
      if (bytesRead === 0) break
      filled += bytesRead
    }
    return buffer.subarray(0, filled)
  } finally {
    await handle.close()
  }
}

function fail(error: unknown, given: string): never {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    throw new ValidationError('file-not-found', `${given} does not exist.`, {cause: error, details: {path: given}})
  }
  throw new ValidationError('unreadable', `${given} cannot be read (${code ?? (error as Error).message}).`, {cause: error, details: {path: given}})
}
