import assert from 'node:assert/strict'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import type {ValidateFunction} from 'ajv/dist/2020.js'
import {manifestSchema} from '../../src/manifest/schema.js'
import {createManifestAjv, generatedValidatorFile, matchesFormat} from '../../src/manifest/schema-validator.js'

const here = path.dirname(fileURLToPath(import.meta.url))
// Compiled tests live in dist/test/manifest; the build writes the validator to dist/src/manifest.
const generated = path.join(here, '..', '..', 'src', 'manifest', generatedValidatorFile)
const repoRoot = path.join(here, '..', '..', '..')
const corpus = path.join(repoRoot, 'fixtures', 'manifests')

function manifestsIn(dir: string): string[] {
  return readdirSync(dir, {recursive: true})
    .map(String)
    .filter((name) => name.endsWith('.json') && name !== 'cases.json')
    .map((name) => path.join(dir, name))
}

describe('the build-time compiled schema validator', {skip: existsSync(generated) ? false : 'runs on a build (npm test)'}, () => {
  it('reports exactly what a freshly compiled validator reports, on every corpus manifest', () => {
    const built = createRequire(import.meta.url)(generated) as ValidateFunction | {default: ValidateFunction}
    const standalone = typeof built === 'function' ? built : built.default
    const fresh = createManifestAjv().compile(manifestSchema)
    let compared = 0
    for (const file of [...manifestsIn(corpus), path.join(repoRoot, 'fixtures', 'example-plugin', 'manifest.json')]) {
      let value: unknown
      try {
        value = JSON.parse(readFileSync(file, 'utf8'))
      } catch {
        continue // malformed fixtures never reach the schema
      }
      const expected = fresh(value) ? [] : (fresh.errors ?? []).map(({instancePath, keyword, params}) => ({instancePath, keyword, params}))
      const actual = standalone(value) ? [] : (standalone.errors ?? []).map(({instancePath, keyword, params}) => ({instancePath, keyword, params}))
      assert.deepEqual(actual, expected, file)
      compared += 1
    }
    assert.ok(compared > 50, `compared ${compared} manifests`)
  })
})

describe('matchesFormat', () => {
  it('gives the verdict Ajv with ajv-formats gives, without an Ajv', () => {
    const ajv = createManifestAjv()
    const values = ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.5+02:00', '2024-02-30T12:00:00Z', '2024-05-01 12:00:00Z', '2024-05-01T25:00:00Z', '2024-05-01T12:00:00', '', 'x', '2016-12-31T23:59:60Z']
    for (const format of ['date-time', 'uri', 'email', 'date']) {
      for (const value of [...values, 'https://example.com/a', 'a@example.com', '2024-05-01']) {
        assert.equal(matchesFormat(format, value), ajv.validate({type: 'string', format}, value), `${format} ${JSON.stringify(value)}`)
      }
    }
    assert.throws(() => matchesFormat('no-such-format', 'x'), RangeError)
  })
})
