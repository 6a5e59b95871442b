import type {FileDigest} from '../model/manifest.js'

/**
 * The manifest written into an artifact (DESIGN §6): the source manifest with `files` and
 * `languages` replaced and `signature` dropped, every other property — unknown ones included —
 * kept in its order; 2-space indent and one `\n` at the end. A property that was absent is
 * appended at the end.
 */
export function renderPackedManifest(source: Record<string, unknown>, replacements: {files: FileDigest[]; languages?: string[]}): string {
  const output: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(source)) {
    if (key === 'signature') continue
    output[key] = value
  }
  if (replacements.languages !== undefined) output.languages = replacements.languages
  output.files = replacements.files
  return `${JSON.stringify(output, null, 2)}\n`
}
