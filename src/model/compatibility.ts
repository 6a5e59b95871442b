import {parseVersionRange, satisfies} from './range.js'
import {compareSemVer, isSemVer} from './semver.js'

/** The host version that marks a development build: the `svc` range is not checked against it. */
export const developmentHostVersion = '0.0.0-dev'

/** An inclusive range of protocol majors. */
export interface ProtocolRange {
  minimum: number
  maximum: number
}

/** The protocol majors a host serves when the caller names none. */
export const defaultProtocolRange: Readonly<ProtocolRange> = {minimum: 1, maximum: 3}

/** What a host is, for compatibility: its version (or `0.0.0-dev`) and the protocol majors it serves. */
export interface HostCompatibility {
  hostVersion: string
  protocol: ProtocolRange
}

/** Which side is behind when compatibility fails. */
export type IncompatibleDirection = 'host-too-old' | 'host-too-new'

/** Why a plugin cannot run on a host: the member that fails, which side is behind, both sides' values. */
export interface Incompatibility {
  member: 'protocol' | 'svc'
  direction: IncompatibleDirection
  required: ProtocolRange | string
  host: ProtocolRange | string
  /** A sentence naming both sides. */
  message: string
}

/**
 * The first way a plugin's `compatibility` block rules out `host`, or null: a `protocol` range that does not
 * overlap the host's, or an `svc` range the host version does not satisfy (skipped for a development host,
 * `0.0.0-dev`). `sdk` is recorded only, never judged. Values that are not well-formed are not judged here
 * (the validator reports them), so this is safe on a manifest nobody has validated.
 */
export function findIncompatibility(compatibility: unknown, host: HostCompatibility): Incompatibility | null {
  if (typeof compatibility !== 'object' || compatibility === null || Array.isArray(compatibility)) return null
  const {protocol, svc} = compatibility as {protocol?: unknown; svc?: unknown}
  if (typeof protocol === 'object' && protocol !== null && Number.isInteger((protocol as ProtocolRange).minimum) && Number.isInteger((protocol as ProtocolRange).maximum)) {
    const {minimum, maximum} = protocol as ProtocolRange
    // The plugin speaks only majors newer than any the host serves, or only older ones.
    const direction: IncompatibleDirection | null = minimum > host.protocol.maximum ? 'host-too-old' : maximum < host.protocol.minimum ? 'host-too-new' : null
    if (direction !== null) {
      return {
        member: 'protocol',
        direction,
        required: {minimum, maximum},
        host: {...host.protocol},
        message: `The plugin speaks protocol ${minimum}-${maximum}; this host serves ${host.protocol.minimum}-${host.protocol.maximum}.`,
      }
    }
  }
  if (typeof svc === 'string' && host.hostVersion !== developmentHostVersion && isSemVer(host.hostVersion)) {
    const range = parseVersionRange(svc)
    if (range !== null && !satisfies(host.hostVersion, range)) {
      return {member: 'svc', direction: svcDirection(host.hostVersion, svc), required: svc, host: host.hostVersion, message: `The plugin needs a host version ${svc}; this host is ${host.hostVersion}.`}
    }
  }
  return null
}

/**
 * Which side is behind for an unsatisfied range: the first comparator the host version fails decides — a
 * lower bound (`>`, `>=`) means the host is too old, an upper bound (`<`, `<=`) too new, and `=` compares.
 */
function svcDirection(hostVersion: string, range: string): IncompatibleDirection {
  const parsed = parseVersionRange(range)
  if (parsed === null || parsed.kind === 'any') return 'host-too-old'
  for (const comparator of parsed.comparators) {
    if (satisfies(hostVersion, {kind: 'comparators', comparators: [comparator]})) continue
    switch (comparator.operator) {
      case '>':
      case '>=':
        return 'host-too-old'
      case '<':
      case '<=':
        return 'host-too-new'
      case '=':
        return compareSemVer(hostVersion, comparator.version) < 0 ? 'host-too-old' : 'host-too-new'
      default:
        return 'host-too-old'
    }
  }
  return 'host-too-old'
}
