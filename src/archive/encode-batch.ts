/**
 * What an encoding worker does with a batch (see `encode-workers.ts`): each file read, checked and encoded
 * ({@link encodeWholeFile}), its data placed in one buffer moved back, not copied.
 */
import type {MessagePort, Transferable} from 'node:worker_threads'
import {outputBound} from './deflate.js'
import {encodeWholeFile, type FileToEncode} from './entry-encoder.js'
import {filesOfRequest, noBytes, slotWords, workerFileMaxBytes, type BatchFailure, type BatchRequest, type EncodedBatch} from './encode-workers.js'
import {serveRequests} from './worker-pool.js'

/**
 * Which of the bytes asked for come back, judged on the thread that read them: true when the file's source
 * must see them. A file whose bytes do not come back is not shown to its source's `inspect` hook.
 */
export type BytesWanted = (name: string, bytes: Buffer) => boolean

/** Hands back the bytes of every file whose source asked for them. */
const everyFile: BytesWanted = () => true

/** Answers the batches posted to `port` (a worker's parent port), handing back the bytes `wanted` says. */
export function serveEncodeBatches(port: MessagePort, wanted: BytesWanted = everyFile): void {
  serveRequests(port, (request: BatchRequest) => encodeBatch(request.id, filesOfRequest(request), wanted), transferOf)
}

function transferOf(reply: EncodedBatch): Transferable[] {
  return [reply.buffer, reply.slots.buffer as ArrayBuffer, ...reply.bytes]
}

/**
 * Where every file of a batch is read: one buffer for the worker's life. A buffer per file would be freed
 * only when the worker's heap is next collected, which a heap of small objects does late: tens of MiB of
 * dead file contents.
 */
let scratch: Buffer | undefined

function encodeBatch(id: number, files: readonly FileToEncode[], wanted: BytesWanted): EncodedBatch {
  scratch ??= Buffer.allocUnsafeSlow(workerFileMaxBytes + 1)
  // Room for every file's data, which deflated is at most its deflate bound. Bytes handed back (seldom)
  // come in buffers of their own, so that the room does not double for them.
  const room = files.reduce((sum, file) => sum + outputBound(file.size), 0)
  const buffer = new ArrayBuffer(room)
  const target = new Uint8Array(buffer)
  const slots = new Uint32Array(files.length * slotWords)
  const sha256: string[] = []
  const bytes: ArrayBuffer[] = []
  const failures: BatchFailure[] = []
  let offset = 0
  files.forEach((request, position) => {
    const file = encodeWholeFile(request, scratch)
    if (!file.ok) {
      failures.push({position, code: file.code, message: file.message, details: file.details})
      sha256.push(noDigest)
      return
    }
    target.set(file.data, offset)
    let kept = noBytes
    if (file.bytes !== null && wanted(request.name, file.bytes)) {
      kept = bytes.length
      bytes.push(new Uint8Array(file.bytes).buffer)
    }
    slots.set([1, file.crc32, file.method, offset, file.data.length, kept], position * slotWords)
    offset += file.data.length
    sha256.push(file.sha256)
  })
  return {id, buffer, slots, sha256: sha256.join(''), bytes, failures}
}

/** The digest of a file that could not be read, in its place among the others (never read). */
const noDigest = '0'.repeat(64)
