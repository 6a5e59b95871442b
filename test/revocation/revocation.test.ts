import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {decodeBase64} from '../../src/pki/base64.js'
import {computeArtifactDigest} from '../../src/artifact/digest.js'
import {readRevocationList, revocationSignatureFile, writeRevocationList} from '../../src/revocation/files.js'
import {sign} from '../../src/pki/ed25519.js'
import {
  createRevocationList,
  publicKeyFingerprint,
  revocationListMessage,
  revoke,
  type RevocationEntry,
  type RevocationList,
  type RevocationRequest,
  verifyRevocationList,
} from '../../src/revocation/list.js'
import {splitSignedManifest} from '../../src/artifact/trailer.js'
import {createRoot} from '../../src/pki/trust.js'
import {verifyContents} from '../../src/signing/verify.js'
import {tempDir} from '../helpers/cli.js'
import {type Artifact, contentsOf, flipByte, forgeSigned, signedSample} from '../signing/artifacts.js'
import {createPki, digestsOf, fieldsOf, issueFor, samplePlugin, type TestPki, testNow} from '../signing/pki.js'

const hour = 60 * 60 * 1000
const listTime = new Date(testNow.getTime() - 24 * hour)
const signedAt = '2030-06-01T12:00:00Z'
const bytes = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'))

/** A list of `pki`'s root with these entries, issued a day before the test clock. */
function listOf(pki: TestPki, entries: RevocationRequest[] = [], options: {sequence?: number; now?: Date; nextUpdate?: string} = {}) {
  return createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, entries, now: options.now ?? listTime, sequence: options.sequence, nextUpdate: options.nextUpdate})
}

/** Signs arbitrary list JSON with `privateKey`, the way a careless root could. */
function craftList(fields: Record<string, unknown>, privateKey: Uint8Array): RevocationList {
  const json = bytes(`${JSON.stringify(fields, null, 2)}\n`)
  return {json, sig: Buffer.from(sign(revocationListMessage(json), privateKey)).toString('base64')}
}

const certificateIdOf = (files: {json: Uint8Array}): string => fieldsOf(files).certificateId as string

/** The canonical artifact digest (sha256 of P) of an in-memory signed artifact. */
function artifactDigestOf(artifact: Artifact): string {
  const {unsigned} = splitSignedManifest(artifact.manifest as Uint8Array) as {unsigned: Uint8Array}
  return `sha256:${computeArtifactDigest({unsignedManifest: unsigned, files: digestsOf(artifact.entries)}).sha256}`
}

