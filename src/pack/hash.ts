import {deflateChunkBytes} from '../archive/deflate.js'
import {digestSource} from '../archive/source.js'
import type {SourceFile} from './collect.js'

/** A source file with its digest. */
export interface HashedFile extends SourceFile {
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
 * Reads every file once and hashes it, checked as the archive writer checks what it reads (a file
 * whose size changed since it was listed is `source-changed`): what a dry run lists in `files[]`.
 */
export async function hashSourceFiles(files: readonly SourceFile[], options: {onProgress?: (progress: HashProgress) => void} = {}): Promise<HashedFile[]> {
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0)
  const progress: HashProgress = {files: 0, totalFiles: files.length, bytes: 0, totalBytes}
  const hashed: HashedFile[] = []
  for (const file of files) {
    const {sha256} = await digestSource(file.name, {kind: 'file', path: file.absolutePath, size: file.size}, deflateChunkBytes)
    hashed.push({...file, sha256})
    progress.files += 1
    progress.bytes += file.size
    options.onProgress?.({...progress})
  }
  return hashed
}
