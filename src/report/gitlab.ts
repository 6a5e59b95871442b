import {createHash} from 'node:crypto'
import type {Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {displayPath, placeOf, rootRelativePath} from './location.js'
import {jsonText} from './json-text.js'

/** Options of the GitLab renderer. */
export interface GitlabOptions {
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /** Paths are relative to this directory (the repository root, as GitLab expects); default `cwd`. */
  root?: string
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
 * `critical` issue per subject that could not be read. Paths are relative to the repository root; a problem
 * inside an artifact is placed at the artifact file, line 1, and names the path inside in its description.
 */
export function renderGitlab(subjects: readonly SubjectResult[], options: GitlabOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const where = (file: string): string => rootRelativePath(file, cwd, root) ?? displayPath(file, cwd)
  const issues: CodeQualityIssue[] = []
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      const file = where(subject.path)
      issues.push(issue(subject.message, subject.code, 'critical', file, 1, ''))
      continue
    }
    const place = placeOf(subject)
    const file = where(place.file)
    for (const problem of subject.problems) {
      const inside = place.inner === null ? '' : `${place.inner}${problem.line === null ? '' : `:${problem.line}`} (inside the artifact): `
      const line = place.inner === null ? (problem.line ?? 1) : 1
      issues.push(issue(`${inside}${problem.message}`, problem.code, severities[problem.severity], file, line, problem.pointer ?? ''))
    }
  }
  return jsonText(issues)
}

function issue(description: string, code: string, severity: CodeQualityIssue['severity'], path: string, line: number, pointer: string): CodeQualityIssue {
  const fingerprint = createHash('sha256').update(JSON.stringify([path, code, pointer, description])).digest('hex')
  return {description, check_name: code, fingerprint, severity, location: {path, lines: {begin: line}}}
}
