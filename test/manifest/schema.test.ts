import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import {Ajv2020} from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import fc from 'fast-check'
import {manifestValidator} from '../../src/manifest/schema-validator.js'
import {manifestSchema, manifestSchemaText, requirementCategories} from '../../src/manifest/schema.js'
import {isLanguageTag, isPluginId, isRid, isSemVer, maxVersionLength} from '../../src/model/index.js'
import {completeManifest} from './helpers.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []))
const addFormats = ((addFormatsModule as unknown as {default?: unknown}).default ?? addFormatsModule) as (ajv: Ajv2020) => void

type SchemaNode = Record<string, unknown>

/** Every schema that describes a property value, with its path: `properties` members and map values. */
function propertySchemas(node: unknown, at: string, found: Array<[string, SchemaNode]> = []): Array<[string, SchemaNode]> {
  if (Array.isArray(node)) node.forEach((item, i) => propertySchemas(item, `${at}/${i}`, found))
  if (typeof node !== 'object' || node === null) return found
  const schema = node as SchemaNode
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      for (const [name, property] of Object.entries(value)) found.push([`${at}/properties/${name}`, property as SchemaNode])
    }
    if (key === 'additionalProperties' && typeof value === 'object' && value !== null) found.push([`${at}/additionalProperties`, value as SchemaNode])
    if (key !== 'examples' && key !== 'required') propertySchemas(value, `${at}/${key}`, found)
  }
  return found
}

/** Every value of keyword `name` anywhere in the schema. */
function keywordValues(node: unknown, name: string, found: unknown[] = []): unknown[] {
  if (Array.isArray(node)) for (const item of node) keywordValues(item, name, found)
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === name) found.push(value)
      keywordValues(value, name, found)
    }
  }
  return found
}

function requirementOf(pointer: string): unknown {
  const node = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((schema, token) => (schema as SchemaNode)[token], manifestSchema)
  return (node as SchemaNode)['x-svc-requirement']
}

