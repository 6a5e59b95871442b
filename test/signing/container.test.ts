import assert from 'node:assert/strict'
import {createHash, createPublicKey, verify as nodeVerify} from 'node:crypto'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import zlib from 'node:zlib'
import {openArchive} from '../../src/archive/reader.js'
import {writeArchive, type WriterEntry} from '../../src/archive/writer.js'
import {withArtifact} from '../../src/artifact/open.js'
import {install} from '../../src/install/install.js'
import {checkContents, verificationContext} from '../../src/signing/verify.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import {joinZip, splitZip} from '../helpers/zip-splice.js'
import {account, publishablePlugin, signedUpload, writeArtifact} from '../store/uploads.js'
import {signContents} from '../../src/signing/sign.js'
import {forgeSigned, unsignedContents} from './artifacts.js'
import {fieldsOf as zipFieldsOf, freeFields} from './byte-mutations.js'
import {fieldsOf as certificateFields, testNow} from './pki.js'
import {judgeEverywhere, sealedOriginal, type SealedOriginal} from './sealed-mutations.js'

// An artifact signed by `sign` carries containerDigest, and with it every byte of the file is signed. These
// tests state what that means, code by code, and check the documented computation with an implementation
// of their own; sealed-mutations.ts and byte-mutations*.test.ts prove that no byte of such a file can change.

let sealed: SealedOriginal
let counter = 0
before(async () => {
  sealed = await sealedOriginal()
})
after(async () => sealed.remove())

const scratch = (): string => path.join(sealed.dir, `case-${++counter}.svcPlugin`)
const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')
const trailerStart = ',"signature":{"algorithm":"'

/**
 * The container digest as a third party computes it from docs/artifact-format.md alone: find manifest.json
 * in the central directory, its local header and stored data, the hex of containerDigest (the 64 bytes
 * before the `"` that precedes the trailer) and the trailer's value (88 bytes after `"value":"`), zero them
 * and the two CRC-32 fields, hash the whole file.
 */
function thirdPartyContainerDigest(zip: Buffer): {claimed: string; computed: string; manifest: string} {
  const end = zip.length - 22
  let at = zip.readUInt32LE(end + 16)
  for (let index = 0; index < zip.readUInt16LE(end + 10); index++) {
    const nameLength = zip.readUInt16LE(at + 28)
    const next = at + 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
    if (zip.subarray(at + 46, at + 46 + nameLength).toString('utf8') === 'manifest.json') {
      assert.equal(zip.readUInt16LE(at + 10), 0, 'manifest.json is stored')
      const local = zip.readUInt32LE(at + 42)
      const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
      const manifest = zip.subarray(data, data + zip.readUInt32LE(at + 20)).toString('latin1')
      const trailer = manifest.lastIndexOf(trailerStart)
      const hex = trailer - 65
      const value = manifest.indexOf('"value":"', trailer) + '"value":"'.length
      const zeroed = Buffer.from(zip)
      for (const [start, length] of [[data + hex, 64], [data + value, 88], [local + 14, 4], [at + 16, 4]] as const) zeroed.fill(0, start, start + length)
      return {claimed: manifest.slice(hex, hex + 64), computed: sha256Hex(zeroed), manifest}
    }
    at = next
  }
  throw new Error('no manifest.json')
}

/** Every entry of a ZIP by name, inflated, read without the library's reader (central directory, local headers, zlib). */
function entriesOf(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>()
  const end = zip.length - 22
  let at = zip.readUInt32LE(end + 16)
  for (let index = 0; index < zip.readUInt16LE(end + 10); index++) {
    const nameLength = zip.readUInt16LE(at + 28)
    const local = zip.readUInt32LE(at + 42)
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28)
    const raw = zip.subarray(data, data + zip.readUInt32LE(at + 20))
    entries.set(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'), zip.readUInt16LE(at + 10) === 8 ? zlib.inflateRawSync(raw) : Buffer.from(raw))
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32)
  }
  return entries
}

