import {readlinkSync} from 'node:fs'

/**
 * The path the system gives for open file `fd`, every link on the way resolved, or null where it gives none.
 * On Linux `/proc/self/fd/<fd>` names the file a descriptor holds: the one place that tells, with no race,
 * which file an open reached. A reader given a file's own path (free of links, as a walk from a folder's real
 * path lists it) compares the two, so that a folder on the way replaced by a link since the listing cannot
 * lead it to a file elsewhere.
 */
export function openedPath(fd: number): string | null {
  if (process.platform !== 'linux' || procFdMissing) return null
  try {
    return readlinkSync(`/proc/self/fd/${fd}`)
  } catch {
    // No /proc mounted (a container without it): nothing to compare, as on other systems.
    procFdMissing = true
    return null
  }
}

let procFdMissing = false

/** True when open file `fd` is known to be somewhere else than `file`, its own path (see {@link openedPath}). */
export function openedElsewhere(fd: number, file: string): boolean {
  const opened = openedPath(fd)
  return opened !== null && opened !== file
}
