import {fsyncDirectory} from '../fs/durable.js'
import {rename} from '../fs/mutations.js'
import {readCurrent, writeCurrent} from './current.js'
import {ensureRealDirectory, realDirectory} from './data-root.js'
import {levels, pluginPaths, versionPath} from './layout.js'
import {readInstalledVersions} from './version-directories.js'

/**
 * The layout step: brings every version of plugin `id` to rest in `versions/<version>/` and leaves
 * `current.json` naming just the version. A forced reinstall promotes its tree under `<version>_<n>` while
 * the old tree still holds `<version>`; once the old tree is gone, this renames the new one to
 * `<version>` and then rewrites `current.json`. In between, `current.json` names a directory that no longer
 * exists while `<version>` does, and the readers resolve the version there (see
 * `readInstalledVersions`): at no instant does the active version lack a complete directory.
 *
 * A version whose `<version>` name is taken (by a directory the caller has not discarded yet) stays where
 * it is. The caller holds the plugin's lock. Returns each installed version's directory name afterwards.
 */
export async function bringToRest(dataRoot: string, id: string): Promise<Map<string, string>> {
  const before = await readInstalledVersions(dataRoot, id)
  for (const [version, name] of before.directories) {
    if (name === version || before.taken.has(version)) continue
    const versionsDir = (await realDirectory(dataRoot, levels.versions(id))) as string
    await rename(versionPath(dataRoot, id, name), versionPath(dataRoot, id, version))
    await fsyncDirectory(versionsDir)
  }
  const after = await readInstalledVersions(dataRoot, id)
  const current = await readCurrent(pluginPaths(dataRoot, id).current)
  const active = after.active
  if (current !== null && active !== null && current.directory !== active.directory) {
    await ensureRealDirectory(dataRoot, levels.plugin(id))
    await writeCurrent(pluginPaths(dataRoot, id).current, active)
  }
  return after.directories
}
