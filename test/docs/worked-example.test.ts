import assert from 'node:assert/strict'
import {createHash, createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject} from 'node:crypto'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {openArchive} from '../../src/archive/reader.js'
import {pack} from '../../src/pack/pack.js'
import {RevocationError} from '../../src/revocation/errors.js'
import type {RevocationList} from '../../src/revocation/list.js'
import {admitRevocationList} from '../../src/install/revocation-state.js'
import {signArtifact} from '../../src/signing/sign-artifact.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {buildWorkedExample, docPath, exampleInputs, readDocumentBlocks, type ExampleBlocks, type WorkedExample} from '../../scripts/docs-example.js'

const regenerate = 'Run `npx tsx scripts/docs-example.ts --write` to regenerate the example blocks of docs/signing.md and docs/revocation.md, then review the prose around them.'

let doc: string
let blocks: ExampleBlocks
let revocationDoc: string
let revocationBlocks: ExampleBlocks
let example: WorkedExample
before(async () => {
  doc = await readFile(docPath('signing.md'), 'utf8')
  blocks = readDocumentBlocks(doc)
  revocationDoc = await readFile(docPath('revocation.md'), 'utf8')
  revocationBlocks = readDocumentBlocks(revocationDoc)
  example = await buildWorkedExample()
})

/** The exact content of a documented block (each block's text ends with the newline before its closing fence). */
function block(name: string, from: 'signing' | 'revocation' = 'signing'): string {
  const text = (from === 'signing' ? blocks : revocationBlocks).get(name)
  assert.notEqual(text, undefined, `docs/${from}.md has no <!-- example:${name} --> block. ${regenerate}`)
  return text as string
}

/** The one-line value of a block, without its final newline. */
function value(name: string, from: 'signing' | 'revocation' = 'signing'): string {
  const text = block(name, from)
  assert.ok(text.endsWith('\n') && !text.slice(0, -1).includes('\n'), `The ${name} block is not one line.`)
  return text.slice(0, -1)
}

/** A documented revocation list: the bytes of its JSON block and the text of its signature block. */
function documentedList(number: 1 | 2): RevocationList {
  return {json: new Uint8Array(utf8(block(`list-${number}-json`, 'revocation'))), sig: block(`list-${number}-sig`, 'revocation')}
}

const utf8 = (text: string): Buffer => Buffer.from(text, 'utf8')
const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** An Ed25519 private key from a 32-byte RFC 8032 seed, through node:crypto's PKCS #8 import (RFC 8410). */
function nodePrivateKey(seed: Buffer): KeyObject {
  assert.equal(seed.length, 32)
  return createPrivateKey({key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]), format: 'der', type: 'pkcs8'})
}

