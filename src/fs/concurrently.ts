/**
 * Runs `work` on every item, at most `concurrency` at a time, in order of the items. After a failure no
 * item is started any more; once every running one has settled (so nothing still writes when the caller
 * cleans up), the first failure is thrown.
 */
export async function forEachConcurrently<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  let failure: {error: unknown} | null = null
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === null) {
      try {
        await work(items[next++] as T)
      } catch (error) {
        failure ??= {error}
      }
    }
  }
  await Promise.all(Array.from({length: Math.max(1, Math.min(concurrency, items.length))}, worker))
  if (failure !== null) throw (failure as {error: unknown}).error
}
