import type {Diagnostic} from './diagnostic.js'
import type {Level} from './levels.js'

/** What was validated: a manifest file, a directory, an artifact or an installed version directory. */
export type SubjectKind = 'manifest' | 'directory' | 'artifact' | 'installed'

/** The result of one validation run (the JSON shape of `validate --json`, plus the subject). */
export interface ValidationReport {
  /** False when any diagnostic is an error. */
  valid: boolean
  pluginId: string | null
  version: string | null
  level: Level
  /** The manifest file the pointers and lines refer to (a path on disk or `<artifact>!manifest.json`). */
  file: string
  subject: {kind: SubjectKind; path: string}
  /** Every diagnostic, ordered by line, then column, then code. */
  problems: Diagnostic[]
}

/** A subject that could not be judged at all: missing, unreadable, not an artifact. */
export interface SubjectFailure {
  /** The subject as it was given (a path or a pattern that matched nothing). */
  path: string
  /** The stable code of the refusal (e.g. `file-not-found`). */
  code: string
  message: string
  /** The error as thrown, for the caller that maps codes to exit statuses. */
  error: Error & {code: string}
}

/** What one subject of a run of several yields: its report, or why there is none. */
export type SubjectResult = ValidationReport | SubjectFailure

/** True when the subject could not be judged. */
export function isSubjectFailure(result: SubjectResult): result is SubjectFailure {
  return 'error' in result
}
