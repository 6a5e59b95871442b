import {createRequire} from 'node:module'
import type {Ajv2020, ValidateFunction} from 'ajv/dist/2020.js'
import type addFormatsModule from 'ajv-formats'
import {fullFormats} from 'ajv-formats/dist/formats.js'
import {manifestSchema} from './schema.js'

/**
 * The build writes the schema's compiled validator beside this module (`npm run build` runs
 * `scripts/compile-schema`), so the CLI starts without compiling the schema; from sources (no
 * build) the schema is compiled on first use with the very same Ajv settings.
 */
export const generatedValidatorFile = 'manifest-validator.generated.cjs'

// Ajv is loaded only when a schema is compiled (the build, a format check, sources without a build): a
// command that only validates manifests runs the build's standalone validator and starts without it.
const require = createRequire(import.meta.url)

let ajv: Ajv2020 | undefined
let compiled: ValidateFunction | undefined

/**
 * A new Ajv configured for the manifest schema: draft 2020-12, strict, every error, ajv-formats, the
 * annotation keywords (the requirement level, and the editor hints `markdownDescription`,
 * `patternErrorMessage`, `doNotSuggest`). `source` keeps the generated code, for the build's standalone validator.
 */
export function createManifestAjv(options: {source?: boolean} = {}): Ajv2020 {
  // verbose: errors carry the failing value, which messages quote.
  const {Ajv2020: Ajv} = require('ajv/dist/2020.js') as {Ajv2020: typeof Ajv2020}
  // ajv-formats is CommonJS with its function as the default export's `default`.
  const formats = require('ajv-formats') as typeof addFormatsModule & {default?: typeof addFormatsModule}
  const addFormats = (formats.default ?? formats) as unknown as (ajv: Ajv2020) => Ajv2020
  const instance = new Ajv({strict: true, allErrors: true, verbose: true, code: {source: options.source === true}})
  addFormats(instance)
  instance.addKeyword({keyword: 'x-svc-requirement', schemaType: 'string'})
  // Editors' annotations (VS Code's JSON language service): they help authors and never change a verdict.
  instance.addKeyword({keyword: 'markdownDescription', schemaType: 'string'})
  instance.addKeyword({keyword: 'patternErrorMessage', schemaType: 'string'})
  instance.addKeyword({keyword: 'doNotSuggest', schemaType: 'boolean'})
  return instance
}

function sharedAjv(): Ajv2020 {
  ajv ??= createManifestAjv()
  return ajv
}

/** The compiled validator of the manifest schema: the build's standalone one, else compiled once on first use. */
export function manifestValidator(): ValidateFunction {
  compiled ??= loadGeneratedValidator() ?? sharedAjv().compile(manifestSchema)
  return compiled
}

function loadGeneratedValidator(): ValidateFunction | null {
  try {
    const loaded = require(`./${generatedValidatorFile}`) as {default?: ValidateFunction} | ValidateFunction
    return typeof loaded === 'function' ? loaded : (loaded.default ?? null)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return null
    throw error
  }
}

/**
 * True when `value` is a string in JSON Schema format `format` (as ajv-formats defines it, e.g. `date-time`):
 * the very check Ajv runs for the format, without creating an Ajv (which costs a command tens of
 * milliseconds to load).
 */
export function matchesFormat(format: string, value: string): boolean {
  const definition = (fullFormats as Record<string, FormatDefinition | undefined>)[format]
  if (definition === undefined) throw new RangeError(`ajv-formats defines no format ${JSON.stringify(format)}`)
  const check = typeof definition === 'object' && !(definition instanceof RegExp) ? definition.validate : definition
  return typeof check === 'function' ? check(value) : check.test(value)
}

/** How ajv-formats defines a format: a pattern, a function, or either with a comparison. */
type FormatDefinition = RegExp | ((value: string) => boolean) | {validate: RegExp | ((value: string) => boolean)}
