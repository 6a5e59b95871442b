/**
 * The changes a development loop has seen and not yet acted on, and when to act: once `quietMs` have passed
 * since the last of them, so that a burst of saves (an editor writing several files, a build rewriting a
 * folder) is one round with every path of the burst.
 */
export class ChangeQueue {
  readonly #pending = new Set<string>()
  #timer: NodeJS.Timeout | undefined
  #settled = false
  #waiter: ((changed: string[] | null) => void) | undefined

  constructor(
    private readonly quietMs: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    signal?.addEventListener('abort', () => this.#wake(), {once: true})
  }

  /** Records a change to `relativePath` (`null`: a change the system did not name) and restarts the quiet period. */
  add(relativePath: string | null): void {
    this.#pending.add(relativePath ?? '.')
    this.#settled = false
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      this.#settled = true
      this.#wake()
    }, this.quietMs)
  }

  /**
   * The paths changed since the last call, sorted, once they have been quiet for `quietMs` (at once when
   * they already have); null once the signal is aborted.
   */
  next(): Promise<string[] | null> {
    return new Promise((resolve) => {
      this.#waiter = resolve
      this.#wake()
    })
  }

  #wake(): void {
    const waiter = this.#waiter
    if (waiter === undefined) return
    if (this.signal?.aborted === true) {
      clearTimeout(this.#timer)
      this.#waiter = undefined
      waiter(null)
    } else if (this.#settled) {
      this.#waiter = undefined
      this.#settled = false
      const changed = [...this.#pending].sort()
      this.#pending.clear()
      waiter(changed)
    }
  }
}
