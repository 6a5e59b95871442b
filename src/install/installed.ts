import {readdir, readFile, stat} from 'node:fs/promises'
import path from 'node:path'
import type {Manifest} from '../model/manifest.js'
import {isPluginId} from '../model/plugin-id.js'
import {readCurrentVersion} from './current.js'
import {hasErrno, pathExists} from '../fs/durable.js'
import {pluginPaths, pluginsRoot, versionDir} from './layout.js'
import {sortVersionsDescending} from './prune.js'
import {installedVersionNames} from './transaction.js'
import {readTrustRecord, type AdmittedVerdict} from './trust-record.js'

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
}

/** What relation checks need of an installed plugin: its active version and that version's manifest. */
export interface ActivePlugin {
  id: string
  activeVersion: string
  manifest: Manifest | null
}

// The manifest size cap of DESIGN §5.2: an installed manifest passed it when it was installed.
const maxManifestBytes = 8 * 1024 * 1024

/** Ids of every directory under `plugins/` that is a plugin id (names starting with `_` never are). */
export async function installedPluginIds(dataRoot: string): Promise<string[]> {
  let entries
  try {
    entries = await readdir(pluginsRoot(dataRoot), {withFileTypes: true})
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return []
    throw error
  }
  return entries
    .filter((entry) => entry.isDirectory() && isPluginId(entry.name))
    .map((entry) => entry.name)
    .sort()
}

/**
 * Every installed plugin (DESIGN §8 `listInstalled`): those with at least one version directory, sorted by
 * id. Reads only; takes no lock (`current.json` and `trust.json` are replaced atomically).
 */
export async function listInstalled(dataRoot: string): Promise<InstalledPlugin[]> {
  const plugins: InstalledPlugin[] = []
  for (const id of await installedPluginIds(dataRoot)) {
    const paths = pluginPaths(dataRoot, id)
    const versions = sortVersionsDescending(await installedVersionNames(paths.versions))
    const pending = await pathExists(paths.transaction)
    if (versions.length === 0 && !pending) continue
    const current = await readCurrentVersion(paths.current)
    const activeVersion = current !== null && versions.includes(current) ? current : null
    const record = await readTrustRecord(paths.trust)
    const manifest = activeVersion === null ? null : await readManifestLoosely(versionDir(dataRoot, id, activeVersion))
    plugins.push({
      id,
      name: typeof manifest?.name === 'string' ? manifest.name : null,
      activeVersion,
      versions,
      verdict: record?.verdict ?? null,
      certificateId: activeVersion === null ? null : (record?.versions[activeVersion]?.certificateId ?? null),
      directory: activeVersion === null ? null : versionDir(dataRoot, id, activeVersion),
      dataDirectory: paths.data,
      pending,
    })
  }
  return plugins
}

/** Every plugin with an active version, and that version's manifest, except `exceptId`. */
export async function readActivePlugins(dataRoot: string, exceptId?: string): Promise<Map<string, ActivePlugin>> {
  const active = new Map<string, ActivePlugin>()
  for (const id of await installedPluginIds(dataRoot)) {
    if (id === exceptId) continue
    const activeVersion = await readCurrentVersion(pluginPaths(dataRoot, id).current)
    if (activeVersion === null) continue
    const manifest = await readManifestLoosely(versionDir(dataRoot, id, activeVersion))
    if (manifest === null) continue
    active.set(id, {id, activeVersion, manifest})
  }
  return active
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