describe('schema/manifest.schema.json', () => {
  it('is draft 2020-12 with an $id, a title and a description', () => {
    assert.equal(manifestSchema['$schema'], 'https://json-schema.org/draft/2020-12/schema')
    assert.equal(manifestSchema.$id, 'https://svc-plugin.dev/schema/manifest.schema.json')
    assert.equal(typeof manifestSchema['title'], 'string')
    assert.equal(typeof manifestSchema['description'], 'string')
  })

  it('is the file on disk, read once (manifestSchemaText)', () => {
    const text = readFileSync(path.join(root, 'schema', 'manifest.schema.json'), 'utf8')
    assert.equal(manifestSchemaText(), text)
    assert.deepEqual(JSON.parse(manifestSchemaText()), manifestSchema)
  })

  it('requires exactly manifestVersion, id, name, version, entrypoints at the top level', () => {
    assert.deepEqual(manifestSchema['required'], ['manifestVersion', 'id', 'name', 'version', 'entrypoints'])
  })

  it('annotates every property at every depth with x-svc-requirement', () => {
    const properties = propertySchemas(manifestSchema, '')
    assert.ok(properties.length > 40, `only ${properties.length} property schemas found`)
    const missing = properties.filter(([, schema]) => !(requirementCategories as readonly unknown[]).includes(schema['x-svc-requirement'])).map(([at]) => at)
    assert.deepEqual(missing, [])
  })

  it('uses only the four requirement categories anywhere', () => {
    for (const value of keywordValues(manifestSchema, 'x-svc-requirement')) assert.ok((requirementCategories as readonly unknown[]).includes(value), String(value))
  })

  it('gives the top-level fields their requirement categories', () => {
    const expected: Record<string, string> = {
      manifestVersion: 'runtime',
      id: 'runtime',
      name: 'runtime',
      version: 'runtime',
      entrypoints: 'runtime',
      description: 'publication',
      icon: 'publication',
      publisher: 'publication',
      license: 'publication',
      repository: 'publication',
      compatibility: 'publication',
      homepage: 'recommended',
      shutdown: 'recommended',
      health: 'recommended',
      permissions: 'recommended',
      languages: 'recommended',
      dependencies: 'recommended',
      conflicts: 'recommended',
      iconPacks: 'recommended',
      files: 'generated',
      signature: 'generated',
      containerDigest: 'generated',
    }
    const properties = manifestSchema['properties'] as Record<string, SchemaNode>
    assert.deepEqual(Object.keys(properties).sort(), Object.keys(expected).sort())
    for (const [name, category] of Object.entries(expected)) assert.equal(properties[name]?.['x-svc-requirement'], category, name)
    assert.equal(requirementOf('/properties/publisher/properties/name'), 'publication')
    for (const name of ['id', 'email', 'url']) assert.equal(requirementOf(`/properties/publisher/properties/${name}`), 'recommended', name)
  })

  it('bounds a version at the length the installer names its folder with, and takes one that long', () => {
    assert.equal(manifestSchema.$defs['semVer']?.['maxLength'], maxVersionLength)
    const validate = manifestValidator()
    const longest = `1.0.0-${'a'.repeat(maxVersionLength - 6)}`
    assert.equal(validate({...completeManifest(), version: longest}), true)
    assert.equal(validate({...completeManifest(), version: `${longest}a`}), false)
  })

  it('never sets additionalProperties to false (unknown properties are always allowed)', () => {
    assert.ok(!keywordValues(manifestSchema, 'additionalProperties').includes(false))
    assert.ok(!keywordValues(manifestSchema, 'unevaluatedProperties').includes(false))
  })

  it('requires publisher.name whenever publisher is present', () => {
    assert.deepEqual((manifestSchema['properties'] as Record<string, SchemaNode>)['publisher']?.['required'], ['name'])
  })

  it('compiles with Ajv2020 in strict mode, with ajv-formats and the annotation keywords (requirement, editor hints)', () => {
    const ajv = new Ajv2020({strict: true, allErrors: true})
    addFormats(ajv)
    for (const keyword of ['x-svc-requirement', 'markdownDescription', 'patternErrorMessage']) ajv.addKeyword({keyword, schemaType: 'string'})
    ajv.addKeyword({keyword: 'doNotSuggest', schemaType: 'boolean'})
    assert.equal(typeof ajv.compile(manifestSchema), 'function')
  })

  it('accepts a complete manifest and the example plugin', () => {
    const validate = manifestValidator()
    assert.equal(validate(completeManifest()), true, JSON.stringify(validate.errors))
    const example = JSON.parse(readFileSync(path.join(root, 'fixtures', 'example-plugin', 'manifest.json'), 'utf8')) as unknown
    assert.equal(validate(example), true, JSON.stringify(validate.errors))
  })

  it('accepts unknown properties at the top level and inside nested objects', () => {
    const manifest = completeManifest()
    manifest['x-tooling'] = {anything: [1]}
    manifest['publisher']['nickname'] = 'ex'
    manifest['entrypoints']['win-x64']['extra'] = true
    manifest['compatibility']['protocol']['note'] = 'x'
    const validate = manifestValidator()
    assert.equal(validate(manifest), true, JSON.stringify(validate.errors))
  })

  describe('patterns agree with the model', () => {
    const definitions = manifestSchema.$defs
    const regex = (name: string) => new RegExp(definitions[name]?.pattern as string, 'u')

    it('pluginId is isPluginId, length limit included', () => {
      const pattern = regex('pluginId')
      const maxLength = definitions['pluginId']?.['maxLength'] as number
      const candidate = fc.oneof(fc.stringMatching(/^[a-z0-9.-]{0,12}$/), fc.string({maxLength: 12}), fc.constant(`a.${'b'.repeat(126)}`), fc.constant(`a.${'b'.repeat(127)}`))
      fc.assert(fc.property(candidate, (text) => assert.equal(pattern.test(text) && text.length <= maxLength, isPluginId(text), text)), {numRuns: 3000})
    })

    it('semVer is isSemVer', () => {
      const pattern = regex('semVer')
      const candidate = fc.oneof(fc.stringMatching(/^[0-9.+a-z-]{0,14}$/), fc.stringMatching(/^(0|[1-9])[0-9]?\.[0-9]{1,2}\.[0-9]{1,2}([-+][0-9a-zA-Z.-]{0,6}){0,2}$/))
      fc.assert(fc.property(candidate, (text) => assert.equal(pattern.test(text), isSemVer(text), text)), {numRuns: 3000})
    })

    it('runtimeIdentifier is isRid', () => {
      const pattern = regex('runtimeIdentifier')
      fc.assert(fc.property(fc.string({maxLength: 10}), (text) => assert.equal(pattern.test(text), isRid(text), text)), {numRuns: 2000})
    })

    it('languageTag is isLanguageTag', () => {
      const pattern = regex('languageTag')
      const candidate = fc.oneof(fc.stringMatching(/^[a-zA-Z0-9-]{0,12}$/), fc.string({maxLength: 8}))
      fc.assert(fc.property(candidate, (text) => assert.equal(pattern.test(text), isLanguageTag(text), text)), {numRuns: 3000})
    })

    it('httpUrl accepts absolute http and https URLs only', () => {
      const pattern = regex('httpUrl')
      for (const url of ['https://example.com', 'http://example.com/a?b#c', 'HTTPS://EXAMPLE.COM', 'https://user@host:8080/x']) assert.ok(pattern.test(url), url)
      for (const url of ['ftp://example.com', 'example.com', '//example.com', 'https://', 'https:///path', 'https://exa mple.com', 'mailto:a@b.c', ' https://example.com', '']) {
        assert.ok(!pattern.test(url), url)
      }
    })
  })
})
