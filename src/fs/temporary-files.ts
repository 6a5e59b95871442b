import {rmSync} from 'node:fs'

/** Temporary files now being written, which must not outlive an interrupted process. */
const live = new Set<string>()

/**
 * Registers a temporary file (a partial archive beside its output) so that an interrupted command can
 * remove it; returns the function that forgets it again once it was renamed or removed.
 */
export function trackTemporaryFile(file: string): () => void {
  live.add(file)
  return () => {
    live.delete(file)
  }
}

/**
 * Removes every tracked temporary file at once. Synchronous, for a signal handler that is about to end
 * the process: nothing half-written stays beside an output after Ctrl-C.
 */
export function removeTemporaryFilesSync(): void {
  for (const file of live) {
    try {
      rmSync(file, {force: true})
    } catch {
      // Best effort: the process is ending; a file that cannot be removed is left as it is.
    }
  }
  live.clear()
}
