import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {describe, it} from 'node:test'
import {computeArtifactDigest, signatureMessage} from '../../src/artifact/digest.js'
import {sha256Of} from './pki.js'

describe('the canonical artifact digest P', () => {
  const unsignedManifest = new Uint8Array(Buffer.from('{"id":"a.b"}'))
  const files = new Map([
    ['zeta.txt', {size: 1, sha256: sha256Of('z')}],
    ['Alpha.txt', {size: 2, sha256: sha256Of('AA')}],
    ['certificate.sig', {size: 89, sha256: sha256Of('sig')}],
    ['certificate.json', {size: 400, sha256: sha256Of('json')}],
    ['é/x', {size: 0, sha256: sha256Of('')}],
    ['e/x', {size: 3, sha256: sha256Of('eee')}],
  ])

  it('is the exact text: header, manifest line, file lines sorted by UTF-8 bytes, end line', () => {
    const {text, sha256} = computeArtifactDigest({unsignedManifest, files})
    const expected = [
      'svc-plugin-artifact/1',
      `manifest ${sha256Of(unsignedManifest)} 12`,
      `file ${sha256Of('AA')} 2 Alpha.txt`,
      `file ${sha256Of('json')} 400 certificate.json`,
      `file ${sha256Of('sig')} 89 certificate.sig`,
      `file ${sha256Of('eee')} 3 e/x`,
      `file ${sha256Of('z')} 1 zeta.txt`,
      `file ${sha256Of('')} 0 é/x`,
      'end 6',
      '',
    ].join('\n')
    assert.equal(text, expected)
    assert.equal(sha256, createHash('sha256').update(expected, 'utf8').digest('hex'))
  })

  it('has "end 0" and no file line for an artifact that is only a manifest', () => {
    assert.equal(computeArtifactDigest({unsignedManifest, files: new Map()}).text, `svc-plugin-artifact/1\nmanifest ${sha256Of(unsignedManifest)} 12\nend 0\n`)
  })

  it('refuses a name that would break a line (invalid-digest-input)', () => {
    assert.throws(() => computeArtifactDigest({unsignedManifest, files: new Map([['a\nfile x', {size: 0, sha256: sha256Of('')}]])}), {code: 'invalid-digest-input'})
    assert.throws(() => computeArtifactDigest({unsignedManifest, files: new Map([['a', {size: 0, sha256: 'sha256:ABC'}]])}), {code: 'invalid-digest-input'})
  })
})

describe('the signature message', () => {
  it('is five \\n-terminated lines naming the algorithm, key, time and digest', () => {
    const digest = 'ab'.repeat(32)
    assert.equal(
      signatureMessage({keyId: 'cert_0123456789abcdef0123456789abcdef', signedAt: '2030-06-01T12:00:00Z', artifactDigestHex: digest}),
      `svc-plugin-signature/1\nalgorithm ed25519\nkey-id cert_0123456789abcdef0123456789abcdef\nsigned-at 2030-06-01T12:00:00Z\nartifact-digest sha256:${digest}\n`,
    )
  })
})
