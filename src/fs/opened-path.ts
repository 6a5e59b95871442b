import {closeSync, constants, openSync, readlinkSync, statSync} from 'node:fs'

/**
 * What the system tells of where an open file is. On Linux `/proc/self/fd/<fd>` names the file a descriptor
 * holds, every link on the way resolved: the one place that tells, with no race, which file an open reached.
 * A reader given a file's own path (free of links, as a walk from a folder's real path lists it) compares the
 * two, so that a folder on the way replaced by a link since the listing cannot lead it to a file elsewhere.
 */

/** Whether this process can ask where a descriptor is: asked once, as the answer holds for its life. */
let procFd: boolean | undefined

function hasProcFd(): boolean {
  if (procFd === undefined) {
    try {
      procFd = process.platform === 'linux' && statSync('/proc/self/fd').isDirectory()
    } catch {
      // No /proc mounted (a container without it): nothing to compare, as on other systems.
      procFd = false
    }
  }
  return procFd
}

/** The path of open file `fd` as the system names it (its bytes), or null where the system does not tell. */
function openedPath(fd: number): Buffer | null {
  if (!hasProcFd()) return null
  return readlinkSync(`/proc/self/fd/${fd}`, {encoding: 'buffer'})
}

/**
 * True when open file `fd` is not known to be at `file`, its own path: the system names it elsewhere, or
 * cannot name it (a path too long for it, say), which is refused as well. False where the system does not tell.
 */
export function openedElsewhere(fd: number, file: string): boolean {
  if (!hasProcFd()) return false
  try {
    return !openedPath(fd)!.equals(Buffer.from(file))
  } catch {
    return true
  }
}

/**
 * The path of folder `dir` as the system names it (see {@link openedPath}), or null where it does not tell:
 * a walk that starts there lists paths a reader then finds named the same way (on a file system that ignores
 * case, the name it knows the folder by, whatever case `dir` was given in).
 */
export function folderPathAsOpened(dir: string): Buffer | null {
  if (!hasProcFd()) return null
  const fd = openSync(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0))
  try {
    return openedPath(fd)
  } finally {
    closeSync(fd)
  }
}
