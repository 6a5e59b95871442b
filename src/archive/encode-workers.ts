import type {EncodedFile, FileToEncode} from './entry-encoder.js'
import {workerModuleBeside, WorkerPool, type WorkerFailure} from './worker-pool.js'
import {defaultWorkerCount, useWorkers} from './worker-use.js'

/**
 * Encoding workers: threads that read, check and encode small files in batches (see `encode-batch.ts`),
 * while the main thread shows the bytes they hand back to each source's `inspect` hook, records and writes
 * what they return. What a file becomes depends on its
 * bytes alone, never on which thread or how many encoded it, so the archive is the same with or without
 * them.
 */

/**
 * A batch sent to a worker, compact: the files' names and paths each joined into one string (a path never
 * holds a NUL), their sizes and their flags ({@link storeFlag}, {@link wantBytesFlag}) in typed arrays.
 * Cloning an object per file cost the main thread more than what it asked of the worker for a file of
 * 512 bytes (measured: a batch of 64 such objects about five times as long to post as this form).
 */
export interface BatchRequest {
  id: number
  names: string
  paths: string
  sizes: Uint32Array
  flags: Uint8Array
}

const storeFlag = 1
const wantBytesFlag = 2
const exactPathFlag = 4

/** The request for `files` (see {@link BatchRequest}). */
export function batchRequest(id: number, files: readonly FileToEncode[]): BatchRequest {
  return {
    id,
    names: files.map((file) => file.name).join('\0'),
    paths: files.map((file) => file.path).join('\0'),
    sizes: Uint32Array.from(files, (file) => file.size),
    flags: Uint8Array.from(files, (file) => (file.store ? storeFlag : 0) | (file.wantBytes ? wantBytesFlag : 0) | (file.exactPath ? exactPathFlag : 0)),
  }
}

/** The files a {@link BatchRequest} asks for. */
export function filesOfRequest(request: BatchRequest): FileToEncode[] {
  const names = request.names.split('\0')
  const paths = request.paths.split('\0')
  if (names.length !== request.sizes.length || paths.length !== request.sizes.length) throw new RangeError('A batch holds a name or a path with a NUL.')
  return Array.from(request.sizes, (size, position) => {
    const flags = request.flags[position]!
    return {name: names[position]!, path: paths[position]!, size, store: (flags & storeFlag) !== 0, wantBytes: (flags & wantBytesFlag) !== 0, exactPath: (flags & exactPathFlag) !== 0}
  })
}

/**
 * A batch's results, compact (a few objects per batch, not per file, so that what waits to be written does
 * not keep the main thread's heap large): per file, {@link slotWords} numbers in `slots` (1 when read, its
 * CRC-32, its method, where its data starts in `buffer` and its length, and which of `bytes` holds its
 * bytes, or {@link noBytes}), its digest as 64 hex digits in `sha256` (all the batch's in one string, in
 * order; zeros for a file that could not be read), and the files that could not be read in `failures`.
 */
export type BatchReply = EncodedBatch | WorkerFailure

/** A batch's results, see {@link BatchReply}; {@link encodedFileAt} reads one. */
export interface EncodedBatch {
  id: number
  buffer: ArrayBuffer
  slots: Uint32Array
  sha256: string
  /** The bytes handed back, each file's in a buffer of its own. */
  bytes: ArrayBuffer[]
  failures: BatchFailure[]
}

/** A file of a batch that could not be read: its position and the error, as plain data. */
export type BatchFailure = {position: number} & Omit<Extract<EncodedFile, {ok: false}>, 'ok'>

export const slotWords = 6
export const noBytes = 0xffffffff

/** Files in one batch at most, and input bytes. */
export const batchFilesMax = 64
export const batchBytesMax = 512 * 1024

/**
 * Worth starting workers for: at least this many files a worker takes, making up at least half of the
 * bytes to write. Starting a worker costs about as much as deflating a hundred such files; and where larger
 * files make up most of the bytes, their chunks keep every core busy on the thread pool already, and
 * workers beside them only add threads and memory (measured: slower, and 60 MiB more, on a tree of large
 * native libraries).
 */
const workerFilesMin = 256
/**
 * The files a worker takes: any file of at most 64 KiB but an empty one (stored, nothing to encode). Larger
 * ones are deflated in chunks on the thread pool already; a worker that deflated them would hold up to
 * tens of MiB of dead deflate output between its collections. Small files go too: for a file of 512 bytes
 * the open, the reads and the deflate cost more than what stays on the main thread (the secret scan, the
 * records, the writing), so with workers both cores share them (measured on 20,000 files of 512 bytes:
 * pack about 10 % faster in wall time, the archive the same bytes).
 */
export const workerFileMinBytes = 1
export const workerFileMaxBytes = 64 * 1024

/**
 * True for a file an encoding worker takes (see {@link workerFileMaxBytes}). A path holding a NUL, which no
 * file has, stays on the main thread, which refuses it: a batch joins its paths with NULs.
 */
export function encodesInWorker(source: {kind: string; size?: number; path?: string}): boolean {
  return source.kind === 'file' && source.size !== undefined && source.size >= workerFileMinBytes && source.size <= workerFileMaxBytes && source.path?.includes('\0') === false
}

/** Whether files of these sizes (those a worker takes), among `totalBytes` to write, are worth starting workers for (see `workerUse`). */
export function worthWorkers(sizes: readonly number[], totalBytes: number): boolean {
  return useWorkers(sizes.length >= workerFilesMin && 2 * sizes.reduce((sum, size) => sum + size, 0) >= totalBytes, sizes.length > 0)
}

/** The result for the file at `position` of a batch (made when its entry is taken, see {@link BatchReply}). */
export function encodedFileAt(batch: EncodedBatch, position: number): EncodedFile {
  const failure = batch.failures.find((failed) => failed.position === position)
  if (failure !== undefined) return {ok: false, code: failure.code, message: failure.message, details: failure.details}
  const {buffer, slots} = batch
  const at = position * slotWords
  const data = Buffer.from(buffer, slots[at + 3]!, slots[at + 4]!)
  const kept = slots[at + 5]!
  const bytes = kept === noBytes ? null : Buffer.from(batch.bytes[kept]!)
  return {ok: true, sha256: batch.sha256.slice(position * 64, position * 64 + 64), crc32: slots[at + 1]!, method: slots[at + 2] === 8 ? 8 : 0, data, bytes}
}

const workerModule = workerModuleBeside(import.meta.url, 'encode-worker')

/** A pool of encoding workers, one per core, each given batches in turn. */
export class EncodeWorkers {
  readonly #pool: WorkerPool<BatchRequest, EncodedBatch>

  /** `module`: the workers' (`encode-worker.ts` unless given); `count`: one per core unless given. */
  constructor(module: URL = workerModule, count = defaultWorkerCount()) {
    this.#pool = new WorkerPool(module, count, 'an encoding worker')
  }

  /** Batches the workers hold at once: one being encoded and one waiting each, so that none idles between them. */
  get depth(): number {
    return this.#pool.depth
  }

  /** Encodes `files` on the next worker; the promise settles with their results (see {@link encodedFileAt}). */
  encode(files: FileToEncode[]): Promise<EncodedBatch> {
    return this.#pool.run((id) => batchRequest(id, files))
  }

  /** Stops every worker; a batch still out is rejected. */
  close(): Promise<void> {
    return this.#pool.close()
  }
}
