import assert from 'node:assert/strict'
import {readFile, writeFile} from 'node:fs/promises'
import {after, before, describe, it} from 'node:test'
import {createRoot} from '../../src/pki/trust.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {signerFromPrivateKey} from '../../src/pki/signer.js'
import {generateKeyPair} from '../../src/pki/ed25519.js'
import {checkCountersignature, countersignatureFormat, parseCountersignature, renderCountersignature} from '../../src/signing/countersignature.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {countersignUpload} from '../../src/store/countersign.js'
import {tempDir} from '../helpers/cli.js'
import {issueFor, testNow} from '../signing/pki.js'
import {countersignedPair, countersignOptions, craftCountersignature, registryOf, subjectOf} from './countersigned.js'
import {writeSignedUpload, unsignedUpload, writeArtifact} from './uploads.js'

let dir: string
let cleanup: () => Promise<void>
let pair: Awaited<ReturnType<typeof countersignedPair>>

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-countersign-'))
  pair = await countersignedPair(dir)
})
after(async () => cleanup())

const context = () => ({trust: pair.pki.trust, now: testNow, revocations: []})

describe('countersignUpload', () => {
  it('writes <artifact>.countersig in its one canonical form, and leaves the artifact as it was', async () => {
    const text = Buffer.from(pair.countersig).toString('ascii')
    assert.match(text, new RegExp(`^\\{"format":"${countersignatureFormat}","algorithm":"ed25519","keyId":"cert_[0-9a-f]{32}","countersignedAt":"2030-06-01T12:00:00Z","artifactSha256":"sha256:[0-9a-f]{64}",`))
    assert.equal(text.split('\n').length, 2)
    assert.ok(text.endsWith('}\n'))
    const parsed = parseCountersignature(pair.countersig)
    assert.ok(typeof parsed !== 'string')
    assert.deepEqual(renderCountersignature(parsed), pair.countersig)
    const subject = await subjectOf(pair.a, pair.pki)
    assert.equal(parsed.artifactSha256, subject.fileSha256)
    assert.equal(parsed.publisherSignature, subject.publisherSignature)
  })

  it('signs with a signer as with a private key: the same bytes (Ed25519 is deterministic)', async () => {
    const output = `${dir}/signer.countersig`
    await countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry, {privateKey: undefined, signer: signerFromPrivateKey(pair.registry.keyPair.privateKey), output}))
    assert.deepEqual(new Uint8Array(await readFile(output)), pair.countersig)
  })

  it('refuses what it must not sign, with the code that says why, and writes nothing', async () => {
    const packageCertificate = {certificate: pair.pki.certificate, privateKey: pair.pki.signer.privateKey}
    const unsigned = await writeArtifact(`${dir}/unsigned.svcPlugin`, unsignedUpload())
    const otherRoot = createRoot('root_elsewhere')
    const foreign = issueFor(otherRoot.keyPair.privateKey, otherRoot.rootKeyId, {usage: 'registry', id: 'store.example'})
    const cases: Array<[string, () => Promise<unknown>, string]> = [
      ['a package certificate', () => countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry, {...packageCertificate, output: `${dir}/x1`})), 'certificate-wrong-purpose'],
      ['a certificate of another root', () => countersignUpload(pair.a, countersignOptions(pair.pki, foreign, {output: `${dir}/x2`})), 'certificate-untrusted'],
      ['another key', () => countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry, {privateKey: generateKeyPair().privateKey, output: `${dir}/x3`})), 'key-mismatch'],
      ['a signer holding another key', () => countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry, {privateKey: undefined, signer: signerFromPrivateKey(generateKeyPair().privateKey), output: `${dir}/x4`})), 'signature-invalid'],
      ['a key and a signer', () => countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry, {signer: signerFromPrivateKey(pair.registry.keyPair.privateKey), output: `${dir}/x5`})), 'invalid-signer'],
      ['an expired certificate', () => countersignUpload(pair.a, countersignOptions(pair.pki, registryOf(pair.pki, {notAfter: '2030-03-01T00:00:00Z'}), {output: `${dir}/x6`})), 'certificate-expired'],
      ['an unsigned upload', () => countersignUpload(unsigned, countersignOptions(pair.pki, pair.registry, {output: `${dir}/x7`})), 'upload-refused'],
      ['an upload from another account', () => countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry, {account: {name: 'Someone Else'}, output: `${dir}/x8`})), 'upload-refused'],
      ['an output that exists', () => countersignUpload(pair.a, countersignOptions(pair.pki, pair.registry)), 'output-exists'],
    ]
    for (const [what, attempt, code] of cases) {
      await assert.rejects(attempt(), (error: {code?: string}) => {
        assert.equal(error.code, code, what)
        return true
      })
    }
    for (const name of ['x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x7', 'x8']) await assert.rejects(readFile(`${dir}/${name}`), {code: 'ENOENT'})
  })
})

