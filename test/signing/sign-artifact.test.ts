import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {createPublicKey, verify as nodeVerify} from 'node:crypto'
import {mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {openArchive} from '../../src/archive/reader.js'
import {type CertificateFiles, parseCertificate} from '../../src/pki/certificate.js'
import {computeArtifactDigest, signatureMessage} from '../../src/artifact/digest.js'
import {signArtifact, type SignArtifactTarget} from '../../src/signing/sign-artifact.js'
import {splitSignedManifest} from '../../src/artifact/trailer.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {flipByte, writeArtifact} from './artifacts.js'
import {createPki, digestsOf, issueFor, samplePlugin, testNow, type TestPki} from './pki.js'

let dir: string
let pki: TestPki
let unsigned: string
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-sign-'))
  pki = createPki()
  const {manifest, payload} = samplePlugin()
  unsigned = await writeArtifact(path.join(dir, 'unsigned.svcPlugin'), {manifest, entries: payload})
})
after(async () => {
  await rm(dir, {recursive: true, force: true})
})

let counter = 0
const out = (): string => path.join(dir, `signed-${counter++}.svcPlugin`)
/** Overrides of the in-memory signing of {@link unsigned}. */
type SignOverrides = Partial<SignArtifactTarget> & {privateKey?: Uint8Array; certificate?: CertificateFiles; issuer?: CertificateFiles}
const sign = (options: SignOverrides = {}) =>
  signArtifact({artifact: unsigned, privateKey: pki.signer.privateKey, certificate: pki.certificate, output: out(), now: testNow, ...options})

async function readAll(file: string): Promise<{names: string[]; modes: Map<string, number>; bytes: Map<string, Buffer>}> {
  const archive = await openArchive(file)
  try {
    const bytes = new Map<string, Buffer>()
    for (const entry of archive.entries) bytes.set(entry.name, await archive.readEntry(entry))
    return {names: archive.entries.map((e) => e.name), modes: new Map(archive.entries.map((e) => [e.name, e.mode & 0o777])), bytes}
  } finally {
    await archive.close()
  }
}

