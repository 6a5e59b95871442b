import {isVersionRange} from '../../model/index.js'
import {describePointer} from '../../json/pointer.js'
import type {Rule} from './types.js'
import {member, quote} from './values.js'

/** How every range rule explains the grammar. */
export const rangeGrammar = 'use * or comma-separated comparators (=, >, >=, <, <= followed by a SemVer version), e.g. ">=1.2.0, <2.0.0"; ^, ~, || and x are not supported'

/**
 * The `compatibility` members say something (`invalid-compatibility`): `sdk` and `svc` are version
 * ranges; `protocol` has `minimum >= 1` and `maximum >= minimum`.
 */
export const compatibilityRangesParse: Rule = {
  name: 'compatibility-ranges-parse',
  codes: ['invalid-compatibility'],
  level: 'development',
  claims: [{keywords: ['minimum'], pointer: /^\/compatibility\/protocol\/minimum$/}],
  check({manifest, rejected, emit}) {
    const compatibility = member(manifest, 'compatibility')
    for (const key of ['sdk', 'svc']) {
      const pointer = `/compatibility/${key}`
      const range = member(compatibility, key)
      if (typeof range !== 'string' || rejected.has(pointer) || isVersionRange(range)) continue
      emit({code: 'invalid-compatibility', pointer, message: `${describePointer(pointer)} ${quote(range)} is not a version range: ${rangeGrammar}.`})
    }
    const protocol = member(compatibility, 'protocol')
    const minimum = member(protocol, 'minimum')
    const maximum = member(protocol, 'maximum')
    const minimumPointer = '/compatibility/protocol/minimum'
    const maximumPointer = '/compatibility/protocol/maximum'
    const minimumIsInteger = Number.isInteger(minimum) && !rejected.has(minimumPointer)
    const maximumIsInteger = Number.isInteger(maximum) && !rejected.has(maximumPointer)
    if (minimumIsInteger && (minimum as number) < 1) {
      emit({
        code: 'invalid-compatibility',
        pointer: minimumPointer,
        message: `compatibility.protocol.minimum is ${minimum as number}; protocol majors start at 1.`,
      })
    }
    if (minimumIsInteger && maximumIsInteger && (maximum as number) < (minimum as number)) {
      emit({
        code: 'invalid-compatibility',
        pointer: maximumPointer,
        message: `compatibility.protocol.maximum ${maximum as number} is below minimum ${minimum as number}; the range would hold no protocol version.`,
      })
    }
  },
}
