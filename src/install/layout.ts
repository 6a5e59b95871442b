import path from 'node:path'
import {isPluginId} from '../model/plugin-id.js'
import {isSemVer} from '../model/semver.js'
import {InstallError} from './errors.js'

/**
 * Where everything of an installation lives (DESIGN §8):
 * `<dataRoot>/plugins/<id>/versions/<version>/` (immutable, the archive's root), `<id>/current.json`,
 * `<id>/trust.json`, `<id>/data/`, `<id>/.lock`, `<id>/.transaction.json` and `_staging/<id>_<random>/`.
 */
export interface PluginPaths {
  /** `<dataRoot>/plugins/<id>` */
  root: string
  /** `<id>/versions` */
  versions: string
  /** `<id>/current.json`: `{"version": "<v>"}`, the active version. */
  current: string
  /** `<id>/trust.json`: the trust the plugin was admitted with. */
  trust: string
  /** `<id>/data`: the plugin's own state, kept across updates. */
  data: string
  /** `<id>/.lock`: held by the one operation working on this plugin. */
  lock: string
  /** `<id>/.transaction.json`: an install between its commit point and its last step. */
  transaction: string
}

/** `<dataRoot>/plugins`. */
export function pluginsRoot(dataRoot: string): string {
  return path.join(path.resolve(dataRoot), 'plugins')
}

/** `<dataRoot>/plugins/_staging`: every operation's scratch space; names starting with `_` are never plugins. */
export function stagingRoot(dataRoot: string): string {
  return path.join(pluginsRoot(dataRoot), '_staging')
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

/** `<dataRoot>/plugins/<id>/versions/<version>`. */
export function versionDir(dataRoot: string, id: string, version: string): string {
  return path.join(pluginPaths(dataRoot, id).versions, version)
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

/** Narrows a caller's version, or throws `invalid-argument` (SemVer 2.0 has no separator and no `..`). */
export function assertVersion(version: unknown): asserts version is string {
  if (!isSemVer(version)) {
    throw new InstallError('invalid-argument', `${JSON.stringify(version)} is not a SemVer 2.0 version.`, {
      details: {argument: 'version', value: version},
    })
  }
}
