/**
 * An encoding worker: a thread that reads, checks and encodes batches of small files for the archive writer
 * ({@link encodeWholeFile} on each), so that an archive of many small files uses every core. A batch comes
 * back as one buffer (moved, not copied) holding every file's data and, when asked for, its bytes.
 */
import {parentPort} from 'node:worker_threads'
import {encodeWholeFile, type FileToEncode} from './entry-encoder.js'
import {noBytes, slotWords, type BatchFailure, type BatchReply, type BatchRequest} from './encode-workers.js'

parentPort?.on('message', ({id, files}: BatchRequest) => {
  let reply: BatchReply
  try {
    reply = encodeBatch(id, files)
  } catch (error) {
    reply = {id, failure: error instanceof Error ? error.message : String(error)}
  }
  parentPort!.postMessage(reply, 'buffer' in reply ? [reply.buffer, reply.slots.buffer as ArrayBuffer] : [])
})

function encodeBatch(id: number, files: readonly FileToEncode[]): BatchReply {
  const encoded = files.map(encodeWholeFile)
  let total = 0
  for (const file of encoded) if (file.ok) total += file.data.length + (file.bytes !== null && file.bytes !== file.data ? file.bytes.length : 0)
  const buffer = new ArrayBuffer(total)
  const target = new Uint8Array(buffer)
  const slots = new Uint32Array(encoded.length * slotWords)
  const sha256: string[] = []
  const failures: BatchFailure[] = []
  let offset = 0
  const place = (bytes: Buffer): number => {
    target.set(bytes, offset)
    offset += bytes.length
    return offset - bytes.length
  }
  encoded.forEach((file, position) => {
    const slot = position * slotWords
    if (!file.ok) {
      failures.push({position, code: file.code, message: file.message, details: file.details})
      sha256.push('')
      return
    }
    const data = place(file.data)
    const bytes = file.bytes === null ? noBytes : file.bytes === file.data ? data : place(file.bytes)
    slots.set([1, file.crc32, file.method, data, file.data.length, bytes, file.bytes?.length ?? 0], slot)
    sha256.push(file.sha256)
  })
  return {id, buffer, slots, sha256, failures}
}
