import assert from 'node:assert/strict'
import {generateKeyPairSync, randomBytes} from 'node:crypto'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {derPrivateKeyKind} from '../../src/artifact/der-keys.js'
import {findSecrets} from '../../src/artifact/secrets.js'
import {readText, textOf} from '../../src/artifact/text-encoding.js'
import {validateArtifact} from '../../src/artifact/validate-artifact.js'
import type {SecretFinding} from '../../src/manifest/content.js'
import {PackError} from '../../src/pack/errors.js'
import {pack} from '../../src/pack/pack.js'
import {validatePath} from '../../src/validate/validate-path.js'
import {copyExample, rejectionOf, scratch, writeTree} from '../pack/support.js'
import {credentialSamples, encodeText, encodings, privateKeyFiles, withLineEnds, type KeyFile} from './secret-corpus.js'

/** One file of the corpus as some editor saved it. */
interface Variant {
  /** Where it goes in a plugin folder: one folder per encoding and line end, the file's name unchanged (rules read some names). */
  path: string
  bytes: Buffer
  /** What the scan finds in the file as it was written (UTF-8, LF). */
  expected: Omit<SecretFinding, 'path'>[]
}

const lineEnds = [
  ['lf', '\n'],
  ['crlf', '\r\n'],
] as const

let keys: KeyFile[]
let variants: Variant[]

const shape = (found: readonly SecretFinding[]) => found.map(({path: _path, ...rest}) => rest)

before(async () => {
  keys = privateKeyFiles()
  variants = []
  const texts = [...credentialSamples.map((sample) => ({file: sample.file, text: sample.text})), ...keys.filter((key) => key.text).map((key) => ({file: key.file, text: key.bytes.toString('utf8')}))]
  for (const {file, text} of texts) {
    const expected = shape(await findSecrets(file, Buffer.from(text)))
    for (const encoding of encodings) {
      for (const [endName, end] of lineEnds) variants.push({path: `${encoding}-${endName}/${file}`, bytes: encodeText(withLineEnds(text, end), encoding), expected})
    }
  }
  for (const key of keys.filter((file) => !file.text)) variants.push({path: key.file, bytes: key.bytes, expected: shape(await findSecrets(key.file, key.bytes))})
})

describe('reading a file as text', () => {
  it('reads UTF-8 with and without a byte order mark and UTF-16 of either byte order with one, and takes the rest for binary', () => {
    fc.assert(
      fc.property(fc.string({unit: 'grapheme'}), fc.constantFrom(...encodings), (text, encoding) => {
        const read = readText(encodeText(text, encoding))
        if (encoding === 'utf-8' && text.includes('\0')) return assert.equal(read, null)
        assert.equal(read === null ? null : textOf(read), text)
      }),
    )
    assert.equal(readText(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1])), null)
  })
})

describe('finding secrets in every encoding and with every line end', () => {
  it('finds every secret of the corpus in one file, whatever the encoding and line ends, as it does in UTF-8 with LF', async () => {
    for (const variant of variants) {
      assert.notDeepEqual(variant.expected, [], `${variant.path} holds a secret`)
      assert.deepEqual(shape(await findSecrets(variant.path, variant.bytes)), variant.expected, variant.path)
    }
  })

  it('recognises private keys in DER and OpenSSH binary form by their shape, whatever they are called', () => {
    const kinds = Object.fromEntries(keys.filter((key) => !key.text).map((key) => [key.name, derPrivateKeyKind(key.bytes)]))
    assert.deepEqual(kinds, {
      'PKCS#8 DER (RSA)': 'PKCS#8',
      'PKCS#8 DER (Ed25519)': 'PKCS#8',
      'PKCS#1 DER (RSA)': 'PKCS#1 RSA',
      'SEC1 DER (EC)': 'SEC1 EC',
      'encrypted PKCS#8 DER': 'PKCS#8, encrypted',
      'OpenSSH binary': 'OpenSSH',
      'DSA DER (OpenSSL)': 'DSA',
    })
  })

  it('takes no public key, certificate or other binary for a private key', () => {
    const {publicKey} = generateKeyPairSync('rsa', {modulusLength: 1024})
    for (const bytes of [publicKey.export({format: 'der', type: 'spki'}), publicKey.export({format: 'der', type: 'pkcs1'}), generateKeyPairSync('ec', {namedCurve: 'P-256'}).publicKey.export({format: 'der', type: 'spki'})]) {
      assert.equal(derPrivateKeyKind(bytes), null)
    }
    fc.assert(fc.property(fc.uint8Array({maxLength: 4096}), (bytes) => derPrivateKeyKind(bytes) === null || bytes[0] === 0x30))
    // A key with one byte more or less is no longer one structure filling the file.
    const der = generateKeyPairSync('ed25519').privateKey.export({format: 'der', type: 'pkcs8'})
    assert.equal(derPrivateKeyKind(Buffer.concat([der, randomBytes(1)])), null)
    assert.equal(derPrivateKeyKind(der.subarray(0, der.length - 1)), null)
  })
})

describe('every secret of the corpus, in every encoding and with every line end, in a plugin', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let source: string
  before(async () => {
    work = await scratch('secret-encodings')
    source = await copyExample(path.join(work.dir, 'plugin'))
    await writeTree(source, Object.fromEntries(variants.map((variant) => [variant.path, variant.bytes])))
  })
  after(async () => work.cleanup())

  const paths = () => variants.map((variant) => variant.path).sort()

  it('refuses pack, naming every file', async () => {
    const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'refused.svcPlugin')}))
    assert.ok(error instanceof PackError && error.code === 'secret-detected', String(error))
    assert.deepEqual([...new Set((error.details.secrets as {path: string}[]).map((secret) => secret.path))].sort(), paths())
  })

  it('is an error of validate at package level on the folder and on the artifact packed with every file allowed', async () => {
    const folder = await validatePath({directory: source}, {level: 'package', host: {rid: 'freebsd-x64'}})
    const named = (report: typeof folder) => [...new Set(report.problems.filter((problem) => problem.code === 'secret-detected' && problem.severity === 'error').map((problem) => JSON.parse(problem.message.split(' holds ')[0]!.split(' (line')[0]!) as string))].sort()
    assert.deepEqual(named(folder), paths())
    const artifact = path.join(work.dir, 'allowed.svcPlugin')
    await pack(source, {output: artifact, allowSecrets: paths()})
    assert.deepEqual(named(await validateArtifact(artifact)), paths())
  })
})
