import {Worker} from 'node:worker_threads'

/**
 * A thread that creates new files and writes their bytes (see `write-worker.ts`), for a caller that makes
 * thousands of small files: on the main thread each file costs four trips to the thread pool (create, mode,
 * write, close), and for a file of 512 bytes those trips cost far more than the writing; the thread makes the
 * same system calls one after another, beside the main thread. Measured: 20,000 files of 512 bytes in
 * 0.55 s instead of 2.4 s. Files are handed over through `mutations.ts` (`createFilesOn`), which calls the
 * mutation hook for each before any file of the batch is made.
 */

/** A file to create: its path (never an existing file, never through a link), its exact mode, its bytes. */
export interface NewFile {
  file: string
  mode: number
  bytes: Uint8Array
}

/** A batch sent to the thread. */
export interface WriteRequest {
  id: number
  files: readonly NewFile[]
}

/**
 * What the thread did with a batch: every file made (`failure` null), or the files before `failure.position`
 * made and that one failed with a file-system error, given as plain data.
 */
export interface WriteReply {
  id: number
  failure: {position: number; message: string; code: string | null; errno: number | null; syscall: string | null; path: string | null} | null
  /** The buffers that held the batch's bytes, moved back. */
  buffers: ArrayBuffer[]
}

/** The flags of every file the thread creates: new, never through a link, for writing. */
export interface WriterFlags {
  create: number
}

/**
 * When files are written on the thread: when it pays (`auto`: at least {@link writerFilesMin} files), or
 * `always` and `never`, which the tests use to prove that what is written, and every failure, is the same
 * either way.
 */
export const fileWriterUse: {when: 'auto' | 'always' | 'never'} = {when: 'auto'}

/**
 * From how many small files a thread pays for itself: starting one costs about 30 ms, the thread pool about
 * 0.1 ms more per file than the thread.
 */
export const writerFilesMin = 256

/** Whether `count` small files are to be written on a {@link FileWriter}. */
export function worthFileWriter(count: number): boolean {
  if (fileWriterUse.when !== 'auto') return fileWriterUse.when === 'always' && count > 0
  return count >= writerFilesMin
}

/** The worker module: beside this one, with the same extension (`.js` compiled, `.mjs` in the bundle). */
const workerModule = new URL(`./write-worker${/\.[^./]+$/.exec(import.meta.url)?.[0] ?? '.js'}`, import.meta.url)

/** One thread that creates files in batches, in the order given. */
export class FileWriter {
  readonly #worker: Worker
  readonly #waiting = new Map<number, {resolve: (buffers: ArrayBuffer[]) => void; reject: (error: Error) => void}>()
  #id = 0
  #closed = false

  constructor(flags: WriterFlags) {
    this.#worker = new Worker(workerModule, {workerData: flags, resourceLimits: {maxYoungGenerationSizeMb: 4}})
    this.#worker.on('message', (reply: WriteReply) => this.#answer(reply))
    this.#worker.on('error', (error) => this.#failAll(error))
    this.#worker.on('exit', (code) => {
      if (!this.#closed) this.#failAll(new Error(`The file-writing thread stopped (exit code ${code}).`))
    })
  }

  /**
   * Creates and writes `files` in order; resolves once all are made, with the buffers that held their bytes
   * (moved to the thread with the call, and back, to be filled again), or rejects with the file-system error
   * of the first that failed (as `fs.promises` would throw it: `code`, `syscall`, `path`), the ones before
   * it made and none after it. Call it through `createFilesOn` (mutations.ts).
   */
  write(files: readonly NewFile[]): Promise<ArrayBuffer[]> {
    const id = this.#id++
    // The bytes are moved, not copied, when they are views of one buffer the caller gives up.
    const buffers = [...new Set(files.map((file) => file.bytes.buffer))].filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer)
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, {resolve, reject})
      this.#worker.postMessage({id, files} satisfies WriteRequest, buffers)
    })
  }

  /** Stops the thread once what it was given is settled; a batch still out is rejected. */
  async close(): Promise<void> {
    this.#closed = true
    this.#failAll(new Error('The file-writing thread was stopped.'))
    await this.#worker.terminate()
  }

  #answer({id, failure, buffers}: WriteReply): void {
    const waiting = this.#waiting.get(id)
    if (waiting === undefined) return
    this.#waiting.delete(id)
    if (failure === null) {
      waiting.resolve(buffers)
      return
    }
    const {message, code, errno, syscall, path} = failure
    waiting.reject(Object.assign(new Error(message), code === null ? {} : {code}, errno === null ? {} : {errno}, syscall === null ? {} : {syscall}, path === null ? {} : {path}))
  }

  #failAll(error: Error): void {
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const {reject} of waiting) reject(error)
  }
}