/** An Ed25519 public key from its 32 raw bytes (SubjectPublicKeyInfo, RFC 8410). */
function nodePublicKey(raw: Buffer): KeyObject {
  assert.equal(raw.length, 32)
  return createPublicKey({key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki'})
}

/** The 32 raw bytes of a node:crypto Ed25519 public key. */
function rawPublicKey(key: KeyObject): Buffer {
  return key.export({format: 'der', type: 'spki'}).subarray(12)
}

/** A base64 line file (signing.md §1.1): canonical base64, then one newline. */
function decodeLineFile(text: string, length: number): Buffer {
  assert.match(text, /^[A-Za-z0-9+/]+={0,2}\n$/)
  const bytes = Buffer.from(text.slice(0, -1), 'base64')
  assert.equal(bytes.length, length)
  assert.equal(`${bytes.toString('base64')}\n`, text, 'not canonical base64')
  return bytes
}

/** The documented source files: path and bytes, from the document's own blocks. */
function documentedFiles(): {path: string; bytes: Buffer}[] {
  return exampleInputs.sourceFiles.map((file) => ({path: file.path, bytes: utf8(block(file.block))}))
}

describe('the worked examples of docs/signing.md and docs/revocation.md', () => {
  it('quote exactly the values the library produces today', () => {
    for (const [documented, produced, name] of [
      [blocks, example.blocks, 'signing'],
      [revocationBlocks, example.revocationBlocks, 'revocation'],
    ] as const) {
      for (const [block, expected] of produced) {
        assert.equal(documented.get(block), expected, `Block example:${block} of docs/${name}.md differs from what the library produces. ${regenerate}`)
      }
      assert.deepEqual([...documented.keys()].sort(), [...produced.keys()].sort(), `docs/${name}.md has example blocks the generator does not know. ${regenerate}`)
    }
  })

  it('states the sizes the example produces in its prose', () => {
    const certificateJson = utf8(block('certificate-json'))
    const signed = block('signed-manifest')
    const unsigned = utf8(`${signed.slice(0, signed.lastIndexOf(',"signature":{"algorithm":"'))}}`)
    const certificateSig = utf8(block('certificate-sig'))
    const packed = utf8(block('packed-manifest'))
    for (const phrase of [
      `including the last; ${certificateJson.length} bytes)`,
      `followed by the ${certificateJson.length} bytes`,
      `\`,"containerDigest":"sha256:<hex>"}\` (${unsigned.length} bytes)`,
      `\`certificate.sig\` (${certificateSig.length} bytes: ${certificateSig.length - 1} base64 characters and \`\\n\`)`,
      `\`manifest.json\` (${packed.length} bytes, deflated)`,
    ]) {
      assert.ok(doc.includes(phrase), `docs/signing.md should say: ${phrase}. ${regenerate}`)
    }
  })
})

describe('the worked example checked against the documented rules with node:crypto', () => {
  it('derives each documented public key file from its documented seed (signing.md §2)', () => {
    for (const who of ['root', 'publisher'] as const) {
      const seed = Buffer.from(value(`${who}-seed`), 'hex')
      assert.deepEqual(decodeLineFile(block(`${who}-key-file`), 32), seed)
      const derived = rawPublicKey(createPublicKey(nodePrivateKey(seed)))
      assert.deepEqual(decodeLineFile(block(`${who}-public-key-file`), 32), derived, `${who}.pub is not the public key of ${who}.key`)
    }
  })

  it('trusts the root under its documented id (signing.md §4)', () => {
    const trust = JSON.parse(block('trust-store')) as {roots: {rootKeyId: string; publicKey: string}[]}
    assert.deepEqual(trust, {roots: [{rootKeyId: exampleInputs.rootKeyId, publicKey: value('root-public-key-file')}]})
  })

  it('carries a certificate for the publisher key, signed by the root over "svc-plugin-certificate/1\\n" + its bytes (signing.md §3)', () => {
    const json = utf8(block('certificate-json'))
    const certificate = JSON.parse(json.toString('utf8')) as Record<string, unknown>
    assert.deepEqual(Object.keys(certificate), ['schemaVersion', 'certificateId', 'subject', 'algorithm', 'publicKey', 'keyUsage', 'notBefore', 'notAfter', 'issuedAt', 'rootKeyId'])
    assert.equal(certificate.publicKey, value('publisher-public-key-file'))
    assert.equal(certificate.rootKeyId, exampleInputs.rootKeyId)
    assert.deepEqual(certificate.keyUsage, ['package'])
    const rootKey = nodePublicKey(Buffer.from(value('root-public-key-file'), 'base64'))
    const signature = decodeLineFile(block('certificate-sig'), 64)
    assert.equal(nodeVerify(null, Buffer.concat([utf8('svc-plugin-certificate/1\n'), json]), rootKey, signature), true)
    assert.equal(nodeVerify(null, json, rootKey, signature), false, 'the domain prefix must be part of the signed message')
  })

  it('lists every documented file in files[] with its SHA-256 and size, sorted by UTF-8 bytes (artifact-format.md §9.1)', () => {
    const packed = JSON.parse(block('packed-manifest')) as {files: {path: string; sha256: string; size: number}[]; languages: string[]}
    const expected = documentedFiles()
      .sort((a, b) => Buffer.compare(utf8(a.path), utf8(b.path)))
      .map((file) => ({path: file.path, sha256: `sha256:${sha256Hex(file.bytes)}`, size: file.bytes.length}))
    assert.deepEqual(packed.files, expected)
    assert.deepEqual(packed.languages, ['en'])
    // The packed manifest keeps the source members in order, then languages, then files.
    const source = JSON.parse(block('source-manifest')) as Record<string, unknown>
    assert.deepEqual(Object.keys(packed), [...Object.keys(source), 'languages', 'files'])
    assert.ok(block('packed-manifest').endsWith('}\n'))
  })

  it('ends the signed manifest with the trailer, and U is the packed manifest without its final newline and }, then containerDigest (signing.md §5)', () => {
    const signed = block('signed-manifest')
    const trailer = block('trailer')
    assert.ok(signed.endsWith(trailer))
    assert.match(trailer, /^,"signature":\{"algorithm":"ed25519","keyId":"cert_[0-9a-f]{32}","value":"[A-Za-z0-9+/]+={0,2}","signedAt":"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"\}\}\n$/)
    // The trailer of an ed25519 signature by a certificate id is 219 bytes (artifact-format.md §10.2).
    assert.equal(utf8(trailer).length, 219)
    const at = signed.lastIndexOf(',"signature":{"algorithm":"')
    assert.equal(signed.slice(at), trailer)
    const unsigned = `${signed.slice(0, at)}}`
    assert.equal(unsigned, `${block('packed-manifest').replace(/\s+$/, '').slice(0, -1)},"containerDigest":"sha256:${value('container-digest')}"}`)
    assert.equal(`${unsigned.slice(0, -1)}${trailer}`, signed, 'the signer replaces the final } by the trailer')
    const parsed = JSON.parse(signed) as {signature: Record<string, string>}
    assert.deepEqual(parsed.signature, {algorithm: 'ed25519', keyId: exampleInputs.certificateId, value: value('signature-value'), signedAt: exampleInputs.signedAt})
  })

  it('rebuilds the digest text P and its SHA-256 from the documented rules (signing.md §6)', () => {
    const signed = block('signed-manifest')
    const unsigned = utf8(`${signed.slice(0, signed.lastIndexOf(',"signature":{"algorithm":"'))}}`)
    const entries = [
      ...documentedFiles(),
      {path: 'certificate.json', bytes: utf8(block('certificate-json'))},
      {path: 'certificate.sig', bytes: utf8(block('certificate-sig'))},
    ].sort((a, b) => Buffer.compare(utf8(a.path), utf8(b.path)))
    const lines = [
      'svc-plugin-artifact/1',
      `manifest sha256:${sha256Hex(unsigned)} ${unsigned.length}`,
      ...entries.map((entry) => `file sha256:${sha256Hex(entry.bytes)} ${entry.bytes.length} ${entry.path}`),
      `end ${entries.length}`,
    ]
    const text = lines.map((line) => `${line}\n`).join('')
    assert.equal(block('digest-text'), text)
    assert.equal(value('digest-sha256'), sha256Hex(utf8(text)))
  })

  it('rebuilds the signature message, and node:crypto verifies and reproduces the signature (signing.md §7)', () => {
    const message = [
      'svc-plugin-signature/1',
      'algorithm ed25519',
      `key-id ${exampleInputs.certificateId}`,
      `signed-at ${exampleInputs.signedAt}`,
      `artifact-digest sha256:${sha256Hex(utf8(block('digest-text')))}`,
    ]
      .map((line) => `${line}\n`)
      .join('')
    assert.equal(block('signature-message'), message)
    const signature = Buffer.from(value('signature-value'), 'base64')
    assert.equal(signature.length, 64)
    const certificate = JSON.parse(block('certificate-json')) as {publicKey: string}
    assert.equal(nodeVerify(null, utf8(message), nodePublicKey(Buffer.from(certificate.publicKey, 'base64')), signature), true)
    // Ed25519 is deterministic: the publisher seed signs the message to exactly the documented value.
    assert.deepEqual(nodeSign(null, utf8(message), nodePrivateKey(Buffer.from(value('publisher-seed'), 'hex'))), signature)
  })
})

describe('the revocation example checked against the documented rules with node:crypto', () => {
  it('fingerprints the publisher key as sha256: + hex SHA-256 of its 32 raw bytes (revocation.md §2)', () => {
    const raw = Buffer.from(value('publisher-public-key-file'), 'base64')
    assert.equal(value('publisher-key-fingerprint', 'revocation'), `sha256:${sha256Hex(raw)}`)
  })

  it('names the artifact by sha256: + hex SHA-256 of P (revocation.md §2)', () => {
    assert.equal(value('artifact-digest', 'revocation'), `sha256:${value('digest-sha256')}`)
  })

  it('signs each list with the root over "svc-plugin-revocations/1\\n" + its bytes (revocation.md §3)', () => {
    const rootKey = nodePublicKey(Buffer.from(value('root-public-key-file'), 'base64'))
    for (const number of [1, 2] as const) {
      const json = utf8(block(`list-${number}-json`, 'revocation'))
      const signature = decodeLineFile(block(`list-${number}-sig`, 'revocation'), 64)
      assert.equal(nodeVerify(null, Buffer.concat([utf8('svc-plugin-revocations/1\n'), json]), rootKey, signature), true, `list ${number}`)
      assert.equal(nodeVerify(null, Buffer.concat([utf8('svc-plugin-certificate/1\n'), json]), rootKey, signature), false)
    }
  })

  it('re-signs the second list with the sequence raised by one and the new entry appended (revocation.md §6)', () => {
    type List = {schemaVersion: number; rootKeyId: string; sequence: number; issuedAt: string; nextUpdate: string; entries: Record<string, string>[]}
    const first = JSON.parse(block('list-1-json', 'revocation')) as List
    const second = JSON.parse(block('list-2-json', 'revocation')) as List
    assert.deepEqual(Object.keys(first), ['schemaVersion', 'rootKeyId', 'sequence', 'issuedAt', 'nextUpdate', 'entries'])
    assert.equal(second.sequence, first.sequence + 1)
    assert.deepEqual(second.entries.slice(0, -1), first.entries)
    assert.deepEqual(second.entries.at(-1), {kind: 'key', value: value('publisher-key-fingerprint', 'revocation'), revokedAt: second.issuedAt, reason: 'key-compromise'})
    // The default freshness of a new list: 7 days.
    assert.equal(Date.parse(second.nextUpdate) - Date.parse(second.issuedAt), 7 * 24 * 60 * 60 * 1000)
  })
})

describe('the worked example as real files', () => {
  let dir: string
  let signedFile: string
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-docs-'))
    const source = path.join(dir, 'hello')
    await mkdir(source)
    // The source folder is written from the document's own blocks.
    await writeFile(path.join(source, 'manifest.json'), block('source-manifest'))
    for (const file of documentedFiles()) {
      await mkdir(path.dirname(path.join(source, file.path)), {recursive: true})
      await writeFile(path.join(source, file.path), file.bytes)
    }
    const packed = await pack(source, {output: path.join(dir, 'packed.svcPlugin')})
    signedFile = path.join(dir, 'signed.svcPlugin')
    await signArtifact({
      artifact: packed.path,
      output: signedFile,
      privateKey: new Uint8Array(Buffer.from(value('publisher-seed'), 'hex')),
      certificate: {json: new Uint8Array(utf8(block('certificate-json'))), sig: value('certificate-sig')},
      now: new Date(exampleInputs.signedAt),
    })
  })
  after(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  it('packs and signs to the documented manifest.json and entry table', async () => {
    const table = [...doc.matchAll(/^\| `([^`]+)` \| (\d+) \| (deflate|stored) \| (0[0-7]{3}) \|$/gm)].map((row) => ({
      name: row[1],
      size: Number(row[2]),
      method: row[3] === 'deflate' ? 8 : 0,
      mode: row[4],
    }))
    const archive = await openArchive(signedFile)
    try {
      assert.deepEqual(
        archive.entries.map((entry) => ({name: entry.name, size: entry.uncompressedSize, method: entry.method, mode: `0${(entry.mode & 0o777).toString(8)}`})),
        table,
        `The entry table of docs/signing.md §11.6 differs from the signed artifact. ${regenerate}`,
      )
      const manifest = await archive.readEntry(archive.get('manifest.json')!)
      assert.equal(manifest.toString('utf8'), block('signed-manifest'))
    } finally {
      await archive.close()
    }
  })

  it('carries the documented container digest: the file with the documented ranges zeroed hashes to it (artifact-format.md §10.2)', async () => {
    const file = await readFile(signedFile)
    const ranges = [...block('container-ranges').matchAll(/bytes (\d+) to (\d+) \((\d+)\)/g)].map((match) => [Number(match[1]), Number(match[2]) + 1] as const)
    assert.deepEqual(ranges.map(([start, end]) => end - start), [64, 88, 4, 4])
    assert.ok(block('container-ranges').endsWith(`file: ${file.length} bytes\n`))
    assert.ok(doc.includes(`The signed artifact is ${file.length.toLocaleString('en-US')} bytes.`), `docs/signing.md should give the signed artifact's size. ${regenerate}`)
    // The ranges as a third party finds them from the documented rules alone.
    const end = file.length - 22
    const central = file.readUInt32LE(end + 16) // manifest.json is the first record: the signer writes it first
    assert.equal(file.subarray(central + 46, central + 46 + file.readUInt16LE(central + 28)).toString('utf8'), 'manifest.json')
    const local = file.readUInt32LE(central + 42)
    const data = local + 30 + file.readUInt16LE(local + 26) + file.readUInt16LE(local + 28)
    const trailer = data + file.readUInt32LE(central + 20) - 219
    assert.deepEqual(ranges, [[trailer - 65, trailer - 1], [trailer + 93, trailer + 181], [local + 14, local + 18], [central + 16, central + 20]])
    const zeroed = Buffer.from(file)
    for (const [start, stop] of ranges) zeroed.fill(0, start, stop)
    assert.equal(sha256Hex(zeroed), value('container-digest'))
    assert.equal(file.subarray(trailer - 65, trailer - 1).toString('latin1'), value('container-digest'))
  })

  it('verifies as Trusted with the documented trust store from 5 minutes before signedAt', async () => {
    const trust = JSON.parse(block('trust-store')) as {roots: {rootKeyId: string; publicKey: string}[]}
    const onTime = await verifyArtifact(signedFile, {trust, now: new Date('2030-06-01T11:55:00Z')})
    assert.equal(onTime.verdict, 'Trusted')
    assert.equal(onTime.certificateId, exampleInputs.certificateId)
    const later = await verifyArtifact(signedFile, {trust, now: new Date('2040-01-01T00:00:00Z')})
    assert.equal(later.verdict, 'Trusted')
    const early = await verifyArtifact(signedFile, {trust, now: new Date('2030-06-01T11:54:59Z')})
    assert.deepEqual(early.problems.map((problem) => problem.code), ['signed-in-future'])
  })

  it('stays Trusted under the first revocation list: it was signed before the certificate was superseded', async () => {
    const result = await verifyArtifact(signedFile, {trust: example.trustStore, now: new Date('2030-07-02T00:00:00Z'), revocations: documentedList(1)})
    assert.equal(result.verdict, 'Trusted')
    assert.deepEqual(result.revocations, {rootKeyId: exampleInputs.rootKeyId, sequence: 1, issuedAt: '2030-07-01T00:00:00Z', nextUpdate: '2030-07-08T00:00:00Z', stale: false})
  })

  it('is Revoked under the second list, which revokes the publisher key', async () => {
    const result = await verifyArtifact(signedFile, {trust: example.trustStore, now: new Date('2030-07-10T00:00:00Z'), revocations: documentedList(2)})
    assert.equal(result.verdict, 'Revoked')
    assert.deepEqual(result.problems.map((problem) => [problem.code, problem.revocation?.kind]), [['revoked', 'key']])
  })

  it('refuses the second list once it is past nextUpdate, with revocation-list-stale', async () => {
    await assert.rejects(
      verifyArtifact(signedFile, {trust: example.trustStore, now: new Date('2030-07-10T00:00:01Z'), revocations: documentedList(2)}),
      (error: unknown) => error instanceof RevocationError && error.code === 'revocation-list-stale',
    )
  })

  it('refuses the first list with revocation-list-rollback on a data root that recorded the second', async () => {
    const dataRoot = path.join(dir, 'data')
    const options = {trust: example.trustStore, now: new Date('2030-07-04T00:00:00Z'), allowStale: true}
    await admitRevocationList(dataRoot, documentedList(2), options)
    await assert.rejects(admitRevocationList(dataRoot, documentedList(1), options), (error: unknown) => error instanceof RevocationError && error.code === 'revocation-list-rollback')
  })
})
