import {SvcPluginError} from '../errors.js'

/** Codes of a validation run that could not judge its subject at all (exit 2 or 3 in the CLI). */
export type ValidationErrorCode = 'too-many-selectors' | 'file-not-found' | 'unreadable'

/** Thrown by `validatePath` when there is nothing to validate; a manifest's own problems are diagnostics, never this. */
export class ValidationError extends SvcPluginError<ValidationErrorCode> {}
