/**
 * Every way one file of a package can disagree with its manifest's `files[]`, in the order a first-failure
 * check tries them: the one vocabulary of the validator, verification, install, merge and the store.
 */
export const fileProblemCodes = ['file-missing', 'file-size-mismatch', 'file-digest-mismatch', 'undeclared-file'] as const
/** One of {@link fileProblemCodes}. */
export type FileProblemCode = (typeof fileProblemCodes)[number]
