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
