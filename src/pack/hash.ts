import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {promisify} from 'node:util'
import {deflateRaw} from 'node:zlib'
import type {SourceFile} from './collect.js'
import {PackError} from './errors.js'

const deflateRawAsync = promisify(deflateRaw)

/** Bytes at the start of each file that decide whether deflate is worth trying (DESIGN §5.4). */
export const probeBytes = 16 * 1024

/** A source file with its digest and its storage decision. */
export interface HashedFile extends SourceFile {
  /** `sha256:` + 64 lowercase hex digits. */
  sha256: string
  /** True when the entry is stored rather than deflated. */
  store: boolean
}

/** Progress of a long pass over the source tree. */
export interface HashProgress {
  files: number
  totalFiles: number
  bytes: number
  totalBytes: number
}

/**
 * Reads every file once: SHA-256 of all its bytes, and a deflate probe of its first bytes.
 * A file whose probe does not shrink (already compressed or random data) is stored: deflating
 * it would cost time and gain nothing. Files are read a few at a time so both cores stay busy
 * (hashing here, probing on the thread pool) while memory stays bounded.
 */
export async function hashSourceFiles(
  files: readonly SourceFile[],
  options: {concurrency?: number; onProgress?: (progress: HashProgress) => void} = {},
): Promise<HashedFile[]> {
  const concurrency = options.concurrency ?? 4
  const totalBytes = files.reduce((sum, file) => sum + file.size, 0)
  const progress: HashProgress = {files: 0, totalFiles: files.length, bytes: 0, totalBytes}
  const hashed: HashedFile[] = new Array(files.length)
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const index = next++
      const file = files[index]!
      hashed[index] = await hashOne(file)
      progress.files += 1
      progress.bytes += file.size
      options.onProgress?.(progress)
    }
  }
  await Promise.all(Array.from({length: Math.min(concurrency, files.length)}, worker))
  return hashed
}

async function hashOne(file: SourceFile): Promise<HashedFile> {
  const hash = createHash('sha256')
  const head: Buffer[] = []
  let headLength = 0
  let size = 0
  for await (const chunk of createReadStream(file.absolutePath, {highWaterMark: 1024 * 1024}) as AsyncIterable<Buffer>) {
    hash.update(chunk)
    size += chunk.length
    if (headLength < probeBytes) {
      const part = chunk.subarray(0, probeBytes - headLength)
      head.push(part)
      headLength += part.length
    }
  }
  if (size !== file.size) {
    throw new PackError('source-changed', `${file.name} changed size while it was being packed (${file.size} → ${size} bytes). Pack again once the build has finished writing.`, {
      details: {path: file.name},
    })
  }
  return {...file, sha256: `sha256:${hash.digest('hex')}`, store: await probeSaysStore(Buffer.concat(head, headLength))}
}

/** Empty files and samples that deflate does not shrink are stored. */
async function probeSaysStore(sample: Buffer): Promise<boolean> {
  if (sample.length === 0) return true
  const deflated = await deflateRawAsync(sample, {level: 1})
  return deflated.length >= sample.length
}
