import {readJsonDocument, type ReadJsonResult} from '../json/strict-json.js'
import {maxManifestBytes} from '../model/manifest-size.js'
import {validateDocument} from './engine.js'
import type {ValidateManifestOptions} from './engine.js'
import type {ValidationReport} from './report.js'

export type {ValidateManifestOptions} from './engine.js'

const encoder = new TextEncoder()

/** Reads manifest.json bytes as strict JSON, at most 8 MiB: the one parse every judge of a manifest shares. */
export function readManifestDocument(bytes: Uint8Array): ReadJsonResult {
  return readJsonDocument(bytes, {maxBytes: maxManifestBytes})
}

/**
 * Validates manifest.json bytes (or text) at a level and returns every problem in one report. Never
 * throws on any input. Package-level content checks (entrypoints, icon, `files[]` against real bytes)
 * run only when `content` is given; the layout and publication metadata checks need none.
 */
export function validateManifest(source: string | Uint8Array, options: ValidateManifestOptions = {}): ValidationReport {
  const bytes = typeof source === 'string' ? encoder.encode(source) : source
  return validateDocument(readManifestDocument(bytes), options)
}
