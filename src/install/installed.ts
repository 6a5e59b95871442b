import {readdir, readFile, stat} from 'node:fs/promises'
import path from 'node:path'
import type {Manifest} from '../model/manifest.js'
import {isPluginId} from '../model/plugin-id.js'
import {pathExists} from '../fs/durable.js'
import {realDirectory, requireDataRoot} from './data-root.js'
import {InstallError, asInstallError} from './errors.js'
import {levels, pluginPaths, versionPath} from './layout.js'
import {readTrustRecord, type AdmittedVerdict} from './trust-record.js'
import {readInstalledVersions} from './version-directories.js'
import {maxManifestBytes} from '../model/manifest-size.js'

/** One installed plugin as `listInstalled` reports it. */
export interface InstalledPlugin {
  id: string
  /** The active version's `name`, null when no version is active. */
  name: string | null
  /** The version `current.json` names, null when none is active. */
  activeVersion: string | null
  /** Every installed version, newest first. */
  versions: string[]
  /** The most trust the plugin was admitted with (`trust.json`), null without a record. */
  verdict: AdmittedVerdict | null
  /** The certificate the active version was admitted with, null when unsigned or none is active. */
  certificateId: string | null
  /** The active version's directory, null when none is active. */
  directory: string | null
  /** The plugin's data directory (it may not exist yet). */
  dataDirectory: string
  /** True while an install of this plugin is between its commit point and its end (finished by the next operation). */
  pending: boolean
  /**
   * Installed versions whose manifest does not name this plugin and this version (or cannot be read): a host
   * refuses to launch them, and `verifyInstalled` says why.
   */
  mismatchedVersions: string[]
}

/** What relation checks need of an installed plugin: its active version and that version's manifest. */
export interface ActivePlugin {
  id: string
  activeVersion: string
  manifest: Manifest | null
}

/**
 * Ids of every directory under `plugins/` that is a plugin id (names starting with `_` never are; a link
 * is not a directory). Throws `unsafe-data-root` when `plugins` itself is not a real directory.
 */
export async function installedPluginIds(dataRoot: string): Promise<string[]> {
  const root = await realDirectory(dataRoot, levels.plugins)
  if (root === null) return []
  const entries = await readdir(root, {withFileTypes: true})
  return entries
    .filter((entry) => entry.isDirectory() && isPluginId(entry.name))
    .map((entry) => entry.name)
    .sort()
}

/**
 * Every installed plugin: those with at least one version directory, sorted by id. Reads only; takes no
 * lock (`current.json` and `trust.json` are replaced atomically). A plugin whose directory or `versions`
 * is not a real directory, or one of whose state files is not a regular file, is not listed (its own
 * operations refuse it with `unsafe-data-root`); a `plugins` that is not one is refused; a file-system
 * error is `io-error`.
 */
export async function listInstalled(dataRoot: string): Promise<InstalledPlugin[]> {
  try {
    await requireDataRoot(dataRoot)
    return await listed(dataRoot)
  } catch (error) {
    throw asInstallError(error)
  }
}

async function listed(dataRoot: string): Promise<InstalledPlugin[]> {
  const plugins: InstalledPlugin[] = []
  for (const id of await installedPluginIds(dataRoot)) {
    const plugin = await unlessUnsafe(() => listedPlugin(dataRoot, id))
    if (plugin !== null) plugins.push(plugin)
  }
  return plugins
}

/** What `list` shows of plugin `id`: null when it has no version and no pending install. */
async function listedPlugin(dataRoot: string, id: string): Promise<InstalledPlugin | null> {
  const paths = pluginPaths(dataRoot, id)
  const installed = await readInstalledVersions(dataRoot, id)
  const versions = [...installed.directories.keys()]
  const pending = await pathExists(paths.transaction)
  if (versions.length === 0 && !pending) return null
  const activeVersion = installed.active?.version ?? null
  const directory = installed.active === null ? null : versionPath(dataRoot, id, installed.active.directory)
  const record = await readTrustRecord(paths.trust)
  const manifest = directory === null ? null : await readManifestLoosely(directory)
  const mismatchedVersions: string[] = []
  for (const [version, name] of installed.directories) {
    const declared = await readManifestLoosely(versionPath(dataRoot, id, name))
    if (declared?.id !== id || declared.version !== version) mismatchedVersions.push(version)
  }
  return {
    id,
    name: typeof manifest?.name === 'string' ? manifest.name : null,
    activeVersion,
    versions,
    verdict: record?.verdict ?? null,
    certificateId: activeVersion === null ? null : (record?.versions[activeVersion]?.certificateId ?? null),
    directory,
    dataDirectory: paths.data,
    pending,
    mismatchedVersions,
  }
}

/** Every plugin with an active version, and that version's manifest, except `exceptId`. */
export async function readActivePlugins(dataRoot: string, exceptId?: string): Promise<Map<string, ActivePlugin>> {
  const active = new Map<string, ActivePlugin>()
  for (const id of await installedPluginIds(dataRoot)) {
    if (id === exceptId) continue
    const current = (await unlessUnsafe(() => readInstalledVersions(dataRoot, id)))?.active ?? null
    if (current === null) continue
    const manifest = await readManifestLoosely(versionPath(dataRoot, id, current.directory))
    if (manifest === null) continue
    active.set(id, {id, activeVersion: current.version, manifest})
  }
  return active
}

/**
 * What `read` gives, or null when a plugin's own files are unsafe (`unsafe-data-root`: a link where a
 * directory belongs, a FIFO where a state file does): such a plugin is left out of a listing, and its own
 * operations refuse it.
 */
async function unlessUnsafe<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read()
  } catch (error) {
    if (error instanceof InstallError && error.code === 'unsafe-data-root') return null
    throw error
  }
}

/**
 * The manifest of an installed version directory as JSON, without validation: it was validated when it
 * was installed, and relation checks only read ids and ranges (each checked for type where used). Null
 * when absent, too large or not a JSON object.
 */
async function readManifestLoosely(dir: string): Promise<Manifest | null> {
  const file = path.join(dir, 'manifest.json')
  try {
    const info = await stat(file)
    if (!info.isFile() || info.size > maxManifestBytes) return null
    const value: unknown = JSON.parse(await readFile(file, 'utf8'))
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Manifest) : null
  } catch {
    return null
  }
}
