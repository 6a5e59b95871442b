import type {Severity} from '../manifest/diagnostic.js'
import type {ValidationReport} from '../manifest/report.js'
import {displayPath} from './location.js'

/** Options of the GitHub Actions renderer. */
export interface GithubOptions {
  /** Paths are made relative to this directory (the workspace); default `process.cwd()`. */
  cwd?: string
}

const commands: Record<Severity, string> = {error: 'error', warning: 'warning', info: 'notice'}

/**
 * A report as GitHub Actions workflow commands, one line per diagnostic:
 * `::error file=<file>,line=<l>,col=<c>,title=<code>::<message>` (`::warning`, `::notice` for info).
 * `line` and `col` are left out when unknown. Nothing else is printed: the runner turns each line
 * into an annotation. Ends with a newline unless empty.
 */
export function renderGithub(report: ValidationReport, options: GithubOptions = {}): string {
  const file = displayPath(report.file, options.cwd ?? process.cwd())
  const lines = report.problems.map((problem) => {
    const properties: string[] = [`file=${escapeProperty(file)}`]
    if (problem.line !== null) properties.push(`line=${problem.line}`)
    if (problem.line !== null && problem.column !== null) properties.push(`col=${problem.column}`)
    properties.push(`title=${escapeProperty(problem.code)}`)
    return `::${commands[problem.severity]} ${properties.join(',')}::${escapeData(problem.message)}`
  })
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/** Workflow-command escaping of a message: `%`, CR and LF. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
}

/** Workflow-command escaping of a property value: as a message, plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C')
}
