import {readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'

/** The values of the `x-svc-requirement` annotation: which level demands a property. */
export const requirementCategories = ['runtime', 'publication', 'recommended', 'generated'] as const
/** One `x-svc-requirement` value. */
export type RequirementCategory = (typeof requirementCategories)[number]

/** The JSON Schema of manifest.json as parsed from `schema/manifest.schema.json`. */
export type ManifestJsonSchema = {$id: string; $defs: Record<string, {pattern?: string; [key: string]: unknown}>; [key: string]: unknown}

/** The directory of the `svc-plugin` package: the nearest ancestor whose package.json names it. */
function packageRoot(): string {
  let directory = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(directory, 'package.json'), 'utf8')) as {name?: unknown}
      if (manifest.name === 'svc-plugin') return directory
    } catch {
      // No readable package.json here: keep walking up.
    }
    const parent = path.dirname(directory)
    if (parent === directory) throw new Error('svc-plugin: the package root (package.json named svc-plugin) was not found above the library.')
    directory = parent
  }
}

const schemaFile = path.join(packageRoot(), 'schema', 'manifest.schema.json')
const schemaText = readFileSync(schemaFile, 'utf8')

/** Where the manifest schema this package ships lies on disk (for a manifest's `$schema`). */
export function manifestSchemaPath(): string {
  return schemaFile
}

/** The manifest JSON Schema (draft 2020-12), parsed once from the package's `schema/` folder. */
export const manifestSchema: ManifestJsonSchema = JSON.parse(schemaText) as ManifestJsonSchema

/** The schema file's exact text, for `svc-plugin schema`. */
export function manifestSchemaText(): string {
  return schemaText
}

/** The pattern of a `$defs` entry, so that code checks the same shape the published schema describes. */
export function schemaPattern(definition: string): RegExp {
  const pattern = manifestSchema.$defs[definition]?.pattern
  if (typeof pattern !== 'string') throw new Error(`svc-plugin: the manifest schema has no pattern in $defs.${definition}.`)
  return new RegExp(pattern, 'u')
}
