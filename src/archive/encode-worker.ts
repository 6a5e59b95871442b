/**
 * An encoding worker: a thread that reads, checks and encodes batches of small files for the archive writer
 * ({@link encodeWholeFile} on each), so that an archive of many small files uses every core. A batch comes
 * back as one buffer (moved, not copied) holding every file's data and, when asked for, its bytes.
 */
import {parentPort} from 'node:worker_threads'
import {outputBound} from './deflate.js'
import {encodeWholeFile, type FileToEncode} from './entry-encoder.js'
import {filesOfRequest, noBytes, slotWords, workerFileMaxBytes, type BatchFailure, type BatchRequest, type EncodedBatch} from './encode-workers.js'
import {serveRequests} from './worker-pool.js'

if (parentPort !== null) serveRequests(parentPort, (request: BatchRequest) => encodeBatch(request.id, filesOfRequest(request)), (reply: EncodedBatch) => [reply.buffer, reply.slots.buffer as ArrayBuffer])

/**
 * Where every file of a batch is read: one buffer for the worker's life. A buffer per file would be freed
 * only when the worker's heap is next collected, which a heap of small objects does late: tens of MiB of
 * dead file contents.
 */
const scratch = Buffer.allocUnsafeSlow(workerFileMaxBytes + 1)

function encodeBatch(id: number, files: readonly FileToEncode[]): EncodedBatch {
  // Room for every file's bytes and its data, which deflated is at most its deflate bound.
  const room = files.reduce((sum, file) => sum + file.size + outputBound(file.size), 0)
  const buffer = new ArrayBuffer(room)
  const target = new Uint8Array(buffer)
  const slots = new Uint32Array(files.length * slotWords)
  const sha256: string[] = []
  const failures: BatchFailure[] = []
  let offset = 0
  const place = (bytes: Buffer): number => {
    target.set(bytes, offset)
    offset += bytes.length
    return offset - bytes.length
  }
  files.forEach((request, position) => {
    const file = encodeWholeFile(request, scratch)
    if (!file.ok) {
      failures.push({position, code: file.code, message: file.message, details: file.details})
      sha256.push(noDigest)
      return
    }
    const data = place(file.data)
    const bytes = file.bytes === null ? noBytes : file.bytes === file.data ? data : place(file.bytes)
    slots.set([1, file.crc32, file.method, data, file.data.length, bytes, file.bytes?.length ?? 0], position * slotWords)
    sha256.push(file.sha256)
  })
  return {id, buffer, slots, sha256: sha256.join(''), failures}
}

/** The digest of a file that could not be read, in its place among the others (never read). */
const noDigest = '0'.repeat(64)