describe('a revocation list', () => {
  const pki = createPki()

  it('is created with sequence 1, the signing format of times, 7 days of validity and one base64 signature', () => {
    const list = listOf(pki)
    const text = Buffer.from(list.json).toString('utf8')
    assert.deepEqual(JSON.parse(text), {schemaVersion: 1, rootKeyId: 'root_test', sequence: 1, issuedAt: '2030-05-31T12:00:00Z', nextUpdate: '2030-06-07T12:00:00Z', entries: []})
    assert.ok(text.endsWith('}\n'))
    assert.match(list.sig, /^[A-Za-z0-9+/]{86}==$/)
    assert.equal(verifyRevocationList(list, pki.trust, {now: testNow}).content.sequence, 1)
  })

  it('carries each entry as {kind, value, revokedAt, reason}', () => {
    const list = listOf(pki, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'superseded', revokedAt: '2030-05-01T00:00:00Z'}])
    assert.deepEqual(verifyRevocationList(list, pki.trust, {now: testNow}).content.entries, [
      {kind: 'certificate', value: certificateIdOf(pki.certificate), revokedAt: '2030-05-01T00:00:00Z', reason: 'superseded'},
    ])
  })

  it('fingerprints a key as sha256: and the hex SHA-256 of its 32 raw bytes', () => {
    const key = new Uint8Array(32).fill(7)
    assert.equal(publicKeyFingerprint(key), `sha256:${createHash('sha256').update(key).digest('hex')}`)
  })

  describe('verification refuses with revocation-list-invalid', () => {
    const cases: Array<[string, () => RevocationList, RegExp]> = [
      ['a flipped byte in revocations.json', () => {
        const list = listOf(pki)
        return {json: flipByte(list.json, list.json.indexOf(0x31)), sig: list.sig}
      }, /does not verify/],
      ['a list signed by another key under the same root id', () => craftList(JSON.parse(Buffer.from(listOf(pki).json).toString()), createRoot('root_test').keyPair.privateKey), /does not verify/],
      ['a list naming a root the trust store lacks', () => {
        const other = createRoot('root_other')
        return createRevocationList({rootKeyId: 'root_other', rootPrivateKey: other.keyPair.privateKey, now: listTime})
      }, /root_other, which the trust store does not hold/],
      ['an unknown member', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), extra: true}, pki.root.privateKey), /unknown member "extra"/],
      ['sequence 0', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), sequence: 0}, pki.root.privateKey), /sequence must be an integer of at least 1/],
      ['schemaVersion 2', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), schemaVersion: 2}, pki.root.privateKey), /schemaVersion must be 1/],
      ['a time with fractions', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), issuedAt: '2030-05-31T12:00:00.000Z'}, pki.root.privateKey), /issuedAt must be a UTC time/],
      ['nextUpdate not after issuedAt', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), nextUpdate: '2030-05-31T12:00:00Z'}, pki.root.privateKey), /nextUpdate must be after issuedAt/],
      ['an entry with an unknown reason', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), entries: [{kind: 'key', value: `sha256:${'a'.repeat(64)}`, revokedAt: signedAt, reason: 'lost'}]}, pki.root.privateKey), /entries\[0\]: reason must be one of/],
      ['a certificate entry whose value is a digest', () => craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), entries: [{kind: 'certificate', value: `sha256:${'a'.repeat(64)}`, revokedAt: signedAt, reason: 'superseded'}]}, pki.root.privateKey), /a certificate value must be "cert_"/],
      ['the same target twice', () => {
        const entry = {kind: 'artifact', value: `sha256:${'b'.repeat(64)}`, revokedAt: signedAt, reason: 'malicious'}
        return craftList({...JSON.parse(Buffer.from(listOf(pki).json).toString()), entries: [entry, {...entry, reason: 'unspecified'}]}, pki.root.privateKey)
      }, /revokes artifact sha256:b+ a second time/],
      ['JSON with a duplicate key', () => {
        const text = Buffer.from(listOf(pki).json).toString().replace('"sequence": 1,', '"sequence": 1, "sequence": 9,')
        return {json: bytes(text), sig: Buffer.from(sign(revocationListMessage(bytes(text)), pki.root.privateKey)).toString('base64')}
      }, /not a strict JSON object/],
      ['a signature that is not base64 of 64 bytes', () => ({json: listOf(pki).json, sig: 'AAAA'}), /revocations.sig is not one line of base64/],
    ]
    for (const [name, build, message] of cases) {
      it(name, () => {
        assert.throws(() => verifyRevocationList(build(), pki.trust, {now: testNow}), (error: Error & {code?: string}) => {
          assert.equal(error.code, 'revocation-list-invalid')
          assert.match(error.message, message)
          return true
        })
      })
    }
  })

  it('accepts its signature file text with one trailing newline', () => {
    const list = listOf(pki)
    assert.equal(verifyRevocationList({json: list.json, sig: `${list.sig}\n`}, pki.trust, {now: testNow}).stale, false)
  })

  describe('past nextUpdate', () => {
    const list = listOf(pki, [], {now: new Date('2030-05-01T00:00:00Z')})

    it('is refused with revocation-list-stale', () => {
      assert.throws(() => verifyRevocationList(list, pki.trust, {now: testNow}), {code: 'revocation-list-stale'})
    })

    it('is still fresh at nextUpdate itself (the bound is inclusive)', () => {
      assert.equal(verifyRevocationList(list, pki.trust, {now: new Date('2030-05-08T00:00:00Z')}).stale, false)
    })

    it('is returned with stale: true when stale lists are allowed', () => {
      assert.equal(verifyRevocationList(list, pki.trust, {now: testNow, allowStale: true}).stale, true)
    })
  })

  describe('revoke', () => {
    it('appends the entry and re-signs with sequence + 1, a new issuedAt and nextUpdate', () => {
      const first = listOf(pki, [{kind: 'artifact', value: `sha256:${'c'.repeat(64)}`, reason: 'malicious'}])
      const next = revoke(first, {kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'superseded'}, pki.root.privateKey, {now: testNow})
      const {content} = verifyRevocationList(next, pki.trust, {now: testNow})
      assert.equal(content.sequence, 2)
      assert.equal(content.issuedAt, signedAt)
      assert.equal(content.nextUpdate, '2030-06-08T12:00:00Z')
      assert.deepEqual(content.entries.map((entry) => [entry.kind, entry.revokedAt]), [['artifact', '2030-05-31T12:00:00Z'], ['certificate', signedAt]])
    })

    it('takes an explicit nextUpdate and refuses one not after issuedAt (invalid-validity)', () => {
      const next = revoke(listOf(pki), {kind: 'key', value: `sha256:${'d'.repeat(64)}`, reason: 'key-compromise'}, pki.root.privateKey, {now: testNow, nextUpdate: '2030-07-01T00:00:00Z'})
      assert.equal(next.content.nextUpdate, '2030-07-01T00:00:00Z')
      assert.throws(() => revoke(listOf(pki), {kind: 'key', value: `sha256:${'d'.repeat(64)}`, reason: 'key-compromise'}, pki.root.privateKey, {now: testNow, nextUpdate: signedAt}), {code: 'invalid-validity'})
    })

    it("refuses another root's key with revocation-list-invalid", () => {
      assert.throws(() => revoke(listOf(pki), {kind: 'key', value: `sha256:${'d'.repeat(64)}`, reason: 'superseded'}, createRoot('root_test').keyPair.privateKey, {now: testNow}), {
        code: 'revocation-list-invalid',
      })
    })

    it('refuses a malformed target with invalid-revocation', () => {
      assert.throws(() => revoke(listOf(pki), {kind: 'certificate', value: 'cert_XYZ', reason: 'superseded'}, pki.root.privateKey, {now: testNow}), {code: 'invalid-revocation'})
    })

    it('refuses a target already revoked at least as strictly with already-revoked', () => {
      const value = certificateIdOf(pki.certificate)
      const list = listOf(pki, [{kind: 'certificate', value, reason: 'superseded', revokedAt: '2030-05-01T00:00:00Z'}])
      assert.throws(() => revoke(list, {kind: 'certificate', value, reason: 'cessation-of-operation', revokedAt: '2030-05-02T00:00:00Z'}, pki.root.privateKey, {now: testNow}), {code: 'already-revoked'})
    })

    it('widens a superseded certificate to key-compromise in place', () => {
      const value = certificateIdOf(pki.certificate)
      const list = listOf(pki, [{kind: 'certificate', value, reason: 'superseded', revokedAt: '2030-05-01T00:00:00Z'}])
      const next = revoke(list, {kind: 'certificate', value, reason: 'key-compromise', revokedAt: '2030-05-20T00:00:00Z'}, pki.root.privateKey, {now: testNow})
      assert.deepEqual(next.content.entries, [{kind: 'certificate', value, revokedAt: '2030-05-20T00:00:00Z', reason: 'key-compromise'}])
    })

    it('re-signs a stale list', () => {
      const stale = listOf(pki, [], {now: new Date('2030-01-01T00:00:00Z')})
      assert.equal(revoke(stale, {kind: 'key', value: `sha256:${'e'.repeat(64)}`, reason: 'superseded'}, pki.root.privateKey, {now: testNow}).content.sequence, 2)
    })
  })
})

