import {SvcPluginError} from '../errors.js'

/** Why `inspect` could not describe its subject. */
export type InspectErrorCode = 'file-not-found' | 'manifest-missing' | 'manifest-malformed'

/** Thrown by `inspect` when there is no readable manifest to describe. */
export class InspectError extends SvcPluginError<InspectErrorCode> {}
