import assert from 'node:assert/strict'
import {createPublicKey, randomBytes, verify as nodeVerify} from 'node:crypto'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import {generateKeyPair, isStrictPublicKey, publicKeyOf, sign, verifyStrict} from '../../src/pki/ed25519.js'

interface Vector {
  id: string
  desc: string
  pub: string
  msg: string
  sig: string
  strict: boolean
}

// Tests run from test/ (tsx) or dist/test/ (node): the vectors stay beside the sources.
const here = path.dirname(fileURLToPath(import.meta.url))
const vectorsFile = [path.join(here, 'vectors', 'ed25519-strictness.json'), path.join(here, '..', '..', '..', 'test', 'signing', 'vectors', 'ed25519-strictness.json')].find((file) => {
  try {
    readFileSync(file)
    return true
  } catch {
    return false
  }
}) as string
const vectors = (JSON.parse(readFileSync(vectorsFile, 'utf8')) as {vectors: Vector[]}).vectors
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'))

/** The order L of the prime-order subgroup, little-endian arithmetic for S + L. */
const groupOrder = 2n ** 252n + 27742317777372353535851937790883648493n

function spkiKey(publicKey: Uint8Array) {
  // DER SubjectPublicKeyInfo prefix of an Ed25519 key (RFC 8410), then the 32 raw bytes.
  return createPublicKey({key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]), format: 'der', type: 'spki'})
}

function addToScalar(signature: Uint8Array, addend: bigint): Uint8Array {
  let s = 0n
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number)
  s += addend
  const out = new Uint8Array(signature)
  for (let i = 32; i < 64; i++) {
    out[i] = Number(s & 0xffn)
    s >>= 8n
  }
  return out
}

describe('strict Ed25519 against the strictness vectors', () => {
  it('carries all 33 vectors, exactly two of them strict', () => {
    assert.equal(vectors.length, 33)
    assert.deepEqual(
      vectors.filter((vector) => vector.strict).map((vector) => vector.id),
      ['V01', 'V02'],
    )
  })
  for (const vector of vectors) {
    it(`${vector.id} (${vector.desc}) ${vector.strict ? 'verifies' : 'is refused'}`, () => {
      assert.equal(verifyStrict(hex(vector.sig), hex(vector.msg), hex(vector.pub)), vector.strict)
    })
  }
})

describe('strict Ed25519 on honest signatures', () => {
  it('verifies what it signs, and node:crypto agrees', () => {
    for (let round = 0; round < 20; round++) {
      const {publicKey, privateKey} = generateKeyPair()
      const message = new Uint8Array(randomBytes(round * 7))
      const signature = sign(message, privateKey)
      assert.equal(signature.length, 64)
      assert.equal(verifyStrict(signature, message, publicKey), true)
      assert.equal(nodeVerify(null, message, spkiKey(publicKey), signature), true)
      assert.equal(isStrictPublicKey(publicKey), true)
    }
  })

  it('refuses a signature over another message, and node:crypto agrees', () => {
    const {publicKey, privateKey} = generateKeyPair()
    const signature = sign(Buffer.from('one message'), privateKey)
    assert.equal(verifyStrict(signature, Buffer.from('another message'), publicKey), false)
    assert.equal(nodeVerify(null, Buffer.from('another message'), spkiKey(publicKey), signature), false)
  })

  it('refuses S replaced by S + L (the equation still holds for a lax verifier)', () => {
    const {publicKey, privateKey} = generateKeyPair()
    const message = Buffer.from('malleable')
    const signature = sign(message, privateKey)
    assert.equal(verifyStrict(addToScalar(signature, groupOrder), message, publicKey), false)
  })

  it('refuses signatures and keys of the wrong length', () => {
    const {publicKey, privateKey} = generateKeyPair()
    const message = Buffer.from('length')
    const signature = sign(message, privateKey)
    assert.equal(verifyStrict(signature.subarray(0, 63), message, publicKey), false)
    assert.equal(verifyStrict(Buffer.concat([signature, Buffer.alloc(1)]), message, publicKey), false)
    assert.equal(verifyStrict(signature, message, publicKey.subarray(0, 31)), false)
  })

  it('derives the RFC 8032 test 1 public key from its seed', () => {
    const seed = hex('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60')
    assert.equal(Buffer.from(publicKeyOf(seed)).toString('hex'), 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a')
  })

  it('calls the identity and a small-order point non-strict public keys', () => {
    assert.equal(isStrictPublicKey(hex('0100000000000000000000000000000000000000000000000000000000000000')), false)
    assert.equal(isStrictPublicKey(hex('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')), false)
    assert.equal(isStrictPublicKey(hex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa')), false)
  })
})
