import type {ErrorObject} from 'ajv/dist/2020.js'
import {childPointer, describePointer} from '../json/pointer.js'
import {plural} from '../quantities.js'
import {quote} from './rules/values.js'
import {manifestSchema} from './schema.js'

/** One Ajv error as a diagnostic-to-be: code `schema:<keyword>` at `pointer`. */
export interface SchemaProblem {
  keyword: string
  /** The offending value; the parent object for `required`; the member for a bad property name. */
  pointer: string
  message: string
}

/** What each `$defs` pattern means, from the schema's own descriptions: `An absolute http or https URL.` */
const patternMeanings = new Map<string, string>(
  Object.values(manifestSchema.$defs).flatMap((definition) =>
    typeof definition.pattern === 'string' && typeof definition['description'] === 'string' ? [[definition.pattern, definition['description']]] : [],
  ),
)

/**
 * Turns Ajv errors into problems, mapped by `keyword` (never by Ajv's message text). A bad property
 * name gives one problem at the member it names; Ajv's wrapping `propertyNames` error is dropped.
 */
export function schemaProblems(errors: readonly ErrorObject[]): SchemaProblem[] {
  const problems: SchemaProblem[] = []
  for (const error of errors) {
    if (error.keyword === 'propertyNames') continue
    const propertyName = (error as ErrorObject & {propertyName?: string}).propertyName
    if (propertyName !== undefined) {
      const pointer = childPointer(error.instancePath, propertyName)
      problems.push({keyword: error.keyword, pointer, message: propertyNameMessage(error, pointer, propertyName)})
      continue
    }
    problems.push({keyword: error.keyword, pointer: error.instancePath, message: valueMessage(error)})
  }
  return problems
}

function propertyNameMessage(error: ErrorObject, pointer: string, name: string): string {
  const parent = describePointer(error.instancePath)
  const expected = error.keyword === 'pattern' ? expectation(error) : null
  if (expected !== null) return `${parent} key ${quote(name)} is not valid: expected ${expected}.`
  return `${parent} key ${quote(name)} ${error.message ?? 'is not valid'} (${describePointer(pointer)}).`
}

function valueMessage(error: ErrorObject): string {
  const field = describePointer(error.instancePath)
  const params = error.params as Record<string, unknown>
  const data: unknown = error.data
  switch (error.keyword) {
    case 'required':
      return capitalise(`${field} is missing the required property ${quote(params['missingProperty'])}; add it.`)
    case 'type':
      return `${field} is ${kindOf(data)}; it must be ${withArticle(String(params['type']))}.`
    case 'pattern': {
      const expected = expectation(error)
      return expected === null ? `${field} ${quote(data)} does not match the pattern ${String(params['pattern'])}.` : `${field} ${quote(data)} is not valid: expected ${expected}.`
    }
    case 'const':
      return `${field} is ${quote(data)}; it must be ${quote(params['allowedValue'])}.`
    case 'enum':
      return `${field} is ${quote(data)}; it must be one of ${(params['allowedValues'] as unknown[]).map((value) => quote(value)).join(', ')}.`
    case 'minimum':
      return `${field} is ${quote(data)}; it must be at least ${String(params['limit'])}.`
    case 'maximum':
      return `${field} is ${quote(data)}; it must be at most ${String(params['limit'])}.`
    case 'minLength':
      return params['limit'] === 1 ? `${field} is empty; give it a value.` : `${field} ${quote(data)} is shorter than ${String(params['limit'])} characters.`
    case 'maxLength':
      return `${field} is longer than ${String(params['limit'])} characters.`
    case 'minProperties':
      return `${field} is empty; it needs at least ${plural(Number(params['limit']), 'member')}.`
    case 'uniqueItems':
      return `${field} lists the same value twice (items ${String(params['j'])} and ${String(params['i'])}); list each value once.`
    case 'format':
      return `${field} ${quote(data)} is not a valid ${String(params['format'])}.`
    default:
      return `${field} ${error.message ?? 'is not valid'}.`
  }
}

/** `an absolute http or https URL`, from the failing pattern's `$defs` description. */
function expectation(error: ErrorObject): string | null {
  const meaning = patternMeanings.get(String((error.params as {pattern?: unknown}).pattern))
  if (meaning === undefined) return null
  return meaning.charAt(0).toLowerCase() + meaning.slice(1).replace(/\.$/, '')
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return Number.isInteger(value) ? `the number ${value}` : `the number ${value}, not a whole number`
  if (typeof value === 'string') return `the string ${quote(value)}`
  if (typeof value === 'boolean') return `${value}`
  return 'an object'
}

function withArticle(type: string): string {
  return type.split(',').map((name) => (/^[aeiou]/.test(name) ? `an ${name}` : `a ${name}`)).join(' or ')
}

/** Upper-cases a sentence that starts with "the manifest"; a property name keeps its case. */
function capitalise(text: string): string {
  return text.startsWith('the ') ? `T${text.slice(1)}` : text
}
