import type {Manifest, PluginReference} from '../model/manifest.js'
import {isKnownPermission} from '../model/permissions.js'
import {satisfies} from '../model/range.js'
import type {ActivePlugin} from './installed.js'
import {warning, type InstallWarning} from './warnings.js'

/** A reference's range; absent means any version (`versionRange` defaults to any). */
function rangeOf(reference: PluginReference): string {
  return typeof reference.versionRange === 'string' ? reference.versionRange : '*'
}

/** The references of one relation array, skipping anything that is not shaped as one (installed manifests are read loosely). */
function referencesOf(manifest: Manifest, key: 'dependencies' | 'conflicts' | 'iconPacks'): PluginReference[] {
  const list: unknown = manifest[key]
  if (!Array.isArray(list)) return []
  return list.filter((item): item is PluginReference => typeof item === 'object' && item !== null && typeof (item as PluginReference).id === 'string')
}

/**
 * Judges a manifest against the plugins installed and active: `dependency-missing` and
 * `dependency-out-of-range` (blocking unless optional), `conflict-installed` (blocking when the other
 * plugin's active version satisfies the conflict range — in either direction: this plugin's conflicts, and
 * installed plugins that declare a conflict with this version), `icon-pack-unresolved`, `unknown-permission`.
 */
export function evaluateRelations(manifest: Manifest, active: ReadonlyMap<string, ActivePlugin>): InstallWarning[] {
  const warnings: InstallWarning[] = []
  for (const dependency of referencesOf(manifest, 'dependencies')) {
    const range = rangeOf(dependency)
    const blocking = dependency.optional !== true
    const kind = blocking ? 'dependency' : 'optional dependency'
    const other = active.get(dependency.id)
    if (other === undefined) {
      warnings.push(warning('dependency-missing', `The ${kind} ${dependency.id} (${range}) is not installed.`, blocking))
    } else if (!satisfies(other.activeVersion, range)) {
      warnings.push(warning('dependency-out-of-range', `The ${kind} ${dependency.id} is active in ${other.activeVersion}, outside ${range}.`, blocking))
    }
  }
  for (const conflict of referencesOf(manifest, 'conflicts')) {
    const other = active.get(conflict.id)
    if (other === undefined) continue
    const range = rangeOf(conflict)
    const blocking = satisfies(other.activeVersion, range)
    warnings.push(
      warning(
        'conflict-installed',
        blocking
          ? `${conflict.id} ${other.activeVersion} is active and conflicts with this plugin (${range}).`
          : `${conflict.id} is installed in ${other.activeVersion}, outside the conflicting range ${range}.`,
        blocking,
      ),
    )
  }
  for (const other of active.values()) {
    if (other.manifest === null) continue
    for (const conflict of referencesOf(other.manifest, 'conflicts')) {
      if (conflict.id !== manifest.id || !satisfies(manifest.version, rangeOf(conflict))) continue
      warnings.push(warning('conflict-installed', `${other.id} ${other.activeVersion} is active and declares a conflict with ${manifest.id} ${rangeOf(conflict)}.`, true))
    }
  }
  for (const pack of referencesOf(manifest, 'iconPacks')) {
    const other = active.get(pack.id)
    const range = rangeOf(pack)
    if (other === undefined) warnings.push(warning('icon-pack-unresolved', `The icon pack ${pack.id} (${range}) is not installed.`))
    else if (!satisfies(other.activeVersion, range)) {
      warnings.push(warning('icon-pack-unresolved', `The icon pack ${pack.id} is active in ${other.activeVersion}, outside ${range}.`))
    }
  }
  for (const permission of Array.isArray(manifest.permissions) ? manifest.permissions : []) {
    if (!isKnownPermission(permission)) warnings.push(warning('unknown-permission', `The permission ${JSON.stringify(permission)} is not in the known vocabulary; it is kept as declared.`))
  }
  return warnings
}

/** Ids of the active plugins that hard-depend on `id` (a dependency that is not optional), sorted. */
export function dependentsOf(id: string, active: ReadonlyMap<string, ActivePlugin>): string[] {
  const dependents: string[] = []
  for (const other of active.values()) {
    if (other.id === id || other.manifest === null) continue
    if (referencesOf(other.manifest, 'dependencies').some((dependency) => dependency.id === id && dependency.optional !== true)) dependents.push(other.id)
  }
  return dependents.sort()
}