/**
 * The base format alone (docs/signing.md §5–§7), nothing of the container: U, P over U and every entry, the
 * signature message, Ed25519 with node:crypto under the certificate's key.
 */
function baseFormatVerifies(zip: Buffer): boolean {
  const entries = entriesOf(zip)
  const manifest = entries.get('manifest.json') as Buffer
  const at = manifest.lastIndexOf(trailerStart)
  const unsigned = Buffer.concat([manifest.subarray(0, at), Buffer.from('}')])
  const signature = (JSON.parse(manifest.toString('utf8')) as {signature: {keyId: string; value: string; signedAt: string}}).signature
  const files = [...entries].filter(([name]) => name !== 'manifest.json').sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  const text = [
    'svc-plugin-artifact/1',
    `manifest sha256:${sha256Hex(unsigned)} ${unsigned.length}`,
    ...files.map(([name, bytes]) => `file sha256:${sha256Hex(bytes)} ${bytes.length} ${name}`),
    `end ${files.length}`,
    '',
  ].join('\n')
  const message = ['svc-plugin-signature/1', 'algorithm ed25519', `key-id ${signature.keyId}`, `signed-at ${signature.signedAt}`, `artifact-digest sha256:${sha256Hex(Buffer.from(text))}`, ''].join('\n')
  const publicKey = Buffer.from((JSON.parse((entries.get('certificate.json') as Buffer).toString('utf8')) as {publicKey: string}).publicKey, 'base64')
  const key = createPublicKey({key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]), format: 'der', type: 'spki'})
  return nodeVerify(null, Buffer.from(message), key, Buffer.from(signature.value, 'base64'))
}

/** The sealed artifact rewritten by the archive writer with manifest.json replaced (stored unless `deflate`). */
async function withManifest(manifest: Buffer, options: {deflate?: boolean} = {}): Promise<string> {
  const entries = entriesOf(sealed.bytes)
  const rest: WriterEntry[] = [...entries]
    .filter(([name]) => name !== 'manifest.json')
    .map(([name, data]) => ({name, mode: name.startsWith('runtimes/') ? 0o755 : 0o644, store: false, source: {kind: 'buffer', data}}))
  return (await writeArchive(scratch(), [{name: 'manifest.json', mode: 0o644, store: options.deflate !== true, source: {kind: 'buffer', data: manifest}}, ...rest])).path
}

const judgeArtifact = async (file: string) => {
  const result = await verifyArtifact(file, {trust: sealed.pki.trust, now: testNow})
  return {verdict: result.verdict, codes: result.problems.map((problem) => problem.code), warnings: result.warnings.map((warning) => warning.code)}
}

