import {rmSync, rmdirSync} from 'node:fs'

/** A file or folder this process created that must not outlive an interrupted process. */
interface Unfinished {
  readonly path: string
  readonly kind: 'file' | 'folder' | 'tree'
}

/** What is now unfinished, in the order it was created. */
const live = new Set<Unfinished>()

function track(entry: Unfinished): () => void {
  live.add(entry)
  return () => {
    live.delete(entry)
  }
}

/**
 * Registers a temporary file (a partial archive beside its output), or an output not yet complete, so
 * that an interrupted command can remove it; returns the function that forgets it again once it was
 * renamed, removed or kept.
 */
export function trackTemporaryFile(file: string): () => void {
  return track({path: file, kind: 'file'})
}

/**
 * Registers a folder created to hold an output, so that an interrupted command removes it (when empty);
 * returns the function that forgets it once the operation kept or removed it.
 */
export function trackCreatedFolder(dir: string): () => void {
  return track({path: dir, kind: 'folder'})
}

/**
 * Registers a folder this process fills and owns whole (an install's staging directory), so that an
 * interrupted command removes it with everything in it; returns the function that forgets it once it was
 * removed or handed on.
 */
export function trackTemporaryTree(dir: string): () => void {
  return track({path: dir, kind: 'tree'})
}

/**
 * Removes every tracked file and folder at once, the newest first, so a file goes before the folder
 * created to hold it; a folder only when it is empty. Synchronous, for a signal handler that is about to
 * end the process: nothing half-written, and no folder made for it, stays after Ctrl-C.
 */
export function removeTemporaryFilesSync(): void {
  for (const entry of [...live].reverse()) {
    try {
      if (entry.kind === 'file') rmSync(entry.path, {force: true})
      else if (entry.kind === 'tree') rmSync(entry.path, {recursive: true, force: true})
      else rmdirSync(entry.path)
    } catch {
      // Best effort: the process is ending; what cannot be removed (a folder someone else filled) stays.
    }
  }
  live.clear()
}
