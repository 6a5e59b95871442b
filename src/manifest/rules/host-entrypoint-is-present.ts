import {describePointer} from '../../json/pointer.js'
import {entrypointCandidates} from '../../model/rid.js'
import type {Rule} from './types.js'
import {declaredEntrypoints, normalizePackagePath, quote} from './values.js'

/**
 * The executable a host of the given runtime identifier would start is on disk (`entrypoint-missing`):
 * only the host's own entrypoint (or its fallback) is checked, and nothing when none resolves for it. It
 * judges a manifest file or a plugin folder against the files beside it, so that an author learns before
 * packing what an install on that host would refuse.
 */
export const hostEntrypointIsPresent: Rule = {
  name: 'host-entrypoint-is-present',
  codes: ['entrypoint-missing'],
  level: 'development',
  check({manifest, host, rejected, emit}) {
    const existing = host?.existingExecutables
    if (host === undefined || existing === undefined) return
    const declared = declaredEntrypoints(manifest)
    const resolved = entrypointCandidates(host.rid)
      .map((rid) => declared.find((entry) => entry.rid === rid))
      .find((entry) => entry !== undefined)
    if (resolved === undefined || resolved.executable === null || rejected.has(resolved.executablePointer)) return
    const file = normalizePackagePath(resolved.executable)
    if (existing.has(file)) return
    const fallback = resolved.rid === host.rid ? '' : ` (the ${resolved.rid} entrypoint, which a ${host.rid} host falls back to)`
    emit({
      code: 'entrypoint-missing',
      pointer: resolved.executablePointer,
      message: `${describePointer(resolved.executablePointer)} ${quote(resolved.executable)}${fallback} is not on disk at ${quote(file)}: a ${host.rid} host would refuse to install the plugin. Build it, or fix the path.`,
    })
  },
}
