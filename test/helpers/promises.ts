/** Resolves with the rejection of `promise`, failing the test if it fulfils. */
export async function rejectionOf(promise: Promise<unknown>): Promise<any> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected a rejection, but the promise fulfilled')
}