describe('signArtifact', () => {
  it('writes manifest.json first, the same payload with its modes, and certificate.json + certificate.sig; it verifies', async () => {
    const result = await sign()
    const before = await readAll(unsigned)
    const after = await readAll(result.output)
    assert.deepEqual(after.names, ['manifest.json', 'Localization/Strings.resx', 'assets/icon.png', 'certificate.json', 'certificate.sig', 'runtimes/linux-x64/weather-station', 'runtimes/win-x64/WeatherStation.exe'])
    for (const name of before.names.filter((n) => n !== 'manifest.json')) {
      assert.deepEqual(after.bytes.get(name), before.bytes.get(name), name)
      assert.equal(after.modes.get(name), before.modes.get(name), name)
    }
    assert.deepEqual(after.bytes.get('certificate.json'), Buffer.from(pki.certificate.json))
    assert.equal(after.bytes.get('certificate.sig')?.toString('utf8'), `${pki.certificate.sig}\n`)
    assert.equal(result.signedAt, '2030-06-01T12:00:00Z')
    assert.equal(result.certificateId, parseCertificate(pki.certificate.json).certificateId)
    const verified = await verifyArtifact(result.output, {trust: pki.trust, now: testNow})
    assert.equal(verified.verdict, 'Trusted')
  })

  it('is deterministic: the same artifact, key and time give the same bytes', async () => {
    const first = await sign()
    const second = await sign()
    assert.deepEqual(await readFile(first.output), await readFile(second.output))
  })

  it('keeps the packed manifest bytes in U: only trailing whitespace and the final "}" give way to containerDigest, then the trailer', async () => {
    const result = await sign()
    const signedManifest = (await readAll(result.output)).bytes.get('manifest.json') as Buffer
    const split = splitSignedManifest(signedManifest)
    assert.ok(!('code' in split))
    const packed = Buffer.from(samplePlugin().manifest).toString('utf8').trimEnd()
    assert.equal(Buffer.from(split.unsigned).toString('utf8'), `${packed.slice(0, -1)},"containerDigest":"${result.containerDigest}"}`)
    assert.match(result.containerDigest, /^sha256:[0-9a-f]{64}$/)
  })

  it('signs with an issuer chain and writes issuer.json and issuer.sig', async () => {
    const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', usage: 'issuer'})
    const leaf = issueFor(issuer.keyPair.privateKey, pki.rootKeyId, {issuerCertificate: issuer.files.json})
    const result = await sign({privateKey: leaf.keyPair.privateKey, certificate: leaf.files, issuer: issuer.files})
    const verified = await verifyArtifact(result.output, {trust: pki.trust, now: testNow})
    assert.equal(verified.verdict, 'Trusted')
    assert.equal(verified.issuerCertificateId, parseCertificate(issuer.files.json).certificateId)
    assert.ok((await readAll(result.output)).names.includes('issuer.sig'))
  })

  const refusals: [string, (output: string) => Promise<unknown>, string][] = [
    ['an existing output', async () => sign({output: unsigned}), 'output-exists'],
    ['an already signed artifact', async (output) => sign({artifact: (await sign()).output, output}), 'already-signed'],
    ['a key that is not the certificate\'s', async (output) => sign({privateKey: pki.root.privateKey, output}), 'key-mismatch'],
    ['a certificate not yet valid now', async (output) => sign({now: new Date('2029-12-31T23:59:59Z'), output}), 'certificate-not-yet-valid'],
    ['a certificate expired now', async (output) => sign({now: new Date('2031-01-01T00:00:01Z'), output}), 'certificate-expired'],
    ['a registry certificate', async (output) => {
      const registry = issueFor(pki.root.privateKey, pki.rootKeyId, {usage: 'registry'})
      return sign({privateKey: registry.keyPair.privateKey, certificate: registry.files, output})
    }, 'certificate-wrong-purpose'],
    ['an issued certificate without its issuer', async (output) => {
      const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', usage: 'issuer'})
      const leaf = issueFor(issuer.keyPair.privateKey, pki.rootKeyId, {issuerCertificate: issuer.files.json})
      return sign({privateKey: leaf.keyPair.privateKey, certificate: leaf.files, output})
    }, 'certificate-issuer-missing'],
    ['a manifest naming another publisher', async (output) => {
      const {manifest, payload} = samplePlugin({publisherId: 'com.other'})
      return sign({artifact: await writeArtifact(out(), {manifest, entries: payload}), output})
    }, 'publisher-mismatch'],
    ['an artifact whose files[] misses a file', async (output) => {
      const {manifest, payload} = samplePlugin()
      return sign({artifact: await writeArtifact(out(), {manifest, entries: new Map([...payload, ['extra.txt', new Uint8Array([1])]])}), output})
    }, 'undeclared-file'],
    ['an artifact without files[]', async (output) => {
      const {manifest, payload} = samplePlugin()
      const text = Buffer.from(manifest).toString('utf8')
      const withoutFiles = JSON.stringify({...JSON.parse(text), files: undefined}, null, 2)
      return sign({artifact: await writeArtifact(out(), {manifest: new Uint8Array(Buffer.from(withoutFiles)), entries: payload}), output})
    }, 'undeclared-file'],
    ['an artifact without manifest.json', async (output) => {
      const {payload} = samplePlugin()
      return sign({artifact: await writeArtifact(out(), {manifest: null, entries: payload}), output})
    }, 'manifest-missing'],
    ['an artifact missing a file its files[] lists', async (output) => {
      const {manifest, payload} = samplePlugin()
      const fewer = new Map([...payload].filter(([name]) => name !== 'assets/icon.png'))
      return sign({artifact: await writeArtifact(out(), {manifest, entries: fewer}), output})
    }, 'file-missing'],
    ['an artifact whose file has another size than files[] says', async (output) => {
      const {manifest, payload} = samplePlugin()
      const icon = payload.get('assets/icon.png') as Uint8Array
      return sign({artifact: await writeArtifact(out(), {manifest, entries: new Map([...payload, ['assets/icon.png', Buffer.concat([icon, Buffer.from([0])])]])}), output})
    }, 'file-size-mismatch'],
    ['an artifact whose file has the declared size but other bytes', async (output) => {
      const {manifest, payload} = samplePlugin()
      const icon = payload.get('assets/icon.png') as Uint8Array
      return sign({artifact: await writeArtifact(out(), {manifest, entries: new Map([...payload, ['assets/icon.png', flipByte(icon, 0)]])}), output})
    }, 'file-digest-mismatch'],
    ['a certificate signature that is not base64 of 64 bytes', async (output) => sign({certificate: {json: pki.certificate.json, sig: '*'.repeat(88)}, output}), 'certificate-unreadable'],
    ['a truncated certificate signature', async (output) => sign({certificate: {json: pki.certificate.json, sig: pki.certificate.sig.slice(0, 40)}, output}), 'certificate-unreadable'],
  ]
  it('refuses a folder where the output should be as write-failed (EISDIR), leaving it empty', async () => {
    const output = path.join(dir, `folder-output-${counter++}`)
    await mkdir(output)
    await assert.rejects(sign({output}), {code: 'write-failed', details: {path: output, reason: 'EISDIR'}})
    assert.deepEqual(await readdir(output), [])
  })

  it('creates the missing folders of its output', async () => {
    const output = path.join(dir, `nested-${counter++}`, 'a', 'signed.svcPlugin')
    const result = await sign({output})
    assert.equal(result.output, output)
  })

  for (const [label, attempt, code] of refusals) {
    it(`refuses ${label} with ${code} and leaves no output`, async () => {
      const output = path.join(dir, `refused-${code}-${counter++}.svcPlugin`)
      await assert.rejects(attempt(output), {code})
      await assert.rejects(stat(output), {code: 'ENOENT'})
    })
  }

  it('throws the archive reader\'s error for an input that is not a ZIP', async () => {
    const file = path.join(dir, 'garbage.svcPlugin')
    await writeFile(file, 'garbage')
    await assert.rejects(sign({artifact: file}), {code: 'not-an-artifact'})
  })
})

