import type {ValidationReport} from '../manifest/report.js'
import {renderGithub} from './github.js'
import {renderJson} from './json.js'
import {renderSarif} from './sarif.js'
import {renderText} from './text.js'

/** The output formats of a validation report (`--format`). */
export const reportFormats = ['text', 'json', 'sarif', 'github'] as const
export type ReportFormat = (typeof reportFormats)[number]

/** Everything any renderer may need; each takes what applies to it. */
export interface RenderOptions {
  /** Colour the text format's severity words (default false). */
  color?: boolean
  /** Text format: only errors, no summary. */
  errorsOnly?: boolean
  /** The svc-plugin version, recorded in SARIF. */
  toolVersion?: string
  /** Paths are shown relative to this directory; default `process.cwd()`. */
  cwd?: string
}

/** Renders a report in one of the report formats; the result is printed as is. */
export function renderReport(report: ValidationReport, format: ReportFormat, options: RenderOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  switch (format) {
    case 'text':
      return renderText(report, {color: options.color ?? false, errorsOnly: options.errorsOnly ?? false, cwd})
    case 'json':
      return renderJson(report)
    case 'sarif':
      return renderSarif(report, {toolVersion: options.toolVersion ?? '0.0.0', cwd})
    case 'github':
      return renderGithub(report, {cwd})
    default:
      throw new Error(`unknown report format ${String(format satisfies never)}`)
  }
}
