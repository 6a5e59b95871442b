import {randomBytes} from 'node:crypto'
import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {isPluginId} from '../model/plugin-id.js'
import {fsyncDirectory, hasErrno} from '../fs/durable.js'
import {removeTree, rename} from '../fs/mutations.js'
import {createDirectory, ensureRealDirectory, lstatOrNull, realDirectory} from './data-root.js'
import {directoryModes, levels} from './layout.js'

/** One operation's scratch directory `_staging/<id>_<24 hex>/` (docs/data-root.md). */
export interface Staging {
  /** The directory's name inside `_staging`. */
  readonly name: string
  readonly dir: string
  /** Where an artifact is extracted: becomes a version directory by one rename. */
  readonly content: string
  /** Removes the directory and everything in it. */
  remove(): Promise<void>
}

// `_` never occurs in a plugin id (the id pattern has no underscore), so the owner id ends at the first one.
const separator = '_'
const randomPart = /^[0-9a-f]{24}$/

/**
 * Creates a fresh staging directory owned by plugin `id`. Callers hold the plugin's lock: every staging
 * directory of an id whose lock is free is a leftover and may be removed (see {@link removeStagingOf}).
 */
export async function createStaging(dataRoot: string, id: string): Promise<Staging> {
  const root = await ensureRealDirectory(dataRoot, levels.staging)
  const name = `${id}${separator}${randomBytes(12).toString('hex')}`
  await createDirectory(path.join(root, name), directoryModes.private)
  return stagingAt(dataRoot, name)
}

/** The staging directory with this name (which may or may not still exist); the name must be one {@link stagingOwner} accepts. */
export function stagingAt(dataRoot: string, name: string): Staging {
  if (stagingOwner(name) === null) throw new Error(`${JSON.stringify(name)} is not a staging directory name`)
  const dir = path.join(path.resolve(dataRoot), ...levels.staging, name)
  return {name, dir, content: path.join(dir, 'content'), remove: () => removeStagingDirectory(dataRoot, name)}
}

/** The plugin id owning a staging directory name, or null for a name this library never creates. */
export function stagingOwner(name: string): string | null {
  const at = name.indexOf(separator)
  if (at <= 0) return null
  const id = name.slice(0, at)
  return isPluginId(id) && randomPart.test(name.slice(at + 1)) ? id : null
}

/** Names of every entry in `_staging`, or none when it does not exist. Throws `unsafe-data-root`. */
export async function listStaging(dataRoot: string): Promise<string[]> {
  const root = await realDirectory(dataRoot, levels.staging)
  return root === null ? [] : readdir(root)
}

/**
 * Removes every staging directory of plugin `id` except `keep`: leftovers of a run that was killed.
 * The caller holds the plugin's lock, so no live operation owns any of them. Other names are left alone.
 */
export async function removeStagingOf(dataRoot: string, id: string, keep?: string): Promise<void> {
  for (const name of await listStaging(dataRoot)) {
    if (name !== keep && stagingOwner(name) === id) await removeStagingDirectory(dataRoot, name)
  }
}

/**
 * Removes `_staging/<name>` (a name this library creates) with all it holds, after checking that
 * `_staging` is a real directory. Whatever `<name>` itself is, a link in it is removed, never followed.
 */
async function removeStagingDirectory(dataRoot: string, name: string): Promise<void> {
  const root = await realDirectory(dataRoot, levels.staging)
  if (root !== null) await removeTree(path.join(root, name))
}

/**
 * Takes the entry `name` of the data-root directory `parent` (a version directory, `versions`, a purged
 * plugin's files) out of the installation by one rename into a fresh staging directory of `id`, then
 * deletes it there. A process killed in between leaves a staging leftover, never a half-deleted version.
 * `parent` is checked to be a real directory; `name` is moved whatever it is: a link leaves as a link,
 * and what it points to is never touched.
 */
export async function discard(dataRoot: string, id: string, parent: readonly string[], name: string): Promise<void> {
  const from = await realDirectory(dataRoot, parent)
  if (from === null || (await lstatOrNull(path.join(from, name))) === null) return
  const staging = await createStaging(dataRoot, id)
  try {
    await realDirectory(dataRoot, parent)
    await rename(path.join(from, name), path.join(staging.dir, 'discarded'))
    await fsyncDirectory(from)
  } catch (error) {
    if (!hasErrno(error, 'ENOENT')) throw error
  } finally {
    await staging.remove()
  }
}
