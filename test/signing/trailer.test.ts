import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {appendSignatureTrailer, splitSignedManifest, type SignatureFields} from '../../src/artifact/trailer.js'

const signature: SignatureFields = {
  algorithm: 'ed25519',
  keyId: 'cert_0123456789abcdef0123456789abcdef',
  value: Buffer.alloc(64, 9).toString('base64'),
  signedAt: '2030-06-01T12:00:00Z',
}
const trailer = `,"signature":{"algorithm":"ed25519","keyId":"${signature.keyId}","value":"${signature.value}","signedAt":"2030-06-01T12:00:00Z"}}\n`
const packed = '{\n  "id": "com.example.a",\n  "files": []\n}\n'
const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'))
const text = (data: Uint8Array): string => Buffer.from(data).toString('utf8')
const codeOf = (result: ReturnType<typeof splitSignedManifest>): string => ('code' in result ? result.code : 'ok')

describe('appendSignatureTrailer', () => {
  it('strips trailing whitespace and the final "}", then appends the exact trailer and one newline', () => {
    assert.equal(text(appendSignatureTrailer(bytes(packed), signature)), `{\n  "id": "com.example.a",\n  "files": []\n${trailer}`)
  })

  it('refuses a value that cannot stand in the trailer (signature-malformed)', () => {
    assert.throws(() => appendSignatureTrailer(bytes(packed), {...signature, keyId: 'cert_"x'}), {code: 'signature-malformed'})
    assert.throws(() => appendSignatureTrailer(bytes(packed), {...signature, signedAt: '2030-06-01T12:00:00.000Z'}), {code: 'signature-malformed'})
  })
})

describe('splitSignedManifest', () => {
  const signed = text(appendSignatureTrailer(bytes(packed), signature))

  it('gives U = the bytes before the trailer and "}", and the trailer values', () => {
    const split = splitSignedManifest(bytes(signed))
    assert.ok(!('code' in split))
    assert.equal(text(split.unsigned), '{\n  "id": "com.example.a",\n  "files": []\n}')
    assert.deepEqual(split.signature, signature)
  })

  const cases: [string, string, string][] = [
    ['an unsigned manifest', packed, 'signature-missing'],
    ['a file that is not JSON', signed.slice(0, -3), 'manifest-malformed'],
    ['a duplicated key other than signature', signed.replace('"files": []', '"files": [], "id": "x"'), 'manifest-malformed'],
    ['a space added inside the trailer', signed.replace('{"algorithm"', '{ "algorithm"'), 'signature-malformed'],
    ['the trailer without its final newline', signed.slice(0, -1), 'signature-malformed'],
    ['the trailer followed by two newlines', `${signed}\n`, 'signature-malformed'],
    ['a CRLF line end', `${signed.slice(0, -1)}\r\n`, 'signature-malformed'],
    ['the trailer moved to the front', `{"signature":${trailer.slice(13, -2)},${packed.slice(1)}`, 'signature-malformed'],
    ['the key escaped as "sig\\u006eature"', signed.replace('"signature"', '"sig\\u006eature"'), 'signature-malformed'],
    ['a second signature member before the trailer', signed.replace('"files": []', `"files": [], "signature": {"algorithm": "ed25519"}`), 'signature-malformed'],
    ['a signature member hidden in U by an escaped key', signed.replace('"files": []', `"files": [], "sig\\u006eature": 1`), 'signature-malformed'],
    ['the members reordered', signed.replace(`"keyId":"${signature.keyId}","value":"${signature.value}"`, `"value":"${signature.value}","keyId":"${signature.keyId}"`), 'signature-malformed'],
    ['an escaped character in a value', signed.replace('"ed25519"', '"ed2551\\u0039"'), 'signature-malformed'],
    ['a key id that is not a certificate id', signed.replace(signature.keyId, 'cert_xyz'), 'signature-malformed'],
    ['a value of 63 bytes', signed.replace(signature.value, Buffer.alloc(63, 9).toString('base64')), 'signature-malformed'],
    ['a signedAt with an offset', signed.replace('2030-06-01T12:00:00Z', '2030-06-01T12:00:00+00:00'), 'signature-malformed'],
    ['an extra member in the signature', signed.replace('"signedAt"', '"extra":"x","signedAt"'), 'signature-malformed'],
  ]
  for (const [label, manifest, code] of cases) {
    it(`reports ${label} as ${code}`, () => {
      assert.equal(codeOf(splitSignedManifest(bytes(manifest))), code)
    })
  }

  it('reads another algorithm name as a well-formed trailer (judged later as unsupported)', () => {
    const split = splitSignedManifest(bytes(signed.replace('"ed25519"', '"rsa-pss"')))
    assert.ok(!('code' in split))
    assert.equal(split.signature.algorithm, 'rsa-pss')
  })
})
