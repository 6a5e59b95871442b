import assert from 'node:assert/strict'
import {describe, it} from 'node:test'
import {certificateMessage, issueCertificate, keyUsages, parseCertificate, subjectKinds} from '../../src/pki/certificate.js'
import {generateKeyPair, verifyStrict} from '../../src/pki/ed25519.js'
import {createPki, issueFor, testNow, validFrom, validTo} from '../signing/pki.js'

const encode = (value: unknown): Uint8Array => new Uint8Array(Buffer.from(JSON.stringify(value)))

describe('issueCertificate', () => {
  const pki = createPki()
  const certificate = parseCertificate(pki.certificate.json)

  it('writes every certificate field, schemaVersion 1 without an issuer', () => {
    assert.deepEqual(Object.keys(certificate), ['schemaVersion', 'certificateId', 'subject', 'algorithm', 'publicKey', 'keyUsage', 'notBefore', 'notAfter', 'issuedAt', 'rootKeyId'])
    assert.equal(certificate.schemaVersion, 1)
    assert.match(certificate.certificateId, /^cert_[0-9a-f]{32}$/)
    assert.deepEqual(certificate.subject, {kind: 'creator', id: 'com.example', name: 'Example Labs'})
    assert.equal(certificate.algorithm, 'ed25519')
    assert.equal(certificate.publicKey, Buffer.from(pki.signer.publicKey).toString('base64'))
    assert.deepEqual(certificate.keyUsage, ['package'])
    assert.equal(certificate.notBefore, validFrom)
    assert.equal(certificate.notAfter, validTo)
    assert.equal(certificate.issuedAt, '2030-06-01T12:00:00Z')
    assert.equal(certificate.rootKeyId, pki.rootKeyId)
  })

  it('signs "svc-plugin-certificate/1\\n" followed by the exact certificate.json bytes with the root key', () => {
    const message = Buffer.concat([Buffer.from('svc-plugin-certificate/1\n'), pki.certificate.json])
    assert.deepEqual(Buffer.from(certificateMessage(pki.certificate.json)), message)
    assert.equal(verifyStrict(Buffer.from(pki.certificate.sig, 'base64'), message, pki.root.publicKey), true)
  })

  it('issues under an issuer certificate with schemaVersion 2 and the issuer id', () => {
    const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', id: 'com.example.issuing', usage: 'issuer'})
    const leaf = issueFor(issuer.keyPair.privateKey, pki.rootKeyId, {issuerCertificate: issuer.files.json})
    const parsed = parseCertificate(leaf.files.json)
    assert.equal(parsed.schemaVersion, 2)
    assert.equal(parsed.issuer, parseCertificate(issuer.files.json).certificateId)
    assert.equal(verifyStrict(Buffer.from(leaf.files.sig, 'base64'), certificateMessage(leaf.files.json), issuer.keyPair.publicKey), true)
  })

  it('refuses what a verifier would refuse', () => {
    const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', usage: 'issuer', notBefore: '2030-02-01T00:00:00Z', notAfter: '2030-12-01T00:00:00Z'})
    const base = {subject: {kind: 'creator' as const, id: 'com.example', name: 'Example'}, subjectPublicKey: generateKeyPair().publicKey, keyUsage: 'package' as const}
    const window = {notBefore: '2030-03-01T00:00:00Z', notAfter: '2030-04-01T00:00:00Z'}
    assert.throws(() => issueCertificate({...base, ...window, signerPrivateKey: issuer.keyPair.privateKey, issuerCertificate: issuer.files.json, notAfter: '2030-12-01T00:00:01Z'}), {code: 'certificate-outlives-issuer'})
    assert.throws(() => issueCertificate({...base, ...window, signerPrivateKey: pki.root.privateKey, issuerCertificate: issuer.files.json}), {code: 'key-mismatch'})
    assert.throws(() => issueCertificate({...base, ...window, signerPrivateKey: pki.signer.privateKey, issuerCertificate: pki.certificate.json}), {code: 'certificate-wrong-purpose'})
    assert.throws(() => issueCertificate({...base, ...window, subject: {kind: 'issuer', id: 'com.example.sub', name: 'Sub-issuer'}, keyUsage: 'issuer', signerPrivateKey: issuer.keyPair.privateKey, issuerCertificate: issuer.files.json}), {code: 'chain-too-long'})
    assert.throws(
      () => issueCertificate({...base, ...window, signerPrivateKey: issuer.keyPair.privateKey, issuerCertificate: issuer.files.json, rootKeyId: 'root_other'}),
      {code: 'certificate-issuer-mismatch'},
    )
    assert.throws(() => issueCertificate({...base, notBefore: validTo, notAfter: validFrom, signerPrivateKey: pki.root.privateKey, rootKeyId: pki.rootKeyId}), {code: 'invalid-validity'})
    assert.throws(() => issueCertificate({...base, ...window, notBefore: '2030-03-01T00:00:00.5Z', signerPrivateKey: pki.root.privateKey, rootKeyId: pki.rootKeyId}), {code: 'invalid-validity'})
    assert.throws(() => issueCertificate({...base, ...window, signerPrivateKey: pki.root.privateKey}), {code: 'invalid-root-key-id'})
    const identity = new Uint8Array(32)
    identity[0] = 1
    assert.throws(() => issueCertificate({...base, ...window, subjectPublicKey: identity, signerPrivateKey: pki.root.privateKey, rootKeyId: pki.rootKeyId}), {code: 'key-invalid'})
    assert.throws(
      () => issueCertificate({...base, ...window, subject: {kind: 'creator', id: ' ', name: 'x'}, signerPrivateKey: pki.root.privateKey, rootKeyId: pki.rootKeyId}),
      {code: 'certificate-malformed'},
    )
  })
})

