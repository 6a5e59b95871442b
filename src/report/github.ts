import type {Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {codeHelpUrl} from './help.js'
import {displayPath, placeOf, rootRelativePath} from './location.js'
import {countProblems} from './summary.js'

/** Options of the GitHub Actions renderers. */
export interface GithubOptions {
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /** Annotation paths are relative to this directory (the repository, GitHub's workspace); default `cwd`. */
  root?: string
  /** The svc-plugin version, naming the help pages the titles point to; default `0.0.0`. */
  toolVersion?: string
}

const commands: Record<Severity, string> = {error: 'error', warning: 'warning', info: 'notice'}

/**
 * Subjects as GitHub Actions workflow commands, one line per diagnostic:
 * `::error file=<file>,line=<l>,col=<c>,title=<code> (<help page>)::<message>` (`::warning`, `::notice`
 * for info). `line` and `col` are left out when unknown or inside an artifact (whose inner path then leads
 * the message); a subject that could not be read is one `::error` without a file. Nothing else is printed:
 * the runner turns each line into an annotation. Ends with a newline unless empty.
 */
export function renderGithub(subjects: readonly SubjectResult[], options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const title = (code: string): string => `title=${escapeProperty(`${code} (${codeHelpUrl(code, options.toolVersion ?? '0.0.0')})`)}`
  const lines: string[] = []
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      lines.push(`::error ${title(subject.code)}::${escapeData(`${subject.path}: ${subject.message}`)}`)
      continue
    }
    const place = placeOf(subject)
    const file = rootRelativePath(place.file, cwd, root) ?? displayPath(place.file, cwd)
    for (const problem of subject.problems) {
      const properties: string[] = [`file=${escapeProperty(file)}`]
      if (place.inner === null && problem.line !== null) {
        properties.push(`line=${problem.line}`)
        if (problem.column !== null) properties.push(`col=${problem.column}`)
      }
      properties.push(title(problem.code))
      const message = place.inner === null ? problem.message : `${place.inner}${problem.line === null ? '' : `:${problem.line}`} (inside the artifact): ${problem.message}`
      lines.push(`::${commands[problem.severity]} ${properties.join(',')}::${escapeData(message)}`)
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/**
 * A Markdown summary for a GitHub Actions job page (`$GITHUB_STEP_SUMMARY`): a table with one row per
 * subject (result, errors, warnings), then one row per problem with a link to its code's page.
 */
export function renderStepSummary(subjects: readonly SubjectResult[], options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const version = options.toolVersion ?? '0.0.0'
  const link = (code: string): string => `[\`${code}\`](${codeHelpUrl(code, version)})`
  const rows = ['| Subject | Result | Errors | Warnings |', '| --- | --- | --- | --- |']
  const problems = ['| Subject | Severity | Code | Message |', '| --- | --- | --- | --- |']
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      rows.push(`| ${cell(subject.path)} | not read: ${link(subject.code)} | 1 | 0 |`)
      problems.push(`| ${cell(subject.path)} | error | ${link(subject.code)} | ${cell(subject.message)} |`)
      continue
    }
    const name = subject.pluginId === null ? displayPath(placeOf(subject).file, cwd) : `${subject.pluginId} ${subject.version ?? ''}`.trim()
    const {error, warning} = countProblems(subject)
    rows.push(`| ${cell(name)} | ${subject.valid ? 'valid' : 'invalid'} (${subject.level}) | ${error} | ${warning} |`)
    for (const problem of subject.problems) problems.push(`| ${cell(name)} | ${problem.severity} | ${link(problem.code)} | ${cell(problem.message)} |`)
  }
  const sections = ['### svc-plugin validate', '', ...rows, '']
  if (problems.length > 2) sections.push(...problems, '')
  return `${sections.join('\n')}\n`
}

/** Text made safe for one Markdown table cell: no line break, no unescaped `|`. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replaceAll('|', '\\|')
}

/** Workflow-command escaping of a message: `%`, CR and LF. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
}

/** Workflow-command escaping of a property value: as a message, plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C')
}
