import {deflateChunkBytes} from '../archive/deflate.js'
import {throwIfCancelled} from '../cancellation.js'
import {digestSource, type WriterSource} from '../archive/source.js'

/** A file of the source tree to hash: its package path and where its bytes are. */
export interface FileToHash {
  name: string
  source: Extract<WriterSource, {kind: 'file'}>
}

/** A source file with its digest. */
export interface HashedFile {
  name: string
  size: number
  /** `sha256:` + 64 lowercase hex digits. */
  sha256: string
}

/** Progress of a long pass over the source tree. */
export interface HashProgress {
  files: number
  totalFiles: number
  bytes: number
  totalBytes: number
}

/**
 * Reads every file once and hashes it (showing a small file whole to its source's `inspect`), checked as
 * the archive writer checks what it reads (a file whose size changed since it was listed is
 * `source-changed`): what a dry run lists in `files[]`. Once `signal` is aborted, the next file or chunk is
 * not read (its `AbortError` instead).
 */
export async function hashSourceFiles(files: readonly FileToHash[], options: {onProgress?: (progress: HashProgress) => void; signal?: AbortSignal} = {}): Promise<HashedFile[]> {
  const totalBytes = files.reduce((sum, file) => sum + file.source.size, 0)
  const progress: HashProgress = {files: 0, totalFiles: files.length, bytes: 0, totalBytes}
  const hashed: HashedFile[] = []
  for (const file of files) {
    throwIfCancelled(options.signal)
    const {size, sha256} = await digestSource(file.name, file.source, deflateChunkBytes, options.signal)
    hashed.push({name: file.name, size, sha256})
    progress.files += 1
    progress.bytes += size
    options.onProgress?.({...progress})
  }
  return hashed
}
