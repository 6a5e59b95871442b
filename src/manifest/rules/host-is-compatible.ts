import {findIncompatibility} from '../../model/compatibility.js'
import type {Rule} from './types.js'

/** The plugin can run on the given host (`incompatible`): what an install on that host would say, previewed. */
export const hostIsCompatible: Rule = {
  name: 'host-is-compatible',
  codes: ['incompatible'],
  level: 'development',
  check({manifest, host, rejected, emit}) {
    if (host?.compatibility === undefined || rejected.has('/compatibility')) return
    const incompatibility = findIncompatibility(manifest.compatibility, host.compatibility)
    if (incompatibility === null) return
    const pointer = `/compatibility/${incompatibility.member}`
    if (rejected.has(pointer)) return
    emit({code: 'incompatible', pointer, message: `${incompatibility.message} An install on this host would be refused (${incompatibility.direction}).`})
  },
}
