import type {Diagnostic} from '../manifest/diagnostic.js'
import type {Level} from '../manifest/levels.js'
import {isSubjectFailure, type SubjectResult, type ValidationReport} from '../manifest/report.js'
import {jsonText} from './json-text.js'
import {problemFile} from './location.js'
import {warningLimit, type WarningLimit} from './warning-limit.js'

/** One problem of the `--json` document: the diagnostic plus the file it is in, which its position refers to. */
export type ProblemDocument = Diagnostic & {file: string}

/** The `--json` document of `validate` for one subject. */
export interface ReportDocument {
  valid: boolean
  /** The plugin id; null when the manifest did not parse or its id is bad. */
  id: string | null
  version: string | null
  level: Level
  /** The subject as given: a manifest file, a folder or an artifact. */
  path: string
  /** The manifest file the positions refer to (`<artifact>!manifest.json` inside an artifact). */
  file: string
  /** Every diagnostic, warnings and notes included (each has its `severity`). */
  problems: ProblemDocument[]
  /** With a warning limit (`--max-warnings`): how the run's warnings compare with it. */
  maxWarnings?: WarningLimit
}

/** The `--json` document of a subject that could not be read. */
export interface FailureDocument {
  valid: false
  path: string
  error: {code: string; message: string}
}

/** The `--json` document of a run over several subjects (several PATHs, or a pattern). */
export interface SubjectsDocument {
  /** True when every subject was read and is valid. */
  valid: boolean
  subjects: Array<ReportDocument | FailureDocument>
  /** With a warning limit (`--max-warnings`): how the run's warnings compare with it. */
  maxWarnings?: WarningLimit
}

/** The report reduced to the documented `--json` shape, keys in a fixed order. */
export function reportDocument(report: ValidationReport): ReportDocument {
  return {
    valid: report.valid,
    id: report.pluginId,
    version: report.version,
    level: report.level,
    path: report.subject.path,
    file: report.file,
    problems: report.problems.map((problem) => diagnosticDocument(problem, problemFile(report, problem))),
  }
}

/** Every subject's document under `subjects`. */
export function subjectsDocument(subjects: readonly SubjectResult[]): SubjectsDocument {
  const documents = subjects.map((subject): ReportDocument | FailureDocument =>
    isSubjectFailure(subject) ? {valid: false, path: subject.path, error: {code: subject.code, message: subject.message}} : reportDocument(subject),
  )
  return {valid: documents.every((document) => document.valid), subjects: documents}
}

/**
 * Subjects as indented JSON text, newline-terminated: one report's document when `single` (one subject
 * named on the command line, whose report it must be), else `{valid, subjects}`; with a warning limit
 * (`maxWarnings` of at least 0), the document ends with `maxWarnings: {limit, warnings, exceeded}`.
 */
export function renderJson(subjects: readonly SubjectResult[], options: {single?: boolean; maxWarnings?: number} = {}): string {
  const only = subjects[0]
  const document = options.single === true && subjects.length === 1 && only !== undefined && !isSubjectFailure(only) ? reportDocument(only) : subjectsDocument(subjects)
  const limit = warningLimit(subjects, options.maxWarnings)
  return jsonText(limit === null ? document : {...document, maxWarnings: limit})
}

function diagnosticDocument(problem: Diagnostic, file: string): ProblemDocument {
  const {code, severity, message, pointer, line, column, requiredBy} = problem
  return requiredBy === undefined ? {code, severity, message, file, pointer, line, column} : {code, severity, message, file, pointer, line, column, requiredBy}
}
