import path from 'node:path'
import {pathToFileURL} from 'node:url'
import type {Diagnostic} from '../manifest/diagnostic.js'
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
 * Where a CI system places one problem: the file on disk and, for a problem inside an artifact, the
 * path inside it (`inner`, the artifact itself being `file`); `line` and `column` are positions in `file`,
 * null inside an artifact or when unknown (`innerLine` is then the line in the inner file).
 */
export interface ProblemPlace {
  file: string
  inner: string | null
  line: number | null
  column: number | null
  innerLine: number | null
}

/**
 * The file a problem's position refers to, as the report names files: the manifest file, or for a problem
 * in another file of the package (`problem.path`) that file beside the manifest, or `<artifact>!<path>`.
 */
export function problemFile(report: ValidationReport, problem: Diagnostic): string {
  if (problem.path === undefined) return report.file
  if (report.subject.kind === 'artifact') return `${report.subject.path}!${problem.path}`
  return path.join(path.dirname(report.file), ...problem.path.split('/'))
}

/** Where a CI system can place `problem` of `report` (see {@link ProblemPlace}). */
export function placeOfProblem(report: ValidationReport, problem: Diagnostic): ProblemPlace {
  if (report.subject.kind === 'artifact') return {file: report.subject.path, inner: problem.path ?? 'manifest.json', line: null, column: null, innerLine: problem.line}
  return {file: problemFile(report, problem), inner: null, line: problem.line, column: problem.line === null ? null : problem.column, innerLine: null}
}

/** A problem's message as a CI system shows it: inside an artifact, led by the inner path and line. */
export function placedMessage(place: ProblemPlace, message: string): string {
  if (place.inner === null) return message
  return `${place.inner}${place.innerLine === null ? '' : `:${place.innerLine}`} (inside the artifact): ${message}`
}

/** The file a subject's report is about: the artifact, or the manifest file. */
export function subjectFile(report: ValidationReport): string {
  return report.subject.kind === 'artifact' ? report.subject.path : report.file
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
