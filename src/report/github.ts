import type {Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {visibleText} from '../model/visible-text.js'
import {codeHelpUrl} from './help.js'
import {displayPath, placeOf, rootRelativePath} from './location.js'
import {markdownTable, type MarkdownCell, type MarkdownLink} from './markdown.js'
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

const commands: Record<Severity, WorkflowCommand> = {error: 'error', warning: 'warning', info: 'notice'}

/** The workflow commands the renderer writes. */
type WorkflowCommand = 'error' | 'warning' | 'notice'

/**
 * One workflow command line, the only way a line of the `github` format is made:
 * `::<command> <name>=<value>,…::<message>`. Every property value and the message are shown visibly
 * ({@link visibleText}) and then escaped as GitHub documents (the message's `%`, CR and LF; a property's
 * also `:` and `,`), so no value can end the command, add a property or start a line of its own.
 */
export function workflowCommand(command: WorkflowCommand, properties: ReadonlyArray<readonly [string, string | number]>, message: string): string {
  const list = properties.map(([name, value]) => `${name}=${escapeProperty(visibleText(String(value)))}`).join(',')
  return `::${command}${list === '' ? '' : ` ${list}`}::${escapeData(visibleText(message))}`
}

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
  const title = (code: string): readonly [string, string] => ['title', `${code} (${codeHelpUrl(code, options.toolVersion ?? '0.0.0')})`]
  const lines: string[] = []
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      lines.push(workflowCommand('error', [title(subject.code)], `${subject.path}: ${subject.message}`))
      continue
    }
    const place = placeOf(subject)
    const file = rootRelativePath(place.file, cwd, root) ?? displayPath(place.file, cwd)
    for (const problem of subject.problems) {
      const properties: Array<readonly [string, string | number]> = [['file', file]]
      if (place.inner === null && problem.line !== null) {
        properties.push(['line', problem.line])
        if (problem.column !== null) properties.push(['col', problem.column])
      }
      properties.push(title(problem.code))
      const message = place.inner === null ? problem.message : `${place.inner}${problem.line === null ? '' : `:${problem.line}`} (inside the artifact): ${problem.message}`
      lines.push(workflowCommand(commands[problem.severity], properties, message))
    }
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/**
 * A Markdown summary for a GitHub Actions job page (`$GITHUB_STEP_SUMMARY`): a table with one row per
 * subject (result, errors, warnings), then one row per problem with a link to its code's page. Built as
 * tables of typed cells (markdown.ts), which escape every value.
 */
export function renderStepSummary(subjects: readonly SubjectResult[], options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const version = options.toolVersion ?? '0.0.0'
  const link = (code: string): MarkdownLink => ({code, href: codeHelpUrl(code, version)})
  const rows: MarkdownCell[][] = []
  const problems: MarkdownCell[][] = []
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      rows.push([subject.path, ['not read: ', link(subject.code)], '1', '0'])
      problems.push([subject.path, 'error', link(subject.code), subject.message])
      continue
    }
    const name = subject.pluginId === null ? displayPath(placeOf(subject).file, cwd) : `${subject.pluginId} ${subject.version ?? ''}`.trim()
    const {error, warning} = countProblems(subject)
    rows.push([name, `${subject.valid ? 'valid' : 'invalid'} (${subject.level})`, String(error), String(warning)])
    for (const problem of subject.problems) problems.push([name, problem.severity, link(problem.code), problem.message])
  }
  const sections = ['### svc-plugin validate', '', ...markdownTable(['Subject', 'Result', 'Errors', 'Warnings'], rows), '']
  if (problems.length > 0) sections.push(...markdownTable(['Subject', 'Severity', 'Code', 'Message'], problems), '')
  return `${sections.join('\n')}\n`
}

/** Workflow-command escaping of a message: `%`, CR and LF. */
export function escapeData(text: string): string {
  return text.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
}

/** Workflow-command escaping of a property value: as a message, plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C')
}
