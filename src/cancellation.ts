import {SvcPluginError} from './errors.js'

// Cancelling a long operation, as Node's own APIs do: the operation takes `signal?: AbortSignal`, and once
// the signal is aborted it rejects with an error named `AbortError` whose `cause` is the signal's reason,
// after undoing what it had begun (docs/cancellation.md). Every check of a signal in the library goes
// through this module, so that a test can count them and abort at each one in turn.

/** The code of an operation cancelled through its AbortSignal. */
export type CancelledErrorCode = 'cancelled'

/**
 * Rejects an operation whose AbortSignal was aborted. Like the AbortError of `fs.promises` and `fetch`,
 * its `name` is `AbortError` and its `cause` is the signal's reason; its `code` is the stable `cancelled`.
 * The operation has undone what it had begun: no output is left, a data root is as it was.
 */
export class CancelledError extends SvcPluginError<CancelledErrorCode> {
  override get name(): string {
    return 'AbortError'
  }
}

/** The error an operation rejects with once `signal` is aborted. */
export function cancelledError(signal: AbortSignal): CancelledError {
  const reason: unknown = signal.reason
  return new CancelledError('cancelled', `The operation was cancelled${reasonText(reason)}.`, {cause: reason})
}

/** What the reason of an abort adds to the message: nothing for a plain `abort()`, the deadline for a timeout. */
function reasonText(reason: unknown): string {
  if (!(reason instanceof Error) || reason.name === 'AbortError') return ''
  if (reason.name === 'TimeoutError') return ': its time ran out'
  return reason.message === '' ? '' : ` (${reason.message})`
}

/**
 * Throws {@link CancelledError} when `signal` is aborted: the one check of a signal, made between the steps
 * of an operation (entries, chunks, files, changes to disk).
 */
export function throwIfCancelled(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw cancelledError(signal)
}

/**
 * Between the steps of synchronous work (a walk that lists folders and takes statuses with synchronous
 * calls): lets the event loop turn, so that what aborts `signal` (a timer, Ctrl-C) can run, then throws
 * {@link CancelledError} when it did. Without a signal there is nothing to wait for.
 */
export async function cancellationPoint(signal: AbortSignal | undefined): Promise<void> {
  throwIfCancelled(signal)
  if (signal === undefined) return
  await new Promise((resolve) => setImmediate(resolve))
  throwIfCancelled(signal)
}

/**
 * Settles as `work` does, or rejects with {@link CancelledError} as soon as `signal` is aborted (at once
 * when it already is): for a wait whose work cannot itself be stopped and touches no disk (a batch of the
 * secret scan, a timer). `work` keeps running, and its failure is then ignored.
 */
export function cancellable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work
  if (signal.aborted) {
    work.catch(() => undefined)
    return Promise.reject(cancelledError(signal))
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelledError(signal))
    signal.addEventListener('abort', onAbort, {once: true})
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/**
 * Calls `onAbort` once when `signal` is aborted (at once when it already is); returns the function that
 * stops listening. For what is waiting and must be woken: streams to destroy, waits to fail.
 */
export function onCancel(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (signal === undefined) return () => undefined
  if (signal.aborted) {
    onAbort()
    return () => undefined
  }
  signal.addEventListener('abort', onAbort, {once: true})
  return () => signal.removeEventListener('abort', onAbort)
}

/**
 * True for the error of a cancelled operation: ours, or any error named `AbortError` (a Node API given the
 * signal). Code that turns failures into its own refusals lets these through unchanged.
 */
export function isCancellation(error: unknown): boolean {
  return error instanceof CancelledError || (error instanceof Error && error.name === 'AbortError')
}
