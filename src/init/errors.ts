import {SvcPluginError} from '../errors.js'

/** Why `initPlugin` wrote nothing: a value for the manifest that would not validate. */
export type InitErrorCode = 'invalid-argument'

/** Thrown by `initPlugin` for a value that would make the new manifest invalid; nothing is written. */
export class InitError extends SvcPluginError<InitErrorCode> {}