describe('verifyArtifact with a store countersignature', () => {
  it('is Trusted with it, and names the store', async () => {
    const result = await verifyArtifact(pair.a, {trust: pair.pki.trust, now: testNow, requireStoreSignature: true})
    assert.equal(result.verdict, 'Trusted')
    assert.equal(result.storeSignature?.store, 'store.example')
    assert.equal(result.storeSignature?.countersignedAt, '2030-06-01T12:00:00Z')
  })

  it('refuses an artifact without one where it is required (store-signature-missing), and ignores it where not', async () => {
    const required = await verifyArtifact(pair.b, {trust: pair.pki.trust, now: testNow, requireStoreSignature: true})
    assert.deepEqual([required.valid, required.verdict, required.problems[0]?.code], [false, 'SignatureInvalid', 'store-signature-missing'])
    const optional = await verifyArtifact(pair.b, {trust: pair.pki.trust, now: testNow})
    assert.deepEqual([optional.verdict, optional.storeSignature], ['Trusted', undefined])
  })

  it('refuses a countersignature of artifact A for artifact B (store-signature-invalid, naming the file SHA-256)', async () => {
    const result = await verifyArtifact(pair.b, {trust: pair.pki.trust, now: testNow, storeSignature: `${pair.a}.countersig`})
    assert.equal(result.problems[0]?.code, 'store-signature-invalid')
    assert.match(result.problems[0]?.message ?? '', /is for another artifact file: it names the SHA-256 sha256:[0-9a-f]{64}, this file's is sha256:[0-9a-f]{64}\.$/)
  })
})

describe('checkCountersignature: each statement field and each check, with a message saying which', () => {
  it('refuses wrong statement fields, an untrusted, revoked, expired or not yet valid certificate, a future time and the wrong usage', async () => {
    const subject = await subjectOf(pair.a, pair.pki)
    const good = parseCountersignature(pair.countersig)
    assert.ok(typeof good !== 'string')
    const statement = {keyId: good.keyId, countersignedAt: good.countersignedAt, artifactSha256: good.artifactSha256, artifactDigest: good.artifactDigest, publisherSignature: good.publisherSignature}
    const other = await subjectOf(pair.b, pair.pki)
    const foreignRoot = createRoot('root_elsewhere')
    const foreign = issueFor(foreignRoot.keyPair.privateKey, foreignRoot.rootKeyId, {usage: 'registry', id: 'store.example'})
    const foreignId = JSON.parse(Buffer.from(foreign.files.json).toString()).certificateId as string
    const packageCredentials = {keyPair: pair.pki.signer, files: pair.pki.certificate}
    const packageId = JSON.parse(Buffer.from(pair.pki.certificate.json).toString()).certificateId as string
    const revoked = createRevocationList({rootKeyId: pair.pki.rootKeyId, rootPrivateKey: pair.pki.root.privateKey, entries: [{kind: 'certificate', value: good.keyId, reason: 'key-compromise'}], now: new Date('2030-05-01T00:00:00Z')})
    const cases: Array<[string, Uint8Array, RegExp, object?]> = [
      ['another artifact file', craftCountersignature(pair.registry, {...statement, artifactSha256: other.fileSha256}), /another artifact file: it names the SHA-256/],
      ['another canonical digest', craftCountersignature(pair.registry, {...statement, artifactDigest: `sha256:${other.artifactDigest}`}), /another artifact: it names the canonical digest/],
      ['another publisher signature', craftCountersignature(pair.registry, {...statement, publisherSignature: other.publisherSignature}), /names another publisher signature/],
      ['a certificate of a root the host does not trust', craftCountersignature(foreign, {...statement, keyId: foreignId}), /certificate does not hold \(certificate-untrusted\)/],
      ['a package certificate', craftCountersignature(packageCredentials, {...statement, keyId: packageId}), /certificate does not hold \(certificate-wrong-purpose\)/],
      ['a time after the certificate expired', craftCountersignature(pair.registry, {...statement, countersignedAt: '2031-01-01T00:00:01Z'}), /after its registry certificate expired/],
      ['a time before it was valid', craftCountersignature(pair.registry, {...statement, countersignedAt: '2029-12-31T23:59:59Z'}), /before its registry certificate's validity starts/],
      ['a time ahead of the clock', craftCountersignature(pair.registry, {...statement, countersignedAt: '2030-06-01T12:05:01Z'}), /more than 5 minutes ahead/],
      ['another key id', craftCountersignature(pair.registry, {...statement, keyId: packageId}), /names the key cert_[0-9a-f]{32}, but carries the registry certificate/],
      ['a revoked registry certificate', pair.countersig, /is revoked: The certificate cert_[0-9a-f]{32} is revoked for key-compromise/, {revocations: [revoked.content]}],
    ]
    for (const [what, bytes, message, extra] of cases) {
      const result = checkCountersignature(bytes, subject, {...context(), ...extra})
      assert.ok('code' in result, what)
      assert.equal(result.code, 'store-signature-invalid', what)
      assert.match(result.message, message, what)
    }
    assert.ok(!('code' in checkCountersignature(pair.countersig, subject, context())))
  })

  it('refuses every spelling but the canonical one: whitespace, another member order, escapes, CRLF, no final line feed', async () => {
    const subject = await subjectOf(pair.a, pair.pki)
    const text = Buffer.from(pair.countersig).toString('ascii')
    const variants = [
      text.replace('{"format"', '{ "format"'),
      text.replace('}\n', '}\r\n'),
      text.replace('}\n', '}'),
      text.replace('}\n', '}\n\n'),
      text.replace(`"format":"${countersignatureFormat}","algorithm":"ed25519"`, `"algorithm":"ed25519","format":"${countersignatureFormat}"`),
      text.replace('"algorithm":"ed25519"', '"algorithm":"ed2551\\u0039"'),
      JSON.stringify(JSON.parse(text), null, 2),
      text.replace('}\n', ',"note":"x"}\n'),
    ]
    for (const variant of variants) {
      const result = checkCountersignature(new Uint8Array(Buffer.from(variant, 'ascii')), subject, context())
      assert.ok('code' in result && /malformed/.test(result.message), variant)
    }
  })
})

describe('a countersignature written to disk', () => {
  it('is found beside the artifact by default, and another file given instead is the one checked', async () => {
    const copy = `${dir}/copy.svcPlugin`
    await writeFile(copy, await readFile(pair.a))
    const missing = await verifyArtifact(copy, {trust: pair.pki.trust, now: testNow, requireStoreSignature: true})
    assert.equal(missing.problems[0]?.code, 'store-signature-missing')
    const given = await verifyArtifact(copy, {trust: pair.pki.trust, now: testNow, storeSignature: pair.countersig})
    assert.deepEqual([given.verdict, given.storeSignature?.store], ['Trusted', 'store.example'])
    const signedAgain = await writeSignedUpload(`${dir}/again.svcPlugin`, pair.pki, {now: new Date(testNow.getTime() + 1000)})
    const result = await verifyArtifact(signedAgain, {trust: pair.pki.trust, now: testNow, storeSignature: pair.countersig})
    assert.equal(result.problems[0]?.code, 'store-signature-invalid')
  })
})
