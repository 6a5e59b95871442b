import {watch, type FSWatcher} from 'node:fs'
import {readdir} from 'node:fs/promises'
import path from 'node:path'

/** Options of {@link watchTree}. */
export interface WatchTreeOptions {
  /** True for a folder (its `/`-separated path relative to the root) whose contents are not watched. */
  skipFolder?: (relativePath: string) => boolean
  /** Closes every watcher once aborted. */
  signal?: AbortSignal
}

/** A tree being watched; {@link close} ends it (so does the signal). */
export interface TreeWatch {
  /** Stops watching: every watcher is closed, no change is reported after this. */
  close(): void
  /** Settles once the folders present now are watched (a test waits for it before changing anything). */
  ready(): Promise<void>
}

/**
 * Reports every change under folder `root` to `onChange`, with the `/`-separated path of the entry that
 * changed (relative to the root; `null` when the system did not say which), by one watcher per folder.
 * A folder's watcher sees its entries created, written, removed and renamed, so a file an editor replaces
 * by renaming a new one over it (a rename-over save) is seen, and so is every later write to the new
 * file: a watcher of the file itself would follow the old, unlinked one. Folders created later are
 * watched as they appear, those removed are let go, and a folder that `skipFolder` names is never entered.
 */
export function watchTree(root: string, onChange: (relativePath: string | null) => void, options: WatchTreeOptions = {}): TreeWatch {
  const watchers = new Map<string, FSWatcher>()
  let closed = false
  // A resync walks the tree again after a rename; one at a time, and one more when asked meanwhile.
  let syncing: Promise<void> = Promise.resolve()
  let again = false
  const close = (): void => {
    closed = true
    for (const watcher of watchers.values()) watcher.close()
    watchers.clear()
  }
  const watchFolder = (relative: string): void => {
    let watcher: FSWatcher
    try {
      watcher = watch(relative === '' ? root : path.join(root, ...relative.split('/')), {persistent: true})
    } catch {
      return // Removed before it could be watched: the rename that removed it resyncs.
    }
    watcher.on('change', (type, name) => {
      if (closed) return
      const entry = name === null ? null : relative === '' ? String(name) : `${relative}/${String(name)}`
      onChange(entry)
      if (type === 'rename') resync()
    })
    watcher.on('error', () => {
      watcher.close()
      watchers.delete(relative)
      resync()
    })
    watchers.set(relative, watcher)
  }
  const sync = async (): Promise<void> => {
    const present = await foldersOf(root, options.skipFolder ?? (() => false))
    if (closed) return
    for (const [relative, watcher] of watchers) {
      if (!present.has(relative)) {
        watcher.close()
        watchers.delete(relative)
      }
    }
    for (const relative of present) {
      if (watchers.has(relative)) continue
      watchFolder(relative)
      // Files written into a new folder before its watcher existed are a change too.
      if (relative !== '') onChange(relative)
    }
  }
  const resync = (): void => {
    if (again) return
    again = true
    syncing = syncing.then(() => {
      again = false
      return closed ? undefined : sync()
    })
  }
  watchFolder('')
  syncing = foldersOf(root, options.skipFolder ?? (() => false)).then((present) => {
    for (const relative of present) if (!closed && relative !== '' && !watchers.has(relative)) watchFolder(relative)
  })
  options.signal?.addEventListener('abort', close, {once: true})
  return {close, ready: () => syncing}
}

/** Every folder under `root` (`''` for the root itself), without entering a skipped one or following a link. */
async function foldersOf(root: string, skipFolder: (relativePath: string) => boolean): Promise<Set<string>> {
  const found = new Set<string>([''])
  const pending = ['']
  for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
    const entries = await readdir(relative === '' ? root : path.join(root, ...relative.split('/')), {withFileTypes: true}).catch(() => [])
    for (const entry of entries) {
      if (!entry.isDirectory()) continue
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (skipFolder(child)) continue
      found.add(child)
      pending.push(child)
    }
  }
  return found
}