describe('the digest text P rebuilt without the library (unzip + python3)', () => {
  it('matches the library byte for byte, and node:crypto verifies the signature over it', async () => {
    const result = await sign()
    const extracted = path.join(dir, 'extracted')
    execFileSync('unzip', ['-q', result.output, '-d', extracted])
    // An independent reading of docs/signing.md: trailer, U, sorted file lines, the signature message.
    const script = String.raw`
import hashlib, json, os, re, sys
root = sys.argv[1]
data = open(os.path.join(root, 'manifest.json'), 'rb').read()
m = re.search(rb',"signature":\{"algorithm":"([^"\\]+)","keyId":"([^"\\]+)","value":"([^"\\]+)","signedAt":"([^"\\]+)"\}\}\n\Z', data)
u = data[:m.start()] + b'}'
names = []
for d, _, fs in os.walk(root):
    for f in fs:
        rel = os.path.relpath(os.path.join(d, f), root).replace(os.sep, '/')
        if rel != 'manifest.json':
            names.append(rel)
names.sort(key=lambda n: n.encode('utf-8'))
lines = ['svc-plugin-artifact/1', 'manifest sha256:%s %d' % (hashlib.sha256(u).hexdigest(), len(u))]
for n in names:
    b = open(os.path.join(root, n), 'rb').read()
    lines.append('file sha256:%s %d %s' % (hashlib.sha256(b).hexdigest(), len(b), n))
lines.append('end %d' % len(names))
p = ''.join(l + '\n' for l in lines)
alg, key_id, value, signed_at = (g.decode() for g in m.groups())
message = 'svc-plugin-signature/1\nalgorithm %s\nkey-id %s\nsigned-at %s\nartifact-digest sha256:%s\n' % (alg, key_id, signed_at, hashlib.sha256(p.encode()).hexdigest())
print(json.dumps({'p': p, 'digest': hashlib.sha256(p.encode()).hexdigest(), 'message': message, 'value': value}))
`
    const independent = JSON.parse(execFileSync('python3', ['-c', script, extracted], {encoding: 'utf8'})) as {p: string; digest: string; message: string; value: string}

    const {bytes} = await readAll(result.output)
    const split = splitSignedManifest(bytes.get('manifest.json') as Buffer)
    assert.ok(!('code' in split))
    const files = digestsOf(new Map([...bytes].filter(([name]) => name !== 'manifest.json')))
    const library = computeArtifactDigest({unsignedManifest: split.unsigned, files})
    assert.equal(independent.p, library.text)
    assert.equal(independent.digest, library.sha256)
    assert.equal(independent.digest, result.artifactDigest)
    assert.equal(independent.message, signatureMessage({keyId: result.certificateId, signedAt: result.signedAt, artifactDigestHex: library.sha256}))

    const spki = createPublicKey({key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(pki.signer.publicKey)]), format: 'der', type: 'spki'})
    assert.equal(nodeVerify(null, Buffer.from(independent.message, 'utf8'), spki, Buffer.from(independent.value, 'base64')), true)
  })
})

