import path from 'node:path'
import {pathToFileURL} from 'node:url'
import type {ValidationReport} from '../manifest/report.js'

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
 * Where a CI system can place a report's problems: the file on disk (for a manifest inside an artifact,
 * the artifact itself) and the path inside that file, or null when the problems are in the file itself.
 */
export function placeOf(report: ValidationReport): {file: string; inner: string | null} {
  if (report.subject.kind === 'artifact') return {file: report.subject.path, inner: 'manifest.json'}
  return {file: report.file, inner: null}
}

/** A file as a path relative to `root` (forward slashes) when it lies inside `root`; otherwise null. */
export function rootRelativePath(file: string, cwd: string, root: string): string | null {
  const relative = path.relative(path.resolve(root), path.resolve(cwd, file))
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null
  return toForwardSlashes(relative)
}

/** A relative path as a URI reference: each segment percent-encoded (a lone surrogate, which has no UTF-8, as U+FFFD). */
export function uriReference(relative: string): string {
  return relative
    .split('/')
    .map((segment) => encodeURIComponent(segment.replace(/\p{Cs}/gu, '\ufffd')))
    .join('/')
}

/** A directory as an absolute `file:` URL ending in `/` (what SARIF's `originalUriBaseIds` require). */
export function directoryUrl(directory: string): string {
  const href = pathToFileURL(path.resolve(directory)).href
  return href.endsWith('/') ? href : `${href}/`
}

/** A file as an absolute `file:` URL. */
export function fileUrl(file: string, cwd: string): string {
  return pathToFileURL(path.resolve(cwd, file)).href
}

function toForwardSlashes(text: string): string {
  return text.split(path.sep).join('/')
}