describe('an artifact signed with its container', () => {
  it('stores manifest.json and carries containerDigest as the last member of U, the digest a third party computes from the documented ranges', async () => {
    const {claimed, computed, manifest} = thirdPartyContainerDigest(sealed.bytes)
    assert.equal(claimed, computed)
    const unsigned = `${manifest.slice(0, manifest.lastIndexOf(trailerStart))}}`
    assert.ok(unsigned.endsWith(`,"containerDigest":"sha256:${computed}"}`))
    assert.deepEqual(Object.keys(JSON.parse(unsigned) as object).at(-1), 'containerDigest')
    assert.deepEqual(await judgeArtifact(sealed.file), {verdict: 'Trusted', codes: [], warnings: []})
  })

  it('verifies under the base format alone: a verifier that knows nothing of containers ignores the member', async () => {
    assert.equal(baseFormatVerifies(sealed.bytes), true)
    // The checklist without the container step (contents as a tree gives them: no container evidence).
    await withArtifact(sealed.file, {}, async (artifact) => {
      const {container, ...contents} = await artifact.contents()
      assert.deepEqual(container?.manifestStored, true)
      const result = checkContents(contents, verificationContext({trust: sealed.pki.trust, now: testNow, requireContainerSignature: true}))
      assert.deepEqual([result.verdict, result.warnings], ['Trusted', []])
    })
  })

  it('is signature-invalid when containerDigest is removed or altered', async () => {
    const {manifest} = thirdPartyContainerDigest(sealed.bytes)
    const removed = manifest.replace(/,"containerDigest":"sha256:[0-9a-f]{64}"/, '')
    assert.notEqual(removed, manifest)
    const altered = manifest.replace(/("containerDigest":"sha256:)([0-9a-f])/, (_, prefix: string, digit: string) => `${prefix}${digit === '0' ? '1' : '0'}`)
    assert.notEqual(altered, manifest)
    for (const text of [removed, altered]) {
      assert.deepEqual(await judgeArtifact(await withManifest(Buffer.from(text, 'latin1'))), {verdict: 'SignatureInvalid', codes: ['signature-invalid'], warnings: []})
    }
  })

  it('is container-manifest-compressed when manifest.json is deflated', async () => {
    const {manifest} = thirdPartyContainerDigest(sealed.bytes)
    assert.deepEqual(await judgeArtifact(await withManifest(Buffer.from(manifest, 'latin1'), {deflate: true})), {verdict: 'Malformed', codes: ['container-manifest-compressed'], warnings: []})
  })

  it('is container-digest-malformed when the signed member is not exactly "containerDigest":"sha256:<64 lowercase hex>" last', async () => {
    const {manifest: packed, payload} = publishablePlugin()
    const hex = 'ab'.repeat(32)
    const packedText = Buffer.from(packed).toString('utf8').trimEnd()
    const variants = {
      'not last': `{"containerDigest":"sha256:${hex}",${packedText.slice(1)}`,
      'upper-case hex': `${packedText.slice(0, -1)},"containerDigest":"sha256:${hex.toUpperCase()}"}`,
      'an escaped name': `${packedText.slice(0, -1)},"container\\u0044igest":"sha256:${hex}"}`,
      'a number': `${packedText.slice(0, -1)},"containerDigest":1}`,
      'space before it': `${packedText.slice(0, -1)}, "containerDigest":"sha256:${hex}"}`,
    }
    const certificateId = certificateFields(sealed.pki.certificate).certificateId as string
    for (const [name, text] of Object.entries(variants)) {
      const forged = forgeSigned({
        packed: new Uint8Array(Buffer.from(`${text}\n`)),
        payload,
        chain: {certificate: sealed.pki.certificate},
        privateKey: sealed.pki.signer.privateKey,
        keyId: certificateId,
        signedAt: '2030-06-01T12:00:00Z',
      })
      const entries: WriterEntry[] = [...forged.entries]
        .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
        .map(([entryName, data]) => ({name: entryName, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(data)}}))
      const file = (await writeArchive(scratch(), [{name: 'manifest.json', mode: 0o644, store: true, source: {kind: 'buffer', data: Buffer.from(forged.manifest as Uint8Array)}}, ...entries])).path
      assert.deepEqual(await judgeArtifact(file), {verdict: 'Malformed', codes: ['container-digest-malformed'], warnings: []}, name)
    }
  })

  it('is container-digest-mismatch for a header byte that no other check needs (a date)', async () => {
    const mutant = Buffer.from(sealed.bytes)
    const date = sealed.fields.indexOf('central date')
    mutant[date] = mutant[date]! ^ 0x01
    const file = scratch()
    await writeFile(file, mutant)
    assert.deepEqual(await judgeArtifact(file), {verdict: 'SignatureInvalid', codes: ['container-digest-mismatch'], warnings: []})
  })
})

describe('an artifact signed without a container digest (every signature made before it existed)', () => {
  let unsealed: string
  before(async () => {
    unsealed = await writeArtifact(path.join(sealed.dir, 'unsealed.svcPlugin'), await signedUpload(sealed.pki))
  })

  it('verifies Trusted with the warning container-unsigned', async () => {
    assert.deepEqual(await judgeArtifact(unsealed), {verdict: 'Trusted', codes: [], warnings: ['container-unsigned']})
  })

  it('is refused with container-unsigned (SignatureInvalid) where the container signature is required', async () => {
    const result = await verifyArtifact(unsealed, {trust: sealed.pki.trust, now: testNow, requireContainerSignature: true})
    assert.deepEqual([result.verdict, result.problems.map((problem) => problem.code), result.warnings], ['SignatureInvalid', ['container-unsigned'], []])
  })

  it('installs with the warning container-unsigned, and is refused by an installer that requires the container signature', async () => {
    const dataRoot = path.join(sealed.dir, 'unsealed-data')
    await assert.rejects(install(unsealed, {dataRoot, hostRid: 'linux-x64', trust: sealed.pki.trust, now: testNow, requireContainerSignature: true}), (error: Error & {code?: string; details?: {reason?: string}}) => {
      assert.deepEqual([error.code, error.details?.reason], ['signature-invalid', 'container-unsigned'])
      return true
    })
    const installed = await install(unsealed, {dataRoot, hostRid: 'linux-x64', trust: sealed.pki.trust, now: testNow})
    assert.deepEqual([installed.verdict, installed.warnings.map((warning) => warning.code).filter((code) => code.startsWith('container-'))], ['Trusted', ['container-unsigned']])
  })
})

/** Writes `bytes` to a fresh file and judges it with every verifier (a fresh data root for install). */
async function everywhere(bytes: Buffer) {
  const file = scratch()
  await writeFile(file, bytes)
  return judgeEverywhere(sealed, file, path.join(sealed.dir, `data-${counter}`))
}

describe('the holes a signature over the content alone leaves, closed by the container digest', () => {
  /** `zip` with `blocks` empty stored blocks put in front of the deflate stream of `name`, each carrying 5 attacker bits in its padding. */
  function paddedWithEmptyBlocks(zip: Buffer, name: string, payload: Buffer): Buffer {
    const records = splitZip(zip)
    const record = records.find((item) => item.name.toString('utf8') === name)!
    assert.equal(record.centralFixed.readUInt16LE(10), 8, `premise: ${name} is deflated`)
    // A non-final stored block: BFINAL 0, BTYPE 00 (3 bits), 5 padding bits deflate ignores, LEN 0, NLEN 0xffff.
    const blocks = [...payload].map((byte) => Buffer.from([(byte & 0x1f) << 3, 0x00, 0x00, 0xff, 0xff]))
    record.data = Buffer.concat([...blocks, record.data])
    record.localFixed.writeUInt32LE(record.data.length, 18)
    record.centralFixed.writeUInt32LE(record.data.length, 20)
    return joinZip(records)
  }
  const attacker = Buffer.from('unsigned payload riding in the padding bits of empty stored blocks')

  it('refuses attacker bytes in the padding of empty stored blocks of a deflate stream, everywhere, when containerDigest is present', async () => {
    const mutant = paddedWithEmptyBlocks(sealed.bytes, 'docs/notes.txt', attacker)
    // The content is unchanged and the stream within the reader's expansion bound: only the container tells.
    assert.deepEqual(entriesOf(mutant).get('docs/notes.txt'), entriesOf(sealed.bytes).get('docs/notes.txt'))
    assert.equal(baseFormatVerifies(mutant), true)
    assert.deepEqual(await everywhere(mutant), {
      artifact: {verdict: 'SignatureInvalid', code: 'container-digest-mismatch'},
      upload: {accepted: false, codes: ['container-digest-mismatch']},
      install: 'signature-invalid',
    })
  })

  it('accepts the same padding only for an old-style signature, with the warning container-unsigned', async () => {
    const {manifest, payload} = publishablePlugin({extraFiles: new Map([['docs/notes.txt', entriesOf(sealed.bytes).get('docs/notes.txt')!]])})
    const file = scratch()
    const oldStyle = await readFile(await writeArtifact(file, signedOld(manifest, payload)))
    const mutant = paddedWithEmptyBlocks(oldStyle, 'docs/notes.txt', attacker)
    await writeFile(file, mutant)
    assert.deepEqual(await judgeArtifact(file), {verdict: 'Trusted', codes: [], warnings: ['container-unsigned']})
  })

  // The header fields a signature over the content alone leaves free (byte-mutations.ts).
  const headerFields = [...freeFields].filter((field) => field !== 'entry data')

  it('refuses a flip in every time, date, attribute and version field of every record, everywhere, when containerDigest is present', async () => {
    let tried = 0
    for (const field of headerFields) {
      for (let offset = sealed.fields.indexOf(field); offset !== -1; offset = sealed.fields.indexOf(field, offset + 1)) {
        // One flip per field of each record: its first byte.
        if (sealed.fields[offset - 1] === field) continue
        const mutant = Buffer.from(sealed.bytes)
        mutant[offset] = mutant[offset]! ^ 0x01
        const judged = await everywhere(mutant)
        assert.deepEqual(judged, {
          artifact: {verdict: 'SignatureInvalid', code: 'container-digest-mismatch'},
          upload: {accepted: false, codes: ['container-digest-mismatch']},
          install: 'signature-invalid',
        }, `${field} at ${offset}`)
        tried++
      }
    }
    assert.ok(tried >= headerFields.length * 5, `${tried} flips`)
  })

  it('accepts those flips only for an old-style signature, with the warning container-unsigned', async () => {
    const file = scratch()
    const oldStyle = await readFile(await writeArtifact(file, await signedUpload(sealed.pki)))
    const fields = zipFieldsOf(oldStyle)
    for (const field of headerFields) {
      const offset = fields.indexOf(field)
      const mutant = Buffer.from(oldStyle)
      mutant[offset] = mutant[offset]! ^ 0x01
      await writeFile(file, mutant)
      assert.deepEqual(await judgeArtifact(file), {verdict: 'Trusted', codes: [], warnings: ['container-unsigned']}, field)
    }
  })
})

/** An old-style signed upload of `manifest` and `payload` (in memory, no container digest). */
function signedOld(manifest: Uint8Array, payload: Map<string, Uint8Array>) {
  const signed = signContents(unsignedContents(manifest, payload), {privateKey: sealed.pki.signer.privateKey, certificate: sealed.pki.certificate, now: testNow})
  return {manifest: signed.manifest, entries: new Map([...payload, ...signed.chainEntries])}
}

describe('the store and the installer on an artifact signed with its container', () => {
  it('accept it: verifyUpload with no problem, install Trusted with no warning about the container', async () => {
    const report = await verifyUpload(sealed.file, {account, trust: sealed.pki.trust, now: testNow})
    assert.deepEqual([report.accepted, report.verdict, report.problems], [true, 'Trusted', []])
    const installed = await install(sealed.file, {dataRoot: path.join(sealed.dir, 'accepted-data'), hostRid: 'linux-x64', trust: sealed.pki.trust, now: testNow})
    assert.deepEqual([installed.verdict, installed.warnings.filter((warning) => warning.code === 'container-unsigned')], ['Trusted', []])
  })

  it('copies every payload entry compressed as the packed artifact held it (the same bytes, CRC-32 and method)', async () => {
    const packed = splitZip(await readFile(`${sealed.file}.packed`))
    const signed = splitZip(sealed.bytes)
    for (const record of packed.filter((item) => item.name.toString('utf8') !== 'manifest.json')) {
      const copy = signed.find((item) => item.name.equals(record.name))!
      assert.deepEqual([copy.data, copy.centralFixed.subarray(10, 12), copy.centralFixed.subarray(16, 28)], [record.data, record.centralFixed.subarray(10, 12), record.centralFixed.subarray(16, 28)], record.name.toString('utf8'))
    }
    const archive = await openArchive(sealed.file)
    try {
      assert.deepEqual(archive.entries.map((entry) => [entry.name, entry.method]).filter(([name]) => name === 'manifest.json' || name === 'docs/notes.txt'), [['manifest.json', 0], ['docs/notes.txt', 8]])
    } finally {
      await archive.close()
    }
  })
})
