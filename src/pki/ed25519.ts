import {createPrivateKey, createPublicKey, randomBytes, sign as signWithKey, verify as verifyWithKey, type KeyObject} from 'node:crypto'
import * as ed from '@noble/ed25519'

// Point decoding and the subgroup checks that make verification strict are @noble/ed25519's. The RFC 8032
// arithmetic itself (signing, deriving a public key, the verification equation) is node:crypto's: the same
// deterministic results, computed natively, without the 4,000-point table @noble builds in every process on
// first use (a large part of a short command's time).
const spkiPrefix = Buffer.from('302a300506032b6570032100', 'hex')
const pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex')

function publicKeyObject(publicKey: Uint8Array): KeyObject {
  return createPublicKey({key: Buffer.concat([spkiPrefix, publicKey]), format: 'der', type: 'spki'})
}

function privateKeyObject(privateKey: Uint8Array): KeyObject {
  if (privateKey.length !== keyLength) throw new RangeError(`an Ed25519 private key is ${keyLength} bytes, not ${privateKey.length}`)
  return createPrivateKey({key: Buffer.concat([pkcs8Prefix, privateKey]), format: 'der', type: 'pkcs8'})
}

/** Length of an Ed25519 public key and of a private seed, in bytes. */
export const keyLength = 32
/** Length of an Ed25519 signature, in bytes. */
export const signatureLength = 64
/** The order L of the prime-order subgroup. */
const groupOrder = ed.Point.CURVE().n

/**
 * Decodes a point only when its 32 bytes are the canonical encoding (y < p, no "negative zero" x),
 * so that one point has exactly one accepted encoding. `null` for anything else.
 */
function decodeCanonicalPoint(bytes: Uint8Array): ed.Point | null {
  if (bytes.length !== keyLength) return null
  let point: ed.Point
  try {
    point = ed.Point.fromBytes(bytes, false)
  } catch {
    return null
  }
  // Re-encoding must give the same bytes: rejects every alternative encoding the decoder tolerated.
  return Buffer.from(point.toBytes()).equals(Buffer.from(bytes)) ? point : null
}

/**
 * True when `point` is not the identity and lies in the prime-order subgroup ([L]P = O):
 * no small-order component that would let one signature verify under several keys or messages.
 */
function isTorsionFreeNonIdentity(point: ed.Point): boolean {
  return !point.is0() && point.isTorsionFree()
}

/**
 * Verdicts of {@link isStrictPublicKey} already reached, by key. The subgroup check is hundreds of point
 * operations, and one key is checked again and again (a signer verifies what it signed, then the whole
 * artifact; a host checks every plugin of one publisher); the verdict depends on the 32 bytes alone. At
 * most {@link strictKeysKept} keys are kept, the oldest forgotten first.
 */
const strictKeys = new Map<string, boolean>()
const strictKeysKept = 256

/** True when `publicKey` is a key strict verification accepts: 32 bytes, canonical, not the identity, torsion-free. */
export function isStrictPublicKey(publicKey: Uint8Array): boolean {
  if (publicKey.length !== keyLength) return false
  const key = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('hex')
  const known = strictKeys.get(key)
  if (known !== undefined) return known
  const point = decodeCanonicalPoint(publicKey)
  const strict = point !== null && isTorsionFreeNonIdentity(point)
  if (strictKeys.size >= strictKeysKept) strictKeys.delete(strictKeys.keys().next().value as string)
  strictKeys.set(key, strict)
  return strict
}

/** The field prime p = 2^255 - 19. */
const fieldPrime = ed.Point.CURVE().p

/**
 * True when 32 bytes are the canonical encoding of a y coordinate and sign: y < p, and no sign bit on
 * x = 0 (which happens only for y = 1 and y = p - 1). Whether a point with that y exists is not asked.
 */
function isCanonicalEncoding(bytes: Uint8Array): boolean {
  const signBit = ((bytes[keyLength - 1] as number) & 0x80) !== 0
  const y = littleEndianToBigInt(bytes) & ((1n << 255n) - 1n)
  return y < fieldPrime && !(signBit && (y === 1n || y === fieldPrime - 1n))
}

/** The canonical encoding of the identity point (x = 0, y = 1). */
const identityEncoding = Buffer.concat([Buffer.from([1]), Buffer.alloc(keyLength - 1)])

/**
 * Strict Ed25519 verification. Accepts only when: the signature is 64 bytes; A is a
 * canonical, non-identity point with no small-order component; R is canonical, not the identity and
 * (like A) free of any small-order component; S < L; and the RFC 8032 equation holds. With A and R in
 * the prime-order subgroup the cofactored and cofactorless equations agree, so every verifier that
 * applies these checks reaches the same verdict on every input.
 *
 * R is not decoded here: node:crypto checks the cofactorless equation by computing [S]B - [k]A and
 * comparing its canonical encoding with R's bytes. When that holds, R is that point: a curve point (an
 * encoding of no point never matches), in the prime-order subgroup (B and A are, and so is every
 * combination of them). So once A is known to be torsion-free, R's subgroup check cannot change the
 * verdict, and what is left to check of R is its encoding and that it is not the identity.
 */
export function verifyStrict(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
  if (signature.length !== signatureLength || !isStrictPublicKey(publicKey)) return false
  const r = signature.subarray(0, keyLength)
  if (!isCanonicalEncoding(r) || identityEncoding.equals(r)) return false
  // Malleability: S + L would verify the same equation; only the reduced scalar is accepted.
  if (littleEndianToBigInt(signature.subarray(keyLength)) >= groupOrder) return false
  try {
    return verifyWithKey(null, message, publicKeyObject(publicKey), signature)
  } catch {
    return false
  }
}

/** Signs `message` with a 32-byte private seed (deterministic RFC 8032 Ed25519). */
export function sign(message: Uint8Array, privateKey: Uint8Array): Uint8Array {
  return new Uint8Array(signWithKey(null, message, privateKeyObject(privateKey)))
}

/** The public key of a 32-byte private seed. */
export function publicKeyOf(privateKey: Uint8Array): Uint8Array {
  const exported = createPublicKey(privateKeyObject(privateKey)).export({format: 'der', type: 'spki'})
  return new Uint8Array(exported.subarray(spkiPrefix.length))
}

/** A fresh key pair from the operating system's random source. */
export function generateKeyPair(): {publicKey: Uint8Array; privateKey: Uint8Array} {
  const privateKey = new Uint8Array(randomBytes(keyLength))
  return {publicKey: publicKeyOf(privateKey), privateKey}
}

function littleEndianToBigInt(bytes: Uint8Array): bigint {
  let value = 0n
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i] as number)
  return value
}
