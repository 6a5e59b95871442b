/**
 * A digesting worker: a thread that checks, inflates and hashes batches of small artifact entries for the
 * artifact reader (`verifyWholeEntry` on each, inflated here whatever its size) and hands back the bytes of
 * those the reader keeps or that may hold a secret, so that reading an artifact of many entries uses every
 * core. The bytes handed back are moved, not copied, each in a buffer of its own.
 */
import {parentPort} from 'node:worker_threads'
import {wholeEntryMaxBytes} from '../archive/entry-stream.js'
import {ArchiveError} from '../archive/errors.js'
import type {ArchiveEntry} from '../archive/types.js'
import {verifyWholeEntry, type WholeEntry} from '../archive/whole-entries.js'
import {serveRequests} from '../archive/worker-pool.js'
import {keepFlag, lookFlag, memberWords, type DigestReply, type DigestRequest} from './entry-workers.js'
import {contentMayHoldSecret} from './secrets.js'

if (parentPort !== null) serveRequests(parentPort, digestBatch, (reply: DigestReply) => reply.bytes.filter((bytes) => bytes !== null))

/**
 * Where every entry is inflated: one buffer for the worker's life. A buffer per entry would be freed only
 * when the worker's heap is next collected, which a heap of small objects does late.
 */
const scratch = Buffer.allocUnsafeSlow(wholeEntryMaxBytes + 1)

function digestBatch(request: DigestRequest): DigestReply {
  const names = request.names.split('\0')
  if (names.length * memberWords !== request.numbers.length || names.length !== request.flags.length) throw new RangeError('A batch holds a name with a NUL.')
  const input = Buffer.from(request.buffer)
  const sha256: string[] = []
  const bytes: (ArrayBuffer | null)[] = []
  let refusal: DigestReply['refusal'] = null
  for (const [position, name] of names.entries()) {
    const [offset, compressedSize, uncompressedSize, crc32, method] = request.numbers.subarray(position * memberWords, position * memberWords + memberWords) as unknown as number[]
    const entry: ArchiveEntry = {name, method: method === 8 ? 8 : 0, compressedSize: compressedSize!, uncompressedSize: uncompressedSize!, crc32: crc32!, mode: 0}
    let whole: WholeEntry
    try {
      whole = verifyWholeEntry(entry, input.subarray(offset, offset! + compressedSize!), scratch) as WholeEntry
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error
      refusal = {position, code: error.code, message: error.message, details: error.details}
      break
    }
    sha256.push(whole.digest.sha256.slice('sha256:'.length))
    const flags = request.flags[position]!
    const handed = (flags & keepFlag) !== 0 || ((flags & lookFlag) !== 0 && contentMayHoldSecret(name, whole.data))
    // A copy in a buffer of its own: the bytes may be a view of the scratch buffer, which the next entry reuses.
    bytes.push(handed ? (Uint8Array.prototype.slice.call(whole.data).buffer as ArrayBuffer) : null)
  }
  return {id: request.id, sha256: sha256.join(''), bytes, refusal}
}
