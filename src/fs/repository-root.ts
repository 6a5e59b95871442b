import {existsSync} from 'node:fs'
import path from 'node:path'

/**
 * The root of the git work tree enclosing `start`: the nearest directory at or above it holding a `.git`
 * entry (a directory, or the file a linked work tree or submodule has). Null outside any work tree.
 */
export function findRepositoryRoot(start: string): string | null {
  let directory = path.resolve(start)
  for (;;) {
    if (existsSync(path.join(directory, '.git'))) return directory
    const parent = path.dirname(directory)
    if (parent === directory) return null
    directory = parent
  }
}
