import path from 'node:path'
import {isPluginId} from '../model/plugin-id.js'
import {isSemVer, maxVersionLength} from '../model/semver.js'
import {InstallError} from './errors.js'

/**
 * Where everything of an installation lives (docs/data-root.md):
 * `<dataRoot>/plugins/<id>/versions/<version>/` (immutable, the archive's root; `<version>_<n>` while a
 * forced reinstall replaces it), `<id>/current.json`, `<id>/trust.json`, `<id>/data/`, `<id>/.lock/`,
 * `<id>/.transaction.json` and `_staging/<id>_<random>/`.
 */
export interface PluginPaths {
  /** `<dataRoot>/plugins/<id>` */
  root: string
  /** `<id>/versions` */
  versions: string
  /** `<id>/current.json`: `{"version": "<v>"}` (plus `"directory"` while a forced reinstall passes through `<v>_<n>`), the active version. */
  current: string
  /** `<id>/trust.json`: the trust the plugin was admitted with. */
  trust: string
  /** `<id>/data`: the plugin's own state, kept across updates. */
  data: string
  /** `<id>/.lock`: the lock directory held by the one operation working on this plugin (src/fs/lock.ts). */
  lock: string
  /** `<id>/.transaction.json`: an install between its commit point and its last step. */
  transaction: string
}

/** `<dataRoot>/plugins`. */
export function pluginsRoot(dataRoot: string): string {
  return path.join(path.resolve(dataRoot), 'plugins')
}

/** Every path of one plugin. The id must already be a plugin id (see {@link assertPluginId}). */
export function pluginPaths(dataRoot: string, id: string): PluginPaths {
  const root = path.join(pluginsRoot(dataRoot), id)
  return {
    root,
    versions: path.join(root, 'versions'),
    current: path.join(root, 'current.json'),
    trust: path.join(root, 'trust.json'),
    data: path.join(root, 'data'),
    lock: path.join(root, '.lock'),
    transaction: path.join(root, '.transaction.json'),
  }
}

/** `<dataRoot>/plugins/<id>/versions/<directory>`, for a version directory name (see {@link versionOfDirectory}). */
export function versionPath(dataRoot: string, id: string, directory: string): string {
  return path.join(pluginPaths(dataRoot, id).versions, directory)
}

/**
 * The directories of the data root the installer works through, as path segments below the data root.
 * Each must be a real directory (checked level by level, see data-root.ts), never a link.
 */
export const levels = {
  plugins: ['plugins'],
  /** Every operation's scratch space; names starting with `_` are never plugins. */
  staging: ['plugins', '_staging'],
  plugin: (id: string): readonly string[] => ['plugins', id],
  versions: (id: string): readonly string[] => ['plugins', id, 'versions'],
  data: (id: string): readonly string[] => ['plugins', id, 'data'],
} as const

/**
 * The mode of every directory the installer creates, set exactly whatever the umask (docs/data-root.md):
 * `shared` (0755: the host reads it, only its owner writes it) for the data root when the installer
 * creates it, `plugins`, `<id>`, `versions`, each version and every directory inside one; `private`
 * (0700) for `_staging` and its operations' directories, and for a plugin's `data`.
 */
export const directoryModes = {shared: 0o755, private: 0o700} as const

/** The mode of the data-root directory `segments` (see {@link directoryModes}). */
export function directoryModeOf(segments: readonly string[]): number {
  const [top, plugin, inside] = segments
  const privateLevel = (segments.length === 2 && top === 'plugins' && plugin === '_staging') || (segments.length === 3 && inside === 'data')
  return privateLevel ? directoryModes.private : directoryModes.shared
}

/** The largest `<n>` of a `<version>_<n>` directory name: nine digits, far beyond any real history. */
const maxDirectorySuffix = /^[1-9][0-9]{0,8}$/

/**
 * The version a version directory holds, judged by its name: `<version>` or `<version>_<n>` (n ≥ 1), or
 * null for any other name. SemVer never contains `_`, so the version is the part before the first one.
 * A forced reinstall of a version that has a directory promotes the new tree under a fresh name, so that
 * `current.json` can switch from the old tree to the new one in one atomic write, and moves it back to
 * `<version>` once the old tree is gone (docs/data-root.md).
 */
export function versionOfDirectory(name: string): string | null {
  const at = name.indexOf('_')
  const version = at < 0 ? name : name.slice(0, at)
  if (!isSemVer(version)) return null
  if (at >= 0 && !maxDirectorySuffix.test(name.slice(at + 1))) return null
  return version
}

/** The directory name for `version` that none of `taken` uses: `<version>`, else `<version>_1`, `<version>_2`, … */
export function freeDirectoryName(version: string, taken: ReadonlySet<string>): string {
  if (!taken.has(version)) return version
  for (let n = 1; ; n++) {
    const name = `${version}_${n}`
    if (!taken.has(name)) return name
  }
}

/**
 * Narrows a caller's plugin id, or throws `invalid-argument`. Every function that turns an id into a path
 * calls this first: the id pattern admits no separator, no `..` and no leading `_`, so the path stays a
 * child of `plugins/` and never names the staging area.
 */
export function assertPluginId(id: unknown): asserts id is string {
  if (!isPluginId(id)) {
    throw new InstallError('invalid-argument', `${JSON.stringify(id)} is not a plugin id.`, {details: {argument: 'id', value: id}})
  }
}

/**
 * Narrows a caller's version, or throws `invalid-argument`: SemVer 2.0 (no separator, no `..`) of at most
 * {@link maxVersionLength} characters, so that its folder's name fits a file system.
 */
export function assertVersion(version: unknown): asserts version is string {
  if (!isSemVer(version) || version.length > maxVersionLength) {
    throw new InstallError('invalid-argument', `${JSON.stringify(version)} is not a SemVer 2.0 version of at most ${maxVersionLength} characters.`, {
      details: {argument: 'version', value: version},
    })
  }
}
