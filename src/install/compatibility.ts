import type {Manifest} from '../model/manifest.js'
import {parseVersionRange, satisfies} from '../model/range.js'
import {compareSemVer} from '../model/semver.js'
import {InstallError} from './errors.js'
import {warning, type InstallWarning} from './warnings.js'

/** The host version that marks a development build: the `svc` range is not checked against it (seed, compatibility). */
export const developmentHostVersion = '0.0.0-dev'

/** The protocol majors a host serves when the caller names none. */
export const defaultProtocolRange: Readonly<ProtocolRange> = {minimum: 1, maximum: 3}

/** An inclusive range of protocol majors. */
export interface ProtocolRange {
  minimum: number
  maximum: number
}

/** What the installing host is. */
export interface HostCompatibility {
  /** The host's SemVer version, or `0.0.0-dev` for a development build. */
  hostVersion: string
  /** The protocol majors the host serves. */
  protocol: ProtocolRange
}

/** Which side is behind when compatibility fails. */
export type IncompatibleDirection = 'host-too-old' | 'host-too-new'

/**
 * Judges a manifest's `compatibility` against the host: a `protocol` range that does not
 * overlap the host's, or an `svc` range the host version does not satisfy, throws `incompatible` with the
 * direction and the failing member; `sdk` is recorded only (warning `sdk-compatibility-unchecked`); on a
 * development host the `svc` range is skipped (warning `svc-compatibility-unchecked`).
 */
export function checkCompatibility(manifest: Manifest, host: HostCompatibility): InstallWarning[] {
  const warnings: InstallWarning[] = []
  const compatibility = manifest.compatibility
  if (compatibility === undefined) return warnings

  const protocol = compatibility.protocol
  if (protocol !== undefined) {
    // The plugin speaks only majors newer than any the host serves, or only older ones.
    const direction: IncompatibleDirection | null =
      protocol.minimum > host.protocol.maximum ? 'host-too-old' : protocol.maximum < host.protocol.minimum ? 'host-too-new' : null
    if (direction !== null) {
      throw new InstallError(
        'incompatible',
        `${manifest.id} ${manifest.version} speaks protocol ${protocol.minimum}-${protocol.maximum}; this host serves ${host.protocol.minimum}-${host.protocol.maximum}.`,
        {details: {direction, member: 'protocol', required: {...protocol}, host: {...host.protocol}}},
      )
    }
  }

  const svc = compatibility.svc
  if (svc !== undefined) {
    if (host.hostVersion === developmentHostVersion) {
      warnings.push(warning('svc-compatibility-unchecked', `The host is a development build (${developmentHostVersion}); the host version range ${svc} was not checked.`))
    } else if (!satisfies(host.hostVersion, svc)) {
      const direction = svcDirection(host.hostVersion, svc)
      throw new InstallError('incompatible', `${manifest.id} ${manifest.version} needs a host version ${svc}; this host is ${host.hostVersion}.`, {
        details: {direction, member: 'svc', required: svc, host: host.hostVersion},
      })
    }
  }

  if (compatibility.sdk !== undefined) {
    warnings.push(warning('sdk-compatibility-unchecked', `The SDK range ${compatibility.sdk} is recorded, not checked.`))
  }
  return warnings
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
