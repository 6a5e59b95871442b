import type {ReadJsonResult} from '../json/strict-json.js'
import type {Manifest} from '../model/manifest.js'
import {effectiveSettings, type EffectiveSettings} from '../model/settings.js'
import {validateDocument} from './engine.js'
import type {SubjectKind, ValidationReport} from './report.js'
import {identityMatchesDirectory} from './rules/identity-matches-directory.js'
import type {ExpectedIdentity} from './rules/identity-matches-directory.js'
import {readManifestDocument} from './validate.js'

/**
 * What `readManifest` returns: the manifest exactly when the report is valid, with its effective settings
 * (shutdown and health with every default and clamp applied, so that a host never re-implements them).
 */
export type ReadManifestResult =
  | {manifest: Manifest; settings: EffectiveSettings; report: ValidationReport & {valid: true}}
  | {manifest: null; settings: null; report: ValidationReport & {valid: false}}

/**
 * Reads a manifest for a host layer (install, verify, store) at development level, the level an installer
 * enforces; `source` is the manifest's bytes or their strict-JSON reading. With `expect`, a manifest whose
 * id or version disagrees with its installed directory is `id-mismatch` / `version-mismatch`. Never throws;
 * branch on `report.valid`.
 */
export function readManifest(
  source: Uint8Array | ReadJsonResult,
  options: {expect?: ExpectedIdentity; file?: string; subjectKind?: SubjectKind; subjectPath?: string} = {},
): ReadManifestResult {
  const read = source instanceof Uint8Array ? readManifestDocument(source) : source
  const report = validateDocument(
    read,
    {level: 'development', file: options.file, subjectKind: options.subjectKind ?? 'installed', subjectPath: options.subjectPath},
    options.expect === undefined ? [] : [identityMatchesDirectory(options.expect)],
  )
  if (report.valid && read.ok) {
    const manifest = read.value as Manifest
    return {manifest, settings: effectiveSettings(manifest), report: report as ValidationReport & {valid: true}}
  }
  return {manifest: null, settings: null, report: report as ValidationReport & {valid: false}}
}
