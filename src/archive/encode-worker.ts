/**
 * An encoding worker: a thread that reads, checks and encodes batches of small files for the archive writer
 * ({@link encodeWholeFile} on each), so that an archive of many small files uses every core. A batch comes
 * back as one buffer (moved, not copied) holding every file's data and, when asked for, its bytes.
 */
import {parentPort} from 'node:worker_threads'
import {encodeWholeFile, type FileToEncode} from './entry-encoder.js'
import type {BatchReply, BatchRequest, EncodedSlot} from './encode-workers.js'

parentPort?.on('message', ({id, files}: BatchRequest) => {
  let reply: BatchReply
  try {
    reply = encodeBatch(id, files)
  } catch (error) {
    reply = {id, failure: error instanceof Error ? error.message : String(error)}
  }
  parentPort!.postMessage(reply, 'buffer' in reply ? [reply.buffer] : [])
})

function encodeBatch(id: number, files: readonly FileToEncode[]): BatchReply {
  const encoded = files.map(encodeWholeFile)
  let total = 0
  for (const file of encoded) if (file.ok) total += file.data.length + (file.bytes !== null && file.bytes !== file.data ? file.bytes.length : 0)
  const buffer = new ArrayBuffer(total)
  const target = new Uint8Array(buffer)
  let offset = 0
  const place = (bytes: Buffer): [number, number] => {
    target.set(bytes, offset)
    offset += bytes.length
    return [offset - bytes.length, bytes.length]
  }
  const slots = encoded.map((file): EncodedSlot => {
    if (!file.ok) return file
    const data = place(file.data)
    const bytes = file.bytes === null ? null : file.bytes === file.data ? data : place(file.bytes)
    return {ok: true, sha256: file.sha256, crc32: file.crc32, method: file.method, data, bytes}
  })
  return {id, buffer, slots}
}
