import {isDeepStrictEqual} from 'node:util'
import {readFile, readdir, stat} from 'node:fs/promises'
import path from 'node:path'

import {InstallError, type InstallErrorCode} from '../../../src/install/errors.js'
import {tempDir} from '../../helpers/cli.js'
import {writeArtifact, type ArtifactSpec} from './artifacts.js'

/** A temporary directory with a data root and a place for artifacts. */
export interface Workspace {
  dir: string
  dataRoot: string
  /** Writes an artifact named `name` and returns its path. */
  artifact(name: string, spec?: ArtifactSpec): Promise<string>
  /** `<dataRoot>/plugins/<id>` */
  plugin(id: string): string
  cleanup(): Promise<void>
}

/** A fresh workspace. */
export async function workspace(): Promise<Workspace> {
  const {dir, cleanup} = await tempDir('svc-plugin-install-')
  const dataRoot = path.join(dir, 'data')
  return {
    dir,
    dataRoot,
    artifact: (name, spec = {}) => writeArtifact(path.join(dir, 'artifacts', `${name}.svcPlugin`), spec),
    plugin: (id) => path.join(dataRoot, 'plugins', id),
    cleanup,
  }
}

/** Runs `body` in a fresh workspace, always cleaned up. */
export async function inWorkspace(body: (ws: Workspace) => Promise<void>): Promise<void> {
  const ws = await workspace()
  try {
    await body(ws)
  } finally {
    await ws.cleanup()
  }
}

/** An `assert.rejects` predicate: an InstallError with this code (and these details, when given). */
export function installError(code: InstallErrorCode, details: Record<string, unknown> = {}): (error: unknown) => boolean {
  return (error: unknown) => {
    if (!(error instanceof InstallError)) throw error
    if (error.code !== code) throw new Error(`expected ${code}, got ${error.code}: ${error.message}`)
    for (const [key, value] of Object.entries(details)) {
      if (!isDeepStrictEqual(error.details[key], value)) throw new Error(`expected details.${key} = ${JSON.stringify(value)}, got ${JSON.stringify(error.details[key])}`)
    }
    return true
  }
}

/** The version `current.json` names, or null. */
export async function currentOf(dataRoot: string, id: string): Promise<string | null> {
  try {
    return (JSON.parse(await readFile(path.join(dataRoot, 'plugins', id, 'current.json'), 'utf8')) as {version: string}).version
  } catch {
    return null
  }
}

/** The version directories of a plugin, sorted by name. */
export async function versionsOf(dataRoot: string, id: string): Promise<string[]> {
  try {
    return (await readdir(path.join(dataRoot, 'plugins', id, 'versions'))).sort()
  } catch {
    return []
  }
}

/** The entries of `_staging` (none when it does not exist). */
export async function stagingEntries(dataRoot: string): Promise<string[]> {
  try {
    return await readdir(path.join(dataRoot, 'plugins', '_staging'))
  } catch {
    return []
  }
}

/** Permission bits of a file. */
export async function modeOf(file: string): Promise<number> {
  return (await stat(file)).mode & 0o777
}
