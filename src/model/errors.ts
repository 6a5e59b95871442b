import {SvcPluginError} from '../errors.js'

/** Codes a value rule of `src/model` can throw. */
export type ModelErrorCode = 'invalid-version' | 'invalid-range' | 'invalid-entrypoint'

/** Thrown when a model function that cannot return "no" is handed a value outside its grammar. */
export class ModelError extends SvcPluginError<ModelErrorCode> {}
