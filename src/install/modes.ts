import {lstat, readdir} from 'node:fs/promises'
import path from 'node:path'
import {directoryModes, levels} from './layout.js'

/** The mode install gives every file of a version, and the host's entrypoint executable. */
export const installedModes = {file: 0o644, executable: 0o755, directory: directoryModes.shared} as const

/** A mode the launch gate reports: the code, a sentence, and the file (an archive path; null for a directory above). */
export interface ModeProblem {
  code: 'unexpected-mode' | 'directory-writable-by-others'
  message: string
  path: string | null
}

/** Permission bits written the way `chmod` takes them: `0644`, `4777`. */
function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0')
}

/**
 * `directory-writable-by-others`: `plugins`, `plugins/<id>` or `versions` writable by its group or by
 * everyone (sticky or not): whoever can write there can swap `current.json`, `trust.json` or a version
 * directory. Nothing on Windows, which has no such bits.
 */
export async function checkDirectoriesAbove(dataRoot: string, id: string): Promise<ModeProblem[]> {
  if (process.platform === 'win32') return []
  const problems: ModeProblem[] = []
  for (const segments of [levels.plugins, levels.plugin(id), levels.versions(id)]) {
    const dir = path.join(path.resolve(dataRoot), ...segments)
    const mode = (await lstat(dir)).mode
    if ((mode & 0o022) === 0) continue
    problems.push({code: 'directory-writable-by-others', message: `${dir} has mode ${octal(mode)}: others can write in it and replace what the host runs. Make it writable by its owner alone (chmod go-w).`, path: null})
  }
  return problems
}

/**
 * `unexpected-mode`: a file of the version whose mode is not the one install set (0644; 0755 for the
 * host's `executable`, an archive path), or a directory of the version (itself included) that is not
 * 0755. Setuid, setgid and sticky bits count: `4777` is not `0755`. Links and special files are left to
 * the caller (`unexpected-file-type`). Nothing on Windows, which has no such bits.
 */
export async function checkVersionModes(versionDirectory: string, executable: string | null): Promise<ModeProblem[]> {
  if (process.platform === 'win32') return []
  const problems: ModeProblem[] = []
  const expect = (name: string | null, mode: number, wanted: number): void => {
    if ((mode & 0o7777) === wanted) return
    const what = name === null ? `The version directory ${versionDirectory}` : name
    problems.push({code: 'unexpected-mode', message: `${what} has mode ${octal(mode)}; install set ${octal(wanted)}.`, path: name})
  }
  expect(null, (await lstat(versionDirectory)).mode, installedModes.directory)
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, {withFileTypes: true})) {
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      const absolute = path.join(dir, entry.name)
      if (entry.isDirectory()) {
        expect(name, (await lstat(absolute)).mode, installedModes.directory)
        await walk(absolute, name)
      } else if (entry.isFile()) {
        expect(name, (await lstat(absolute)).mode, name === executable ? installedModes.executable : installedModes.file)
      }
    }
  }
  await walk(versionDirectory, '')
  return problems
}
