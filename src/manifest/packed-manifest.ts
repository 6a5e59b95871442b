import type {FileDigest} from '../model/manifest.js'
import {signerMemberNames} from '../model/signing-files.js'

/**
 * The manifest written into an artifact: the source manifest with `files` and `languages` replaced and
 * the members only the signer writes (`signature`, `containerDigest`) dropped, every other property — unknown ones included — kept in its order; 2-space indent
 * and one `\n` at the end. A property that was absent is appended at the end.
 *
 * The output object is built with defined properties on a prototype-less object, so that no member name is
 * special: a member called `__proto__` is kept as a member, never taken for the object's prototype.
 */
export function renderPackedManifest(source: Record<string, unknown>, replacements: {files: FileDigest[]; languages?: string[]}): string {
  const output: Record<string, unknown> = Object.create(null) as Record<string, unknown>
  const set = (key: string, value: unknown): void => {
    Object.defineProperty(output, key, {value, enumerable: true, writable: true, configurable: true})
  }
  for (const key of Object.keys(source)) {
    if (signerMemberNames.includes(key)) continue
    if (key === 'languages' && replacements.languages !== undefined) set(key, replacements.languages)
    else if (key === 'files') set(key, replacements.files)
    else set(key, source[key])
  }
  if (replacements.languages !== undefined && !Object.hasOwn(source, 'languages')) set('languages', replacements.languages)
  if (!Object.hasOwn(source, 'files')) set('files', replacements.files)
  return `${JSON.stringify(output, null, 2)}\n`
}
