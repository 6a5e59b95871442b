import {SvcPluginError} from '../errors.js'

/** Why `developPlugin` does not start. */
export type DevelopErrorCode = 'data-root-inside-plugin'

/** Thrown by `developPlugin` before its first round; nothing is written. */
export class DevelopError extends SvcPluginError<DevelopErrorCode> {}
