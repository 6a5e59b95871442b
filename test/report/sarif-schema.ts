import assert from 'node:assert/strict'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {Ajv} from 'ajv'
import addFormatsModule from 'ajv-formats'

const addFormats = addFormatsModule.default

/** The official SARIF 2.1.0 schema (draft-07), kept beside this file's source. */
function sarifSchema(): Record<string, unknown> {
  const here = path.dirname(fileURLToPath(import.meta.url))
  // Under tsx this file runs from test/report; compiled, from dist/test/report, three levels below the root.
  const candidates = [path.join(here, 'sarif-schema-2.1.0.json'), path.join(here, '..', '..', '..', 'test', 'report', 'sarif-schema-2.1.0.json')]
  const file = candidates.find((candidate) => existsSync(candidate))
  assert.ok(file, 'test/report/sarif-schema-2.1.0.json not found')
  return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>
}

const ajv = new Ajv({strict: false, allErrors: true})
addFormats(ajv)
const validateSarif = ajv.compile(sarifSchema())

/** Fails the test with Ajv's errors unless `log` is a valid SARIF 2.1.0 log. */
export function assertValidSarif(log: unknown): void {
  const valid = validateSarif(log)
  assert.ok(valid, JSON.stringify(validateSarif.errors, null, 2))
}
