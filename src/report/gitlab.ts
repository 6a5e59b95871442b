import {createHash} from 'node:crypto'
import type {Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {displayPath, placedMessage, placeOfProblem, rootRelativePath} from './location.js'
import {jsonText} from './json-text.js'
import {tooManyWarnings, warningLimit, warningLimitMessage} from './warning-limit.js'

/** Options of the GitLab renderer. */
export interface GitlabOptions {
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /** Paths are relative to this directory (the repository root, as GitLab expects); default `cwd`. */
  root?: string
  /** The most warnings the run allows (`--max-warnings`); absent or negative: no limit. */
  maxWarnings?: number
}

/** One issue of a GitLab Code Quality report. */
export interface CodeQualityIssue {
  description: string
  check_name: string
  fingerprint: string
  severity: 'info' | 'minor' | 'major' | 'critical' | 'blocker'
  location: {path: string; lines: {begin: number}}
}

const severities: Record<Severity, CodeQualityIssue['severity']> = {error: 'major', warning: 'minor', info: 'info'}

/**
 * Subjects as a GitLab Code Quality report: a JSON array with one issue per diagnostic (`check_name` is the
 * code, `fingerprint` a SHA-256 of path, code, pointer and message, stable from run to run) and a
 * `critical` issue per subject that could not be read. Each issue is placed in the file the problem is in
 * (the manifest, or another file of the package), by a path relative to the repository root, at its line
 * (1 when unknown); a problem inside an artifact is placed at the artifact file, line 1, and names the path
 * inside in its description. Warnings over `maxWarnings` are a `major` issue `too-many-warnings` placed
 * at the first warning.
 */
export function renderGitlab(subjects: readonly SubjectResult[], options: GitlabOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const where = (file: string): string => rootRelativePath(file, cwd, root) ?? displayPath(file, cwd)
  const issues: CodeQualityIssue[] = []
  let firstWarning: CodeQualityIssue['location'] | null = null
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      issues.push(issue(subject.message, subject.code, 'critical', where(subject.path), 1, ''))
      continue
    }
    for (const problem of subject.problems) {
      const place = placeOfProblem(subject, problem)
      const found = issue(placedMessage(place, problem.message), problem.code, severities[problem.severity], where(place.file), place.line ?? 1, problem.pointer ?? '')
      if (problem.severity === 'warning') firstWarning ??= found.location
      issues.push(found)
    }
  }
  const limit = warningLimit(subjects, options.maxWarnings)
  if (limit?.exceeded === true && firstWarning !== null) issues.push(issue(warningLimitMessage(limit), tooManyWarnings, 'major', firstWarning.path, firstWarning.lines.begin, ''))
  return jsonText(issues)
}

function issue(description: string, code: string, severity: CodeQualityIssue['severity'], path: string, line: number, pointer: string): CodeQualityIssue {
  const fingerprint = createHash('sha256').update(JSON.stringify([path, code, pointer, description])).digest('hex')
  return {description, check_name: code, fingerprint, severity, location: {path, lines: {begin: line}}}
}
