import assert from 'node:assert/strict'
import {createHash, createPublicKey, randomBytes, verify as nodeVerify} from 'node:crypto'
import {readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import * as ed from '@noble/ed25519'
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

  it('gives a key the same verdict every time it is asked, also once more keys were checked than are remembered', () => {
    const small = hex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa')
    const {publicKey, privateKey} = generateKeyPair()
    const signature = sign(Buffer.from('again'), privateKey)
    for (let round = 0; round < 2; round++) {
      assert.equal(isStrictPublicKey(small), false)
      assert.equal(isStrictPublicKey(publicKey), true)
      assert.equal(verifyStrict(signature, Buffer.from('again'), publicKey), true)
      // The same bytes changed in place are judged as what they now are.
      const altered = new Uint8Array(publicKey)
      altered.set(small)
      assert.equal(isStrictPublicKey(altered), false)
      for (let other = 0; other < 257; other++) isStrictPublicKey(publicKeyOf(new Uint8Array(createHash('sha256').update(`${round} ${other}`).digest())))
    }
  })

  it('calls the identity and a small-order point non-strict public keys', () => {
    assert.equal(isStrictPublicKey(hex('0100000000000000000000000000000000000000000000000000000000000000')), false)
    assert.equal(isStrictPublicKey(hex('ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f')), false)
    assert.equal(isStrictPublicKey(hex('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa')), false)
  })
})

/** Little-endian bytes of `value` (32 of them), and back. */
const toBytes = (value: bigint): Uint8Array => Uint8Array.from({length: 32}, (_, at) => Number((value >> BigInt(8 * at)) & 0xffn))
const fromBytes = (bytes: Uint8Array): bigint => bytes.reduceRight((value, byte) => (value << 8n) | BigInt(byte), 0n)
const modL = (value: bigint): bigint => ((value % groupOrder) + groupOrder) % groupOrder
const challenge = (r: Uint8Array, a: Uint8Array, message: Uint8Array): bigint => modL(fromBytes(new Uint8Array(createHash('sha512').update(r).update(a).update(message).digest())))

/** Strict verification as it reads, decoding R and checking its subgroup too: what `verifyStrict` must agree with. */
function referenceVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  const decode = (bytes: Uint8Array): ed.Point | null => {
    try {
      const point = ed.Point.fromBytes(bytes, false)
      return Buffer.from(point.toBytes()).equals(Buffer.from(bytes)) ? point : null
    } catch {
      return null
    }
  }
  const a = decode(publicKey)
  const r = decode(signature.subarray(0, 32))
  if (a === null || r === null || a.is0() || r.is0() || !a.isTorsionFree() || !r.isTorsionFree()) return false
  if (fromBytes(signature.subarray(32)) >= groupOrder) return false
  return nodeVerify(null, message, spkiKey(publicKey), signature)
}

/** The eight points of small order: [L]P of points P decoded from arbitrary bytes. */
function smallOrderPoints(): ed.Point[] {
  const found = new Map<string, ed.Point>()
  for (let seed = 0; found.size < 8 && seed < 10_000; seed++) {
    let point: ed.Point
    try {
      point = ed.Point.fromBytes(new Uint8Array(createHash('sha256').update(String(seed)).digest()), false)
    } catch {
      continue
    }
    const torsion = point.multiply(groupOrder - 1n, false).add(point)
    found.set(torsion.toHex(), torsion)
  }
  return [...found.values()]
}

describe('strict Ed25519 decides R without decoding it', () => {
  it('agrees with a verifier that decodes R and checks its subgroup, on every kind of R', () => {
    const torsion = smallOrderPoints()
    assert.equal(torsion.length, 8)
    const p = 2n ** 255n - 19n
    let cases = 0
    let accepted = 0
    for (let round = 0; round < 6; round++) {
      const seed = new Uint8Array(createHash('sha256').update(`key ${round}`).digest())
      const expanded = createHash('sha512').update(seed).digest()
      expanded[0] = (expanded[0] as number) & 248
      expanded[31] = ((expanded[31] as number) & 127) | 64
      const secret = modL(fromBytes(new Uint8Array(expanded.subarray(0, 32))))
      const publicKey = publicKeyOf(seed)
      const message = Buffer.from(`message ${round}`)
      const nonce = modL(fromBytes(new Uint8Array(createHash('sha512').update(`nonce ${round}`).digest())))
      const honestR = ed.Point.BASE.multiply(nonce)
      /** A signature whose S satisfies the equation for this R (what a key holder can make for any R). */
      const signedWith = (rBytes: Uint8Array, rScalar: bigint): Uint8Array => new Uint8Array([...rBytes, ...toBytes(modL(rScalar + challenge(rBytes, publicKey, message) * secret))])
      const signatures: Uint8Array[] = [signedWith(honestR.toBytes(), nonce)]
      for (const t of torsion) {
        // R with a small-order component, S made for it; and the small-order point itself as R.
        signatures.push(signedWith(honestR.add(t).toBytes(), nonce), signedWith(t.toBytes(), 0n))
      }
      // R = identity, with S = k·a so that the equation holds.
      signatures.push(signedWith(ed.Point.ZERO.toBytes(), 0n))
      for (const base of [honestR, ...torsion, ed.Point.ZERO]) {
        const bytes = base.toBytes()
        const y = fromBytes(bytes) & ((1n << 255n) - 1n)
        const sign = (bytes[31] as number) & 0x80
        // Non-canonical spellings: y + p where it fits in 255 bits, and the sign bit set on x = 0.
        if (y + p < 1n << 255n) {
          const alias = toBytes(y + p)
          alias[31] = (alias[31] as number) | sign
          signatures.push(signedWith(alias, nonce), signedWith(alias, 0n))
        }
        if (y === 1n || y === p - 1n) {
          const alias = toBytes(y)
          alias[31] = (alias[31] as number) | 0x80
          signatures.push(signedWith(alias, 0n))
        }
      }
      // R bytes that may be no point at all.
      for (let at = 0; at < 8; at++) signatures.push(signedWith(new Uint8Array(createHash('sha256').update(`r ${round} ${at}`).digest()), nonce))
      for (const signature of signatures) {
        const expected = referenceVerify(signature, message, publicKey)
        assert.equal(verifyStrict(signature, message, publicKey), expected, `R ${Buffer.from(signature.subarray(0, 32)).toString('hex')}`)
        cases += 1
        if (expected) accepted += 1
      }
    }
    // Only the honest R of each round is strict: as itself, and as R + O (the identity is one of the eight).
    assert.equal(accepted, 12)
    assert.ok(cases >= 6 * 30)
  })
})
