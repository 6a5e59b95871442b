import {ArchiveError, type ArchiveErrorCode, type ArchiveErrorDetails} from '../archive/errors.js'
import type {ArchiveEntry, BatchMember, DigestedMember} from '../archive/types.js'
import {workerModuleBeside, WorkerPool} from '../archive/worker-pool.js'
import {defaultWorkerCount} from '../archive/worker-use.js'

/**
 * Digesting workers: threads that check, inflate and hash the small entries of an artifact a batch at a time
 * (see `entry-worker.ts`) and take a first look at each for secrets, while the main thread reads the batches
 * from the file and records the digests. An entry's verdict depends on its bytes alone: the digests, the
 * refusals and the secrets found are the same with or without workers.
 */

/**
 * A batch sent to a worker, compact: the batch's bytes as the file holds them (moved, not copied), the
 * members' names joined by NULs, per member {@link memberWords} numbers (where its data starts in the
 * buffer, its compressed and declared sizes, its CRC-32 and its method) and its {@link keepFlag} and
 * {@link lookFlag}.
 */
export interface DigestRequest {
  id: number
  buffer: ArrayBuffer
  names: string
  numbers: Uint32Array
  flags: Uint8Array
}

/**
 * A batch's results: per member verified, the 64 hex digits of its SHA-256 (all in one string, in order) and
 * the bytes handed back for it (moved, each in a buffer of its own: one copy, held no longer than the batch),
 * or null; `refusal`, that of the first member that lies (no member after it was looked at).
 */
export interface DigestReply {
  id: number
  sha256: string
  bytes: (ArrayBuffer | null)[]
  refusal: {position: number; code: ArchiveErrorCode; message: string; details: ArchiveErrorDetails} | null
}

export const memberWords = 5
/** The member's bytes are handed back. */
export const keepFlag = 1
/** The member's bytes are handed back when they may hold a secret (see `contentMayHoldSecret`). */
export const lookFlag = 2

/** What the caller wants of a member's bytes: them always (`keep`), them when they may hold a secret (`look`), or nothing. */
export type MemberWant = 'keep' | 'look' | null

/** Each member's {@link memberWords} numbers, in order. */
function numbersOf(members: readonly BatchMember[]): Uint32Array {
  const numbers = new Uint32Array(members.length * memberWords)
  members.forEach(({entry, offset}, position) => {
    const at = position * memberWords
    numbers[at] = offset
    numbers[at + 1] = entry.compressedSize
    numbers[at + 2] = entry.uncompressedSize
    numbers[at + 3] = entry.crc32
    numbers[at + 4] = entry.method
  })
  return numbers
}

function flagOf(want: MemberWant): number {
  return want === 'keep' ? keepFlag : want === 'look' ? lookFlag : 0
}

const workerModule = workerModuleBeside(import.meta.url, 'entry-worker')

/**
 * A pool of digesting workers, one per core but one: the main thread, which has little else to do while they
 * work, digests a batch itself whenever every worker holds two (while they start, too: a worker takes about
 * as long to start as 5 MiB of entries take to digest). Measured on 1,000 modules of 50 KiB (validate,
 * two cores, load 2.4): one worker beside the main thread 0.82 of the time without workers, two 0.88, two
 * that took every batch once started 0.93.
 */
export class DigestWorkers {
  readonly #pool: WorkerPool<DigestRequest, DigestReply>

  /** `module` is the worker's, but for tests. */
  constructor(count = Math.max(1, defaultWorkerCount() - 1), module: URL = workerModule) {
    this.#pool = new WorkerPool(module, count, 'a digesting worker')
  }

  /**
   * Checks and digests `members` from `compressed` (a buffer of their own, moved to the worker) on the next
   * worker: each member's digest, and its bytes as `want` asks; rejects with the refusal of the first member
   * that lies, as `archive.digestEntries` does on this thread. Null while every worker holds two batches:
   * the caller digests this one itself.
   */
  digest(members: readonly BatchMember[], compressed: Buffer, want: (entry: ArchiveEntry) => MemberWant): Promise<DigestedMember[]> | null {
    if (this.#pool.busy) return null
    return this.#digest(members, compressed, want)
  }

  async #digest(members: readonly BatchMember[], compressed: Buffer, want: (entry: ArchiveEntry) => MemberWant): Promise<DigestedMember[]> {
    const buffer = compressed.byteOffset === 0 && compressed.byteLength === compressed.buffer.byteLength ? compressed.buffer : Uint8Array.prototype.slice.call(compressed).buffer
    const request = (id: number): DigestRequest => ({
      id,
      buffer: buffer as ArrayBuffer,
      names: members.map(({entry}) => entry.name).join('\0'),
      numbers: numbersOf(members),
      flags: Uint8Array.from(members, ({entry}) => flagOf(want(entry))),
    })
    const reply = await this.#pool.run(request, [buffer as ArrayBuffer])
    if (reply.refusal !== null) throw new ArchiveError(reply.refusal.code, reply.refusal.message, reply.refusal.details)
    return members.map(({entry}, position): DigestedMember => {
      const bytes = reply.bytes[position]!
      return {digest: {size: entry.uncompressedSize, sha256: `sha256:${reply.sha256.slice(64 * position, 64 * position + 64)}`}, bytes: bytes === null ? null : Buffer.from(bytes)}
    })
  }

  close(): Promise<void> {
    return this.#pool.close()
  }
}

