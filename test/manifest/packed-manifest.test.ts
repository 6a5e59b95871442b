import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import fc from 'fast-check'
import {manifestSchema} from '../../src/manifest/schema.js'
import {renderPackedManifest} from '../../src/manifest/packed-manifest.js'
import {generatedFields} from '../../src/manifest/rules/generated-fields-are-not-authored.js'
import {signerMemberNames} from '../../src/model/signing-files.js'

// Names that are array indices are put first by every JavaScript object, whatever the order written.
const memberName = fc.oneof(
  fc.constantFrom('id', 'name', 'version', 'files', 'languages', 'x-build', '__proto__', ...signerMemberNames),
  fc.string({maxLength: 6}).filter((name) => !/^(0|[1-9][0-9]*)$/.test(name)),
)

describe('the packed manifest and the members only the signer writes', () => {
  it('names as generated (x-svc-requirement) exactly files and the signer members, the fields the rule warns about', () => {
    const properties = manifestSchema['properties'] as Record<string, Record<string, unknown>>
    const generated = Object.keys(properties).filter((name) => properties[name]?.['x-svc-requirement'] === 'generated')
    assert.deepEqual(generated.sort(), [...generatedFields].sort())
    assert.deepEqual([...signerMemberNames].sort(), ['containerDigest', 'signature'])
  })

  it('drops every signer member wherever it stands and keeps every other member in its order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(memberName, fc.jsonValue()), {selector: ([name]) => name, maxLength: 10}), (members) => {
        const source: Record<string, unknown> = Object.create(null) as Record<string, unknown>
        for (const [name, value] of members) Object.defineProperty(source, name, {value, enumerable: true, writable: true, configurable: true})
        const files = [{path: 'a.txt', sha256: `sha256:${'0'.repeat(64)}`, size: 1}]
        const packed = JSON.parse(renderPackedManifest(source, {files})) as Record<string, unknown>
        for (const name of signerMemberNames) assert.equal(Object.hasOwn(packed, name), false, name)
        const kept = members.map(([name]) => name).filter((name) => !signerMemberNames.includes(name))
        assert.deepEqual(Object.keys(packed), kept.includes('files') ? kept : [...kept, 'files'])
      }),
      {numRuns: 300},
    )
  })
})
