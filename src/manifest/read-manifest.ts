import type {Manifest} from '../model/index.js'
import {readJsonDocument} from '../json/strict-json.js'
import type {SubjectKind, ValidationReport} from './report.js'
import {identityMatchesDirectory} from './rules/identity-matches-directory.js'
import type {ExpectedIdentity} from './rules/identity-matches-directory.js'
import {validateDocument} from './engine.js'

/** What `readManifest` returns: the manifest exactly when the report is valid. */
export type ReadManifestResult = {manifest: Manifest; report: ValidationReport & {valid: true}} | {manifest: null; report: ValidationReport & {valid: false}}

/**
 * Reads manifest bytes for a host layer (install, verify, store) at development level, the level an
 * installer enforces (DESIGN §4.1). With `expect`, a manifest whose id or version disagrees with its
 * installed directory is `id-mismatch` / `version-mismatch`. Never throws; branch on `report.valid`.
 */
export function readManifest(
  bytes: Uint8Array,
  options: {expect?: ExpectedIdentity; file?: string; subjectKind?: SubjectKind; subjectPath?: string} = {},
): ReadManifestResult {
  const read = readJsonDocument(bytes)
  const report = validateDocument(
    read,
    {level: 'development', file: options.file, subjectKind: options.subjectKind ?? 'installed', subjectPath: options.subjectPath},
    options.expect === undefined ? [] : [identityMatchesDirectory(options.expect)],
  )
  if (report.valid && read.ok) return {manifest: read.value as Manifest, report: report as ValidationReport & {valid: true}}
  return {manifest: null, report: report as ValidationReport & {valid: false}}
}
