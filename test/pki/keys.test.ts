import assert from 'node:assert/strict'
import {mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {publicKeyOf} from '../../src/pki/ed25519.js'
import {readPrivateKeyFile, readPublicKeyFile, writeKeyPair} from '../../src/pki/keys.js'
import {createRoot, parseTrustStore, readTrustStore, writeRoot} from '../../src/pki/trust.js'

let dir: string
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-keys-'))
})
after(async () => {
  await rm(dir, {recursive: true, force: true})
})

describe('writeKeyPair', () => {
  it('writes <name>.key with mode 0600 and <name>.pub, one base64 line each', async () => {
    const written = await writeKeyPair(path.join(dir, 'keys'), 'signing')
    assert.equal(written.privateKeyFile, path.join(dir, 'keys', 'signing.key'))
    assert.equal((await stat(written.privateKeyFile)).mode & 0o777, 0o600)
    assert.equal(await readFile(written.publicKeyFile, 'utf8'), `${Buffer.from(written.publicKey).toString('base64')}\n`)
    assert.match(await readFile(written.privateKeyFile, 'utf8'), /^[A-Za-z0-9+/]{43}=\n$/)
    assert.deepEqual(await readPrivateKeyFile(written.privateKeyFile), written.privateKey)
    assert.deepEqual(await readPublicKeyFile(written.publicKeyFile), publicKeyOf(written.privateKey))
  })

  it('never overwrites: an existing key file gives output-exists and keeps its bytes', async () => {
    const first = await writeKeyPair(dir, 'twice')
    const before = await readFile(first.privateKeyFile)
    await assert.rejects(writeKeyPair(dir, 'twice'), {code: 'output-exists'})
    assert.deepEqual(await readFile(first.privateKeyFile), before)
  })

  it('leaves no private key behind when only the public file exists', async () => {
    await writeFile(path.join(dir, 'half.pub'), 'x\n')
    await assert.rejects(writeKeyPair(dir, 'half'), {code: 'output-exists'})
    await assert.rejects(stat(path.join(dir, 'half.key')), {code: 'ENOENT'})
  })

  it('refuses a name with a path separator (invalid-key-name)', async () => {
    await assert.rejects(writeKeyPair(dir, '../escape'), {code: 'invalid-key-name'})
  })
})

describe('reading key files', () => {
  it('accepts the line without its final newline', async () => {
    const file = path.join(dir, 'bare.pub')
    const key = new Uint8Array(32).fill(7)
    await writeFile(file, Buffer.from(key).toString('base64'))
    assert.deepEqual(await readPublicKeyFile(file), key)
  })

  for (const [label, text] of [
    ['31 bytes', `${Buffer.alloc(31).toString('base64')}\n`],
    ['URL-safe base64', `${Buffer.alloc(32, 0xff).toString('base64url')}\n`],
    ['two newlines', `${Buffer.alloc(32).toString('base64')}\n\n`],
    ['a leading space', ` ${Buffer.alloc(32).toString('base64')}\n`],
  ] as const) {
    it(`refuses ${label} with key-unreadable`, async () => {
      const file = path.join(dir, `bad-${label.replaceAll(' ', '-')}.key`)
      await writeFile(file, text)
      await assert.rejects(readPrivateKeyFile(file), {code: 'key-unreadable'})
    })
  }

  it('reports a missing file as key-unreadable', async () => {
    await assert.rejects(readPublicKeyFile(path.join(dir, 'absent.pub')), {code: 'key-unreadable'})
  })
})

describe('roots and trust stores', () => {
  it('writes root.key (0600), root.pub and trust.json that reads back', async () => {
    const rootDir = path.join(dir, 'root')
    const written = await writeRoot(rootDir, {rootKeyId: 'root_main'})
    assert.equal((await stat(written.privateKeyFile)).mode & 0o777, 0o600)
    const trust = await readTrustStore(written.trustStoreFile)
    assert.deepEqual(trust, {roots: [{rootKeyId: 'root_main', publicKey: Buffer.from(written.publicKey).toString('base64')}]})
    assert.equal(await readFile(written.trustStoreFile, 'utf8'), `${JSON.stringify(trust, null, 2)}\n`)
  })

  it('never overwrites an existing trust.json and leaves no root key behind', async () => {
    const rootDir = path.join(dir, 'root-again')
    await writeRoot(rootDir)
    await rm(path.join(rootDir, 'root.key'))
    await rm(path.join(rootDir, 'root.pub'))
    await assert.rejects(writeRoot(rootDir), {code: 'output-exists'})
    await assert.rejects(stat(path.join(rootDir, 'root.key')), {code: 'ENOENT'})
  })

  it('draws a root key id matching root_[0-9a-z]{4,32} and refuses a bad one', () => {
    assert.match(createRoot().rootKeyId, /^root_[0-9a-z]{4,32}$/)
    assert.throws(() => createRoot('root_UPPER'), {code: 'invalid-root-key-id'})
    assert.throws(() => createRoot('root_abc'), {code: 'invalid-root-key-id'})
  })

  it('refuses trust stores of the wrong shape', async () => {
    assert.throws(() => parseTrustStore({roots: {}}), {code: 'trust-store-invalid'})
    assert.throws(() => parseTrustStore({roots: [{rootKeyId: 'root_abcd', publicKey: 'AAAA'}]}), {code: 'trust-store-invalid'})
    const key = Buffer.alloc(32, 1).toString('base64')
    assert.throws(() => parseTrustStore({roots: [{rootKeyId: 'root_abcd', publicKey: key}, {rootKeyId: 'root_abcd', publicKey: key}]}), {code: 'trust-store-invalid'})
    const file = path.join(dir, 'not-json.json')
    await writeFile(file, '{roots')
    await assert.rejects(readTrustStore(file), {code: 'trust-store-unreadable'})
    await assert.rejects(readTrustStore(path.join(dir, 'absent.json')), {code: 'trust-store-unreadable'})
  })
})
