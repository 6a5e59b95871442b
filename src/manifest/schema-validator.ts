import {Ajv2020} from 'ajv/dist/2020.js'
import type {ValidateFunction} from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import {manifestSchema} from './schema.js'

// ajv-formats is CommonJS with its function as the default export's `default`.
const addFormats = ((addFormatsModule as unknown as {default?: typeof addFormatsModule}).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020

let ajv: Ajv2020 | undefined
let compiled: ValidateFunction | undefined

/** The one Ajv instance: draft 2020-12, strict, every error, ajv-formats, the annotation keyword. */
function sharedAjv(): Ajv2020 {
  if (ajv === undefined) {
    // verbose: errors carry the failing value, which messages quote.
    // optimize: false: a manifest is validated once per process, so compiling fast beats running fast.
    ajv = new Ajv2020({strict: true, allErrors: true, verbose: true, code: {optimize: false}})
    addFormats(ajv)
    ajv.addKeyword({keyword: 'x-svc-requirement', schemaType: 'string'})
  }
  return ajv
}

/** The compiled validator of the manifest schema, built once on first use. */
export function manifestValidator(): ValidateFunction {
  compiled ??= sharedAjv().compile(manifestSchema)
  return compiled
}

/** True when `value` is a string in JSON Schema format `format` (as ajv-formats defines it, e.g. `date-time`). */
export function matchesFormat(format: string, value: string): boolean {
  // Ajv caches the compiled schema by its serialisation: each format compiles once.
  return sharedAjv().validate({type: 'string', format}, value) === true
}
