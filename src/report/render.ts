import type {SubjectResult, ValidationReport} from '../manifest/report.js'
import {renderGitlab} from './gitlab.js'
import {renderGithub} from './github.js'
import {renderJson} from './json.js'
import {renderJunit} from './junit.js'
import {renderSarif} from './sarif.js'
import {renderText} from './text.js'

/** The output formats of a validation report (`--format`). */
export const reportFormats = ['text', 'json', 'sarif', 'github', 'junit', 'gitlab'] as const
export type ReportFormat = (typeof reportFormats)[number]

/** Everything any renderer may need; each takes what applies to it. */
export interface RenderOptions {
  /** Colour the text format's severity words (default false). */
  color?: boolean
  /** Text format: only errors, no summary. */
  errorsOnly?: boolean
  /** The svc-plugin version, recorded in SARIF. */
  toolVersion?: string
  /** Where the code pages are published (`codePagesBase`); null or absent: no links, SARIF carries each page's text. */
  codePages?: string | null
  /** The most warnings the run allows (`--max-warnings`); absent or negative: no limit. */
  maxWarnings?: number
  /** Relative paths are resolved against this directory and shown relative to it; default `process.cwd()`. */
  cwd?: string
  /** SARIF, GitHub and GitLab paths are relative to this directory (the repository root); default `cwd`. */
  root?: string
  /** JSON: print the one subject's report document rather than `{valid, subjects}`. */
  single?: boolean
}

/** Renders one report in one of the report formats; the result is printed as is. */
export function renderReport(report: ValidationReport, format: ReportFormat, options: RenderOptions = {}): string {
  return renderSubjects([report], format, {single: true, ...options})
}

/** Renders the results of several subjects (reports, or why a subject could not be read) in one document. */
export function renderSubjects(subjects: readonly SubjectResult[], format: ReportFormat, options: RenderOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const toolVersion = options.toolVersion ?? '0.0.0'
  const codePages = options.codePages ?? null
  const limit = options.maxWarnings === undefined ? {} : {maxWarnings: options.maxWarnings}
  switch (format) {
    case 'text':
      return renderText(subjects, {color: options.color ?? false, errorsOnly: options.errorsOnly ?? false, cwd, ...limit})
    case 'json':
      return renderJson(subjects, {single: options.single ?? false, ...limit})
    case 'sarif':
      return renderSarif(subjects, {toolVersion, cwd, root, codePages, ...limit})
    case 'github':
      return renderGithub(subjects, {cwd, root, codePages, ...limit})
    case 'junit':
      return renderJunit(subjects, {cwd, ...limit})
    case 'gitlab':
      return renderGitlab(subjects, {cwd, root, ...limit})
    default:
      throw new Error(`unknown report format ${String(format satisfies never)}`)
  }
}
