import {developmentHostVersion, findIncompatibility, type HostCompatibility} from '../model/compatibility.js'
import type {Manifest} from '../model/manifest.js'
import {InstallError} from './errors.js'
import {warning, type InstallWarning} from './warnings.js'

export {defaultProtocolRange, developmentHostVersion, type HostCompatibility, type IncompatibleDirection, type ProtocolRange} from '../model/compatibility.js'

/**
 * Judges a manifest's `compatibility` against the host: a `protocol` range that does not overlap the
 * host's, or an `svc` range the host version does not satisfy, throws `incompatible` with the direction and
 * the failing member; `sdk` is recorded only (warning `sdk-compatibility-unchecked`); on a development host
 * the `svc` range is skipped (warning `svc-compatibility-unchecked`).
 */
export function checkCompatibility(manifest: Manifest, host: HostCompatibility): InstallWarning[] {
  const incompatibility = findIncompatibility(manifest.compatibility, host)
  if (incompatibility !== null) {
    const {member, direction, required, host: served, message} = incompatibility
    throw new InstallError('incompatible', `${manifest.id} ${manifest.version}: ${message}`, {details: {direction, member, required, host: served}})
  }
  const warnings: InstallWarning[] = []
  const compatibility = manifest.compatibility
  if (compatibility?.svc !== undefined && host.hostVersion === developmentHostVersion) {
    warnings.push(warning('svc-compatibility-unchecked', `The host is a development build (${developmentHostVersion}); the host version range ${compatibility.svc} was not checked.`))
  }
  if (compatibility?.sdk !== undefined) {
    warnings.push(warning('sdk-compatibility-unchecked', `The SDK range ${compatibility.sdk} is recorded, not checked.`))
  }
  return warnings
}
