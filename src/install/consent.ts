import {asksForMore, compareManifests, describeChanges, type ManifestChanges} from '../manifest/changes.js'
import type {Manifest} from '../model/manifest.js'
import {InstallError} from './errors.js'
import {loadInstalledManifest} from './installed-manifest.js'
import {versionPath} from './layout.js'
import type {InstalledVersions} from './version-directories.js'

/** Decides whether an update may have what it newly asks for; see `InstallOptions.consent`. */
export type ConsentCallback = (changes: ManifestChanges) => boolean | Promise<boolean>

/**
 * The consent step of an install, taken under the plugin's lock before anything is extracted: compares
 * the new manifest with the active version's (`compareManifests`) and, when the new one asks for anything
 * the active one did not, asks `consent`; without it, or when it answers false, the install is refused
 * with `consent-required` (`details.changes`). Returns the changes, or null when no version is active (a
 * first install asks for nothing). An active version whose manifest cannot be read granted nothing: all
 * the new one asks for is new.
 */
export async function consentToChanges(dataRoot: string, manifest: Manifest, installed: InstalledVersions, consent: ConsentCallback | undefined): Promise<ManifestChanges | null> {
  const active = installed.active
  if (active === null) return null
  const loaded = await loadInstalledManifest(versionPath(dataRoot, manifest.id, active.directory), manifest.id)
  const changes = compareManifests(loaded?.manifest ?? {}, manifest)
  if (!asksForMore(changes) || (consent !== undefined && (await consent(changes)) === true)) return changes
  const {id, version} = manifest
  throw new InstallError(
    'consent-required',
    `${id} ${version} asks for what ${active.version} did not: ${describeChanges(changes, 'added').join(', ')}; ${consent === undefined ? 'no consent was given' : 'consent was refused'}.`,
    {details: {id, version, activeVersion: active.version, changes}},
  )
}
