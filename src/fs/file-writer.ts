import type {Worker} from 'node:worker_threads'

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
 * either way; and, for the tests of a thread that cannot be started, the module it runs.
 */
export const fileWriterUse: {when: 'auto' | 'always' | 'never'; module?: URL} = {when: 'auto'}

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

/** What the thread posts once its module has loaded and it takes batches. */
export interface WriterReady {
  ready: true
}

/** One thread that creates files in batches, in the order given. */
export class FileWriter {
  readonly #worker: Worker
  readonly #waiting = new Map<number, {resolve: (buffers: ArrayBuffer[]) => void; reject: (error: Error) => void}>()
  #id = 0
  #closed = false
  /** Why the thread can take no more batches: it failed or stopped. */
  #dead: Error | null = null

  /**
   * Starts a thread and resolves once it takes batches, or with null when it cannot be started (a process
   * out of descriptors or memory, a module that cannot be loaded): the caller then writes the files itself.
   */
  static async start(flags: WriterFlags): Promise<FileWriter | null> {
    // Loaded here, not with this module: Node's worker threads cost every install a few milliseconds to load.
    const {Worker} = await import('node:worker_threads')
    return new Promise((resolve) => {
      let worker: Worker
      try {
        worker = new Worker(fileWriterUse.module ?? workerModule, {workerData: flags, resourceLimits: {maxYoungGenerationSizeMb: 4}})
      } catch {
        resolve(null)
        return
      }
      const failed = (): void => {
        worker.off('message', ready).on('error', () => undefined)
        void worker.terminate()
        resolve(null)
      }
      const ready = (message: WriterReady | WriteReply): void => {
        if (!('ready' in message)) return
        worker.off('error', failed).off('exit', failed).off('message', ready)
        resolve(new FileWriter(worker))
      }
      worker.on('message', ready).once('error', failed).once('exit', failed)
    })
  }

  private constructor(worker: Worker) {
    this.#worker = worker
    this.#worker.on('message', (reply: WriteReply) => this.#answer(reply))
    this.#worker.on('error', (error) => this.#fail(error))
    this.#worker.on('exit', (code) => {
      if (!this.#closed) this.#fail(new Error(`The file-writing thread stopped (exit code ${code}).`))
    })
  }

  /**
   * Creates and writes `files` in order; resolves once all are made, with the buffers that held their bytes
   * (moved to the thread with the call, and back, to be filled again), or rejects with the file-system error
   * of the first that failed (as `fs.promises` would throw it: `code`, `syscall`, `path`), the ones before
   * it made and none after it; at once when the thread has failed or stopped. Call it through
   * `createFilesOn` (mutations.ts).
   */
  write(files: readonly NewFile[]): Promise<ArrayBuffer[]> {
    if (this.#dead !== null) return Promise.reject(this.#dead)
    const id = this.#id++
    // The bytes are moved, not copied, when they are views of one buffer the caller gives up.
    const buffers = [...new Set(files.map((file) => file.bytes.buffer))].filter((buffer): buffer is ArrayBuffer => buffer instanceof ArrayBuffer)
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, {resolve, reject})
      this.#worker.postMessage({id, files} satisfies WriteRequest, buffers)
    })
  }

  /** Stops the thread; a batch still out is rejected. Safe to call twice. */
  async close(): Promise<void> {
    this.#closed = true
    this.#fail(new Error('The file-writing thread was stopped.'))
    await this.#worker.terminate()
  }

  #answer(reply: WriteReply): void {
    const {id, failure, buffers} = reply
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

  /** Rejects every batch out, and every later one. */
  #fail(error: Error): void {
    this.#dead ??= error
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const {reject} of waiting) reject(error)
  }
}
