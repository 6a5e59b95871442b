import {availableParallelism} from 'node:os'
import {Worker} from 'node:worker_threads'
import type {EncodedFile, FileToEncode} from './entry-encoder.js'
import {deflateChunkBytes} from './deflate.js'

/**
 * Encoding workers: threads that read, check and encode small files in batches (see `encode-worker.ts`),
 * while the main thread scans, records and writes what they return. What a file becomes depends on its
 * bytes alone, never on which thread or how many encoded it, so the archive is the same with or without
 * them.
 */

/** A batch sent to a worker. */
export interface BatchRequest {
  id: number
  files: FileToEncode[]
}

/** A file's result in a batch reply: its data and bytes as [offset, length] in the reply's buffer. */
export type EncodedSlot =
  | {ok: true; sha256: string; crc32: number; method: 0 | 8; data: [number, number]; bytes: [number, number] | null}
  | Extract<EncodedFile, {ok: false}>

/** A worker's reply: the batch's results, or why the worker could not encode it. */
export type BatchReply = {id: number; buffer: ArrayBuffer; slots: EncodedSlot[]} | {id: number; failure: string}

/** Files in one batch at most, and input bytes (a batch holds one file more when its first file is larger). */
export const batchFilesMax = 64
export const batchBytesMax = 1024 * 1024

/**
 * Worth starting workers for: this many files of one chunk, or this many bytes of them. Starting a worker
 * costs about as much as encoding a few hundred small files on the main thread.
 */
const workerFilesMin = 512
const workerBytesMin = 16 * 1024 * 1024

/** True for a file an encoding worker can take: a file source of one chunk that is not empty. */
export function encodesInWorker(source: {kind: string; size?: number}): boolean {
  return source.kind === 'file' && source.size !== undefined && source.size > 0 && source.size <= deflateChunkBytes
}

/**
 * When the writer starts workers: when they pay (`auto`), or `always` and `never`, which the tests use to
 * prove that an archive, and every refusal, is the same either way.
 */
export const workerUse: {when: 'auto' | 'always' | 'never'} = {when: 'auto'}

/** Whether files of these sizes (those a worker can take) are worth starting workers for. */
export function worthWorkers(sizes: readonly number[]): boolean {
  if (workerUse.when !== 'auto') return workerUse.when === 'always' && sizes.length > 0
  return sizes.length >= workerFilesMin || sizes.reduce((sum, size) => sum + size, 0) >= workerBytesMin
}

/** The worker module: beside this one, in the compiled modules and in the bundle alike. */
const workerModule = new URL('./encode-worker.js', import.meta.url)

/** A pool of encoding workers, one per core, each given batches in turn. */
export class EncodeWorkers {
  readonly #workers: Worker[]
  readonly #waiting = new Map<number, {resolve: (files: EncodedFile[]) => void; reject: (error: Error) => void}>()
  #next = 0
  #id = 0
  #closed = false

  constructor(count = Math.max(1, Math.min(4, availableParallelism()))) {
    this.#workers = Array.from({length: count}, () => {
      const worker = new Worker(workerModule, {resourceLimits: {maxYoungGenerationSizeMb: 4}})
      worker.on('message', (reply: BatchReply) => this.#answer(reply))
      worker.on('error', (error) => this.#failAll(error))
      worker.on('exit', (code) => {
        if (!this.#closed) this.#failAll(new Error(`An encoding worker stopped (exit code ${code}).`))
      })
      return worker
    })
  }

  /** Batches each worker holds at once: one being encoded, one waiting, so that none idles between them. */
  get depth(): number {
    return this.#workers.length * 2
  }

  /** Encodes `files` on the next worker; the promise settles with one result per file, in order. */
  encode(files: FileToEncode[]): Promise<EncodedFile[]> {
    const id = this.#id++
    const worker = this.#workers[this.#next]!
    this.#next = (this.#next + 1) % this.#workers.length
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, {resolve, reject})
      worker.postMessage({id, files} satisfies BatchRequest)
    })
  }

  /** Stops every worker; a batch still out is rejected. */
  async close(): Promise<void> {
    this.#closed = true
    this.#failAll(new Error('The encoding workers were stopped.'))
    await Promise.all(this.#workers.map((worker) => worker.terminate()))
  }

  #answer(reply: BatchReply): void {
    const waiting = this.#waiting.get(reply.id)
    if (waiting === undefined) return
    this.#waiting.delete(reply.id)
    if ('failure' in reply) {
      waiting.reject(new Error(`An encoding worker failed: ${reply.failure}`))
      return
    }
    const view = (slot: [number, number]) => Buffer.from(reply.buffer, slot[0], slot[1])
    waiting.resolve(reply.slots.map((slot): EncodedFile => (slot.ok ? {...slot, data: view(slot.data), bytes: slot.bytes === null ? null : view(slot.bytes)} : slot)))
  }

  #failAll(error: Error): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const {reject} of waiting) reject(error)
  }
}
