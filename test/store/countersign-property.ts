import {checkCountersignature, type CountersignedSubject, type CountersignatureContext} from '../../src/signing/countersignature.js'
import type {TrustStore} from '../../src/pki/trust.js'

/** `bytes` with bit `bit` (0 is the lowest bit of the first byte) inverted. */
export function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = new Uint8Array(bytes)
  copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7))
  return copy
}

/**
 * The bits of `countersig` whose inversion is NOT refused with `store-signature-invalid` when the
 * countersignature is checked for its own artifact: the invariant is that there are none (the format allows
 * no second spelling, not even whitespace).
 */
export function acceptedFlips(countersig: Uint8Array, bits: Iterable<number>, subject: CountersignedSubject, context: CountersignatureContext & {trust: TrustStore}): number[] {
  const accepted: number[] = []
  for (const bit of bits) {
    const result = checkCountersignature(flipBit(countersig, bit), subject, context)
    if (!('code' in result) || result.code !== 'store-signature-invalid') accepted.push(bit)
  }
  return accepted
}