describe('parseCertificate is strict about every field', () => {
  const good = JSON.parse(Buffer.from(createPki().certificate.json).toString('utf8')) as Record<string, unknown>
  const cases: [string, Record<string, unknown>][] = [
    ['an unknown member', {...good, extra: true}],
    ['schemaVersion 3', {...good, schemaVersion: 3}],
    ['schemaVersion 2 without issuer', {...good, schemaVersion: 2}],
    ['schemaVersion 1 with issuer', {...good, issuer: 'cert_00000000000000000000000000000000'}],
    ['an upper-case certificate id', {...good, certificateId: 'cert_0000000000000000000000000000000A'}],
    ['a subject kind outside the four', {...good, subject: {kind: 'person', id: 'a', name: 'b'}}],
    ['a subject with an extra member', {...good, subject: {kind: 'creator', id: 'a', name: 'b', email: 'c'}}],
    ['a subject name with a control character', {...good, subject: {kind: 'creator', id: 'a', name: 'b\u0007'}}],
    ['algorithm "Ed25519"', {...good, algorithm: 'Ed25519'}],
    ['a 31-byte public key', {...good, publicKey: Buffer.alloc(31).toString('base64')}],
    ['an unpadded public key', {...good, publicKey: Buffer.alloc(32).toString('base64').replace(/=$/, '')}],
    ['two key usages', {...good, keyUsage: ['package', 'issuer']}],
    ['keyUsage as a string', {...good, keyUsage: 'package'}],
    ['a time with fractional seconds', {...good, notBefore: '2030-01-01T00:00:00.000Z'}],
    ['a time with an offset', {...good, notAfter: '2031-01-01T00:00:00+00:00'}],
    ['an impossible date', {...good, notAfter: '2031-02-30T00:00:00Z'}],
    ['notBefore after notAfter', {...good, notBefore: '2032-01-01T00:00:00Z'}],
    ['a root key id with upper case', {...good, rootKeyId: 'root_ABCD'}],
  ]
  for (const [label, value] of cases) {
    it(`refuses ${label} with certificate-malformed`, () => {
      assert.throws(() => parseCertificate(encode(value)), {code: 'certificate-malformed'})
    })
  }
  it('refuses a duplicated key and a BOM with certificate-malformed', () => {
    const text = Buffer.from(JSON.stringify(good)).toString('utf8')
    assert.throws(() => parseCertificate(Buffer.from(text.replace('{', '{"algorithm":"ed25519",'))), {code: 'certificate-malformed'})
    assert.throws(() => parseCertificate(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])), {code: 'certificate-malformed'})
  })
  it('accepts the certificate it issued, at the issue time of the test clock', () => {
    assert.equal(parseCertificate(encode(good)).issuedAt, testNow.toISOString().replace('.000', ''))
  })
})

describe('one meaning per subject kind and key usage', () => {
  const pki = createPki()
  const pairs = [
    ['creator', 'package'],
    ['organization', 'package'],
    ['service', 'registry'],
    ['issuer', 'issuer'],
  ] as const
  for (const [kind, usage] of pairs) {
    it(`issues a ${kind} certificate with key usage ${usage}`, () => {
      const issued = issueFor(pki.root.privateKey, pki.rootKeyId, {kind, usage})
      assert.deepEqual(parseCertificate(issued.files.json).keyUsage, [usage])
    })
  }
  for (const kind of subjectKinds) {
    for (const usage of keyUsages) {
      if (pairs.some(([k, u]) => k === kind && u === usage)) continue
      it(`refuses to issue a ${kind} certificate with key usage ${usage}: invalid-key-usage`, () => {
        assert.throws(() => issueFor(pki.root.privateKey, pki.rootKeyId, {kind, usage}), {code: 'invalid-key-usage'})
      })
    }
  }
})
