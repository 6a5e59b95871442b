import {SvcPluginError} from '../errors.js'

/** Every code the store upload verifier can throw (problems with the upload itself are in its report). */
export type StoreErrorCode =
  /** The account or the published versions handed to the verifier are unusable (a blank name, a version that is not SemVer). */
  'invalid-argument'

/** Thrown by `verifyUpload` when its options cannot be used; callers branch on `code`. */
export class StoreError extends SvcPluginError<StoreErrorCode> {}
