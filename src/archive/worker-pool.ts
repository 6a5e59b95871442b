import {Worker, type Transferable} from 'node:worker_threads'

/**
 * A pool of worker threads that each answer numbered requests in turn: pack's encoding workers and the
 * entry-digesting workers of an artifact reader. What a worker answers depends on the request alone, never
 * on which worker or how many answered, so a result is the same with or without them ({@link workerUse}).
 */

/** A request and its reply carry the number the pool gave the request. */
export interface Numbered {
  id: number
}

/** The reply of a worker that could not handle a request at all (a bug, never a verdict on the input). */
export interface WorkerFailure extends Numbered {
  failure: string
}

/** The module of a worker beside `starter` (a module's `import.meta.url`), with the starter's extension (`.js` compiled, `.mjs` bundled). */
export function workerModuleBeside(starter: string, name: string): URL {
  return new URL(`./${name}${/\.[^./]+$/.exec(starter)?.[0] ?? '.js'}`, starter)
}

/** A pool of `count` workers running `module`, each given requests in turn (see the module comment). */
export class WorkerPool<Request extends Numbered, Reply extends Numbered> {
  readonly #workers: Worker[]
  readonly #waiting = new Map<number, {resolve: (reply: Reply) => void; reject: (error: Error) => void}>()
  readonly #role: string
  #next = 0
  #id = 0
  #closed = false
  /** Why the pool can answer no more: a worker failed or stopped, or the pool was closed. */
  #failure: Error | null = null

  /** `role` names a worker in errors (`an encoding worker`). */
  constructor(module: URL, count: number, role: string) {
    this.#role = role
    this.#workers = Array.from({length: count}, () => {
      const worker = new Worker(module, {resourceLimits: {maxYoungGenerationSizeMb: 4}})
      worker.on('message', (reply: Reply | WorkerFailure) => this.#answer(reply))
      worker.on('error', (error) => this.#failAll(error))
      worker.on('exit', (code) => {
        if (!this.#closed) this.#failAll(new Error(`${capitalised(role)} stopped (exit code ${code}).`))
      })
      return worker
    })
  }

  /** Requests the workers hold at once: one being answered and one waiting each, so that none idles between them. */
  get depth(): number {
    return this.#workers.length * 2
  }

  /** True when every worker holds two requests (see {@link depth}): one more would wait. */
  get busy(): boolean {
    return this.#waiting.size >= this.depth
  }

  /** Posts the request `make` numbers to the next worker, moving `transfer` to it; settles with the reply. */
  run(make: (id: number) => Request, transfer: readonly Transferable[] = []): Promise<Reply> {
    // A request posted to a worker that stopped would never be answered.
    if (this.#failure !== null) return Promise.reject(this.#failure)
    const id = this.#id++
    const worker = this.#workers[this.#next]!
    this.#next = (this.#next + 1) % this.#workers.length
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, {resolve, reject})
      worker.postMessage(make(id), [...transfer])
    })
  }

  /** Stops every worker; a request still out is rejected. */
  async close(): Promise<void> {
    this.#closed = true
    this.#failAll(new Error(`The pool of ${this.#role.replace(/^an? /, '')}s was stopped.`))
    await Promise.all(this.#workers.map((worker) => worker.terminate()))
  }

  #answer(reply: Reply | WorkerFailure): void {
    const waiting = this.#waiting.get(reply.id)
    if (waiting === undefined) return
    this.#waiting.delete(reply.id)
    if ('failure' in reply) waiting.reject(new Error(`${capitalised(this.#role)} failed: ${reply.failure}`))
    else waiting.resolve(reply)
  }

  #failAll(error: Error): void {
    this.#failure ??= error
    const waiting = [...this.#waiting.values()]
    this.#waiting.clear()
    for (const {reject} of waiting) reject(error)
  }
}

/**
 * Answers each request `answer` is given, in a worker, posting the reply back with what `transferOf` says it
 * moves; a request it cannot answer at all gets a {@link WorkerFailure}.
 */
export function serveRequests<Request extends Numbered, Reply extends Numbered>(
  port: {on(event: 'message', listener: (request: Request) => void): unknown; postMessage(message: unknown, transfer?: readonly Transferable[]): void},
  answer: (request: Request) => Reply,
  transferOf: (reply: Reply) => readonly Transferable[],
): void {
  port.on('message', (request) => {
    let reply: Reply | WorkerFailure
    try {
      reply = answer(request)
    } catch (error) {
      reply = {id: request.id, failure: error instanceof Error ? error.message : String(error)}
    }
    port.postMessage(reply, 'failure' in reply ? [] : [...transferOf(reply)])
  })
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