describe('verifyContents with a revocation list', () => {
  let pki: TestPki
  let signed: Artifact
  before(async () => {
    pki = createPki()
    signed = await signedSample(pki)
  })

  const verifyWith = (artifact: Artifact, entries: RevocationRequest[], options: {listNow?: Date} = {}) =>
    verifyContents(contentsOf(artifact), {trust: pki.trust, now: testNow, revocations: listOf(pki, entries, {now: options.listNow})})

  it('is Trusted when nothing of it is revoked, and names the list it applied', async () => {
    const result = await verifyWith(signed, [{kind: 'key', value: `sha256:${'f'.repeat(64)}`, reason: 'key-compromise'}])
    assert.equal(result.verdict, 'Trusted')
    assert.deepEqual(result.revocations, {rootKeyId: 'root_test', sequence: 1, issuedAt: '2030-05-31T12:00:00Z', nextUpdate: '2030-06-07T12:00:00Z', stale: false})
  })

  it('a revoked key → Revoked even for a signature made long before revokedAt', async () => {
    const entry: RevocationRequest = {kind: 'key', value: publicKeyFingerprint(pki.signer.publicKey), reason: 'superseded', revokedAt: '2030-12-01T00:00:00Z'}
    const result = await verifyWith(signed, [entry])
    assert.equal(result.verdict, 'Revoked')
    assert.equal(result.valid, false)
    assert.deepEqual(result.problems.map((p) => p.code), ['revoked'])
    assert.deepEqual(result.problems[0]?.revocation, {...entry} as RevocationEntry)
    assert.match(result.problems[0]?.message ?? '', /key sha256:[0-9a-f]{64} of the certificate cert_/)
  })

  it('a certificate revoked for key-compromise → Revoked whatever signedAt', async () => {
    const result = await verifyWith(signed, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'key-compromise', revokedAt: '2030-12-01T00:00:00Z'}])
    assert.equal(result.verdict, 'Revoked')
    assert.match(result.problems[0]?.message ?? '', /revoked for key-compromise/)
  })

  it('a certificate revoked as malicious → Revoked whatever signedAt (the signer chose signedAt)', async () => {
    const result = await verifyWith(signed, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'malicious', revokedAt: '2030-12-01T00:00:00Z'}])
    assert.equal(result.verdict, 'Revoked')
  })

  describe('a certificate superseded', () => {
    it('keeps a signature made before revokedAt Trusted', async () => {
      const result = await verifyWith(signed, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'superseded', revokedAt: '2030-06-01T12:00:01Z'}])
      assert.equal(result.verdict, 'Trusted')
    })

    it('refuses a signature made at revokedAt', async () => {
      const result = await verifyWith(signed, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'superseded', revokedAt: signedAt}])
      assert.equal(result.verdict, 'Revoked')
      assert.match(result.problems[0]?.message ?? '', /revoked \(superseded\) from 2030-06-01T12:00:00Z, and the artifact was signed at 2030-06-01T12:00:00Z/)
    })

    it('refuses a signature made after revokedAt', async () => {
      const result = await verifyWith(signed, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'superseded', revokedAt: '2030-05-01T00:00:00Z'}])
      assert.equal(result.verdict, 'Revoked')
    })
  })

  it('a revoked artifact digest → Revoked, also re-signed later, while other content of the same signer stays Trusted', async () => {
    const entries: RevocationRequest[] = [{kind: 'artifact', value: artifactDigestOf(signed), reason: 'malicious', revokedAt: '2030-07-01T00:00:00Z'}]
    const result = await verifyWith(signed, entries)
    assert.equal(result.verdict, 'Revoked')
    assert.match(result.problems[0]?.message ?? '', /^The artifact sha256:[0-9a-f]{64} is revoked \(malicious/)
    // P covers the unsigned manifest and every entry, not the signing time: the same bytes signed again are the same artifact.
    const resigned = await signedSample(pki, {now: new Date('2030-06-01T11:00:00Z')})
    assert.equal((await verifyWith(resigned, entries)).verdict, 'Revoked')
    const other = await signedSample(pki, {publisherId: null})
    assert.equal((await verifyWith(other, entries)).verdict, 'Trusted')
  })

  describe('an issuer certificate revoked', () => {
    let issued: Artifact
    let issuerId: string
    let issuerKey: Uint8Array
    before(async () => {
      const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', id: 'com.example.issuing', usage: 'issuer'})
      const leaf = issueFor(issuer.keyPair.privateKey, pki.rootKeyId, {issuerCertificate: issuer.files.json})
      issued = await signedSample(pki, {chain: {certificate: leaf.files, issuer: issuer.files}, privateKey: leaf.keyPair.privateKey})
      issuerId = certificateIdOf(issuer.files)
      issuerKey = issuer.keyPair.publicKey
    })

    it('refuses what it issued (cessation-of-operation before signedAt)', async () => {
      assert.equal((await verifyWith(issued, [])).verdict, 'Trusted')
      const result = await verifyWith(issued, [{kind: 'certificate', value: issuerId, reason: 'cessation-of-operation', revokedAt: '2030-05-01T00:00:00Z'}])
      assert.equal(result.verdict, 'Revoked')
      assert.match(result.problems[0]?.message ?? '', new RegExp(`issuer certificate ${issuerId}`))
    })

    it('refuses what it issued when its key is revoked', async () => {
      const result = await verifyWith(issued, [{kind: 'key', value: publicKeyFingerprint(issuerKey), reason: 'key-compromise'}])
      assert.equal(result.verdict, 'Revoked')
    })
  })

  it('reports a forgery under a revoked certificate as SignatureInvalid, not Revoked (revocation is checked last)', async () => {
    const {manifest, payload} = samplePlugin()
    const forged = forgeSigned({packed: manifest, payload, chain: {certificate: pki.certificate}, privateKey: createRoot('root_zzzz').keyPair.privateKey, keyId: certificateIdOf(pki.certificate), signedAt})
    const result = await verifyWith(forged, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'key-compromise'}])
    assert.equal(result.verdict, 'SignatureInvalid')
  })

  it('throws revocation-list-invalid for a list it cannot trust, whatever the artifact', async () => {
    const list = listOf(pki)
    await assert.rejects(verifyContents(contentsOf(signed), {trust: pki.trust, now: testNow, revocations: {json: flipByte(list.json, 10), sig: list.sig}}), {code: 'revocation-list-invalid'})
  })

  it('throws revocation-list-stale for a stale list, and applies it with allowStaleRevocations', async () => {
    const stale = listOf(pki, [{kind: 'certificate', value: certificateIdOf(pki.certificate), reason: 'key-compromise'}], {now: new Date('2030-05-01T00:00:00Z')})
    await assert.rejects(verifyContents(contentsOf(signed), {trust: pki.trust, now: testNow, revocations: stale}), {code: 'revocation-list-stale'})
    const result = await verifyContents(contentsOf(signed), {trust: pki.trust, now: testNow, revocations: stale, allowStaleRevocations: true})
    assert.equal(result.verdict, 'Revoked')
    assert.equal(result.revocations?.stale, true)
  })
})

