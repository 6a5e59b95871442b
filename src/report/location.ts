import path from 'node:path'
import {pathToFileURL} from 'node:url'

/**
 * The manifest file as a reader should see it: relative to `cwd` with forward slashes when it
 * lies inside `cwd`, otherwise absolute. `<artifact>!manifest.json` names keep their `!` suffix.
 */
export function displayPath(file: string, cwd: string): string {
  const absolute = path.resolve(cwd, file)
  const relative = path.relative(cwd, absolute)
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return toForwardSlashes(absolute)
  return toForwardSlashes(relative)
}

/**
 * The manifest file as a SARIF `artifactLocation.uri` (a URI reference): a relative reference
 * to `cwd` when the file lies inside it, otherwise a `file:` URL.
 */
export function sarifUri(file: string, cwd: string): string {
  const shown = displayPath(file, cwd)
  if (path.isAbsolute(shown) || /^[A-Za-z]:\//.test(shown)) return pathToFileURL(path.resolve(cwd, file)).href
  // encodeURIComponent leaves `!` alone, so `<artifact>!manifest.json` stays readable.
  return shown.split('/').map(encodeURIComponent).join('/')
}

function toForwardSlashes(text: string): string {
  return text.split(path.sep).join('/')
}
