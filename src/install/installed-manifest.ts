import {lstat, readFile} from 'node:fs/promises'
import path from 'node:path'
import {resolveLimits} from '../archive/limits.js'
import type {EntryDigest} from '../archive/types.js'
import {contentsOf, manifestRead, type ArtifactContents} from '../artifact/contents.js'
import {readTree} from '../fs/tree.js'
import {manifestEntryName} from '../manifest/declared-files.js'
import type {ValidationReport} from '../manifest/report.js'
import {readManifest} from '../manifest/read-manifest.js'
import type {Manifest} from '../model/manifest.js'
import {hasErrno} from '../fs/durable.js'
import {InstallError} from './errors.js'
import {versionOfDirectory} from './layout.js'

/** An installed version's manifest: its exact bytes, and the parsed manifest when it is valid. */
export interface InstalledManifest {
  bytes: Uint8Array
  manifest: Manifest | null
  report: ValidationReport
}

/**
 * Reads `manifest.json` of an installed version directory at development level with the directory's
 * identity as expectations: a manifest whose id or version disagrees with its directory is rejected. The
 * id is the plugin's; the version is the directory's name, `<version>` or `<version>_<n>` (see
 * {@link versionOfDirectory}). Returns null when there is no manifest file (or it is not a regular file,
 * or over the cap).
 */
export async function loadInstalledManifest(dir: string, id: string): Promise<InstalledManifest | null> {
  const version = versionOfDirectory(path.basename(dir))
  if (version === null) throw new Error(`${dir} is not a version directory`)
  const file = path.join(dir, 'manifest.json')
  try {
    const info = await lstat(file)
    if (!info.isFile() || info.size > resolveLimits().maxManifestBytes) return null
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return null
    throw error
  }
  const bytes = await readFile(file)
  const {manifest, report} = readManifest(bytes, {expect: {id, version}, file, subjectKind: 'installed', subjectPath: dir})
  return {bytes, manifest: report.valid ? manifest : null, report}
}

/** {@link loadInstalledManifest}, or `manifest-invalid` with the report's problems. */
export async function readInstalledManifest(dir: string, id: string): Promise<{manifest: Manifest; bytes: Uint8Array}> {
  const loaded = await loadInstalledManifest(dir, id)
  if (loaded === null) {
    throw new InstallError('manifest-invalid', `${dir} has no manifest.json.`, {details: {reason: 'manifest-missing', problems: []}})
  }
  if (loaded.manifest === null) {
    const first = loaded.report.problems.find((problem) => problem.severity === 'error')
    throw new InstallError('manifest-invalid', `The installed manifest of ${id} ${path.basename(dir)} is invalid${first === undefined ? '' : `: ${first.code}: ${first.message}`}.`, {
      details: {problems: loaded.report.problems},
    })
  }
  return {manifest: loaded.manifest, bytes: loaded.bytes}
}

/** An installed version's files as the checklist reads them, and what else its tree holds. */
export interface InstalledContents {
  contents: ArtifactContents
  /** Size and SHA-256 of every regular file but manifest.json. */
  files: Map<string, EntryDigest>
  /** Paths that are neither a regular file nor a directory (never followed). */
  unexpected: string[]
}

/**
 * Reads an installed version directory the way the verification checklist reads an artifact: every
 * regular file hashed once (links and special files never followed, listed in `unexpected`), the
 * manifest as given (its exact bytes), the signing files kept in memory. `signal` stops the reading between
 * files and chunks (its `AbortError`).
 */
export async function readInstalledContents(dir: string, manifestBytes: Uint8Array, signal?: AbortSignal): Promise<InstalledContents> {
  const tree = await readTree(dir, {digests: true, signal})
  const files = new Map([...tree.files].filter(([name]) => name !== manifestEntryName)) as Map<string, EntryDigest>
  const contents = await contentsOf(manifestRead(manifestBytes), files, (name) => readFile(path.join(dir, ...name.split('/'))))
  return {contents, files, unexpected: tree.unexpected}
}