describe('signing a list needs the root private key', () => {
  it('the list signature is Ed25519 over svc-plugin-revocations/1\\n and the exact bytes', async () => {
    const pki = createPki()
    const list = listOf(pki)
    const expected = Buffer.from(sign(Buffer.concat([Buffer.from('svc-plugin-revocations/1\n'), list.json]), pki.root.privateKey)).toString('base64')
    assert.equal(list.sig, expected)
    assert.equal(decodeBase64(list.sig)?.length, 64)
  })
})

describe('revocation list files', () => {
  let dir: string
  let cleanup: () => Promise<void>
  before(async () => {
    ;({dir, cleanup} = await tempDir('svc-plugin-revocation-files-'))
  })
  after(async () => cleanup())

  it('are written as revocations.json and revocations.sig (one base64 line) and read back unchanged', async () => {
    const pki = createPki()
    const list = listOf(pki)
    const file = path.join(dir, 'revocations.json')
    assert.equal(revocationSignatureFile(file), path.join(dir, 'revocations.sig'))
    await writeRevocationList(list, file)
    assert.equal(await readFile(path.join(dir, 'revocations.sig'), 'utf8'), `${list.sig}\n`)
    const read = await readRevocationList(file)
    assert.deepEqual(Buffer.from(read.json), Buffer.from(list.json))
    assert.equal(verifyRevocationList(read, pki.trust, {now: testNow}).content.sequence, 1)
    const next = revoke(read, {kind: 'key', value: `sha256:${'1'.repeat(64)}`, reason: 'superseded'}, pki.root.privateKey, {now: testNow})
    await writeRevocationList(next, file)
    assert.equal(verifyRevocationList(await readRevocationList(file), pki.trust, {now: testNow}).content.sequence, 2)
  })

  it('a missing signature file is revocation-list-unreadable', async () => {
    const file = path.join(dir, 'lonely.json')
    await writeFile(file, '{}')
    await assert.rejects(readRevocationList(file), {code: 'revocation-list-unreadable'})
    await rm(file)
  })
})
