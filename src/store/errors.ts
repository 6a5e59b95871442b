import {SvcPluginError} from '../errors.js'

/** Every code the store upload verifier can throw (problems with the upload itself are in its report). */
export type StoreErrorCode =
  /** The account or the published versions handed to the verifier are unusable (a blank name, a version that is not SemVer). */
  | 'invalid-argument'
  /** `countersignUpload` was given an upload the store's verification refuses: a store countersigns only what it accepts. */
  | 'upload-refused'

/** Thrown by `verifyUpload` when its options cannot be used, and by `countersignUpload`; callers branch on `code`. */
export class StoreError extends SvcPluginError<StoreErrorCode> {}
