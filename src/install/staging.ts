import {randomBytes} from 'node:crypto'
import {mkdir, readdir, rename, rm} from 'node:fs/promises'
import path from 'node:path'
import {isPluginId} from '../model/plugin-id.js'
import {fsyncDirectory, hasErrno} from '../fs/durable.js'
import {stagingRoot} from './layout.js'

/** One operation's scratch directory `_staging/<id>_<random>/` (DESIGN §8). */
export interface Staging {
  /** The directory's name inside `_staging`. */
  readonly name: string
  readonly dir: string
  /** Where an artifact is extracted: becomes `versions/<version>` by one rename. */
  readonly content: string
  /** Removes the directory and everything in it. */
  remove(): Promise<void>
}

// `_` never occurs in a plugin id (the id pattern has no underscore), so the owner id ends at the first one.
const separator = '_'

/**
 * Creates a fresh staging directory owned by plugin `id`. Callers hold the plugin's lock: every staging
 * directory of an id whose lock is free is a leftover and may be removed (see {@link removeStagingOf}).
 */
export async function createStaging(dataRoot: string, id: string): Promise<Staging> {
  const root = stagingRoot(dataRoot)
  await mkdir(root, {recursive: true})
  const name = `${id}${separator}${randomBytes(12).toString('hex')}`
  const dir = path.join(root, name)
  await mkdir(dir, {mode: 0o700})
  return stagingAt(root, name)
}

/** The staging directory with this name (which may or may not still exist). */
export function stagingAt(root: string, name: string): Staging {
  const dir = path.join(root, name)
  return {name, dir, content: path.join(dir, 'content'), remove: () => removeTree(dir)}
}

/** The plugin id owning a staging directory name, or null for a name this library never creates. */
export function stagingOwner(name: string): string | null {
  const at = name.indexOf(separator)
  if (at <= 0) return null
  const id = name.slice(0, at)
  return isPluginId(id) && /^[0-9a-f]{24}$/.test(name.slice(at + 1)) ? id : null
}

/** Names of every entry in `_staging`, or none when it does not exist. */
export async function listStaging(dataRoot: string): Promise<string[]> {
  try {
    return await readdir(stagingRoot(dataRoot))
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return []
    throw error
  }
}

/**
 * Removes every staging directory of plugin `id` except `keep`: leftovers of a run that was killed.
 * The caller holds the plugin's lock, so no live operation owns any of them.
 */
export async function removeStagingOf(dataRoot: string, id: string, keep?: string): Promise<void> {
  const root = stagingRoot(dataRoot)
  for (const name of await listStaging(dataRoot)) {
    if (name !== keep && stagingOwner(name) === id) await removeTree(path.join(root, name))
  }
}

/**
 * Takes `target` (a version directory, a whole plugin's files) out of the installation by one rename into
 * a fresh staging directory of `id`, then deletes it there. A process killed in between leaves a staging
 * leftover, never a half-deleted version.
 */
export async function discard(dataRoot: string, id: string, target: string): Promise<void> {
  const staging = await createStaging(dataRoot, id)
  try {
    await rename(target, path.join(staging.dir, 'discarded'))
    await fsyncDirectory(path.dirname(target))
  } catch (error) {
    await staging.remove()
    if (hasErrno(error, 'ENOENT')) return
    throw error
  }
  await staging.remove()
}

/** `rm -rf` that retries briefly on Windows' transient sharing errors. */
export async function removeTree(target: string): Promise<void> {
  await rm(target, {recursive: true, force: true, maxRetries: 3})
}
