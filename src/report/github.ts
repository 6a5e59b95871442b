import type {Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {visibleText} from '../model/visible-text.js'
import {codeHelpUrl} from './help.js'
import {displayPath, placedMessage, placeOfProblem, rootRelativePath, subjectFile} from './location.js'
import {markdownTable, type MarkdownCell, type MarkdownPart} from './markdown.js'
import {countProblems} from './summary.js'
import {tooManyWarnings, warningLimit, warningLimitMessage} from './warning-limit.js'

/** Options of the GitHub Actions renderers. */
export interface GithubOptions {
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /** Annotation paths are relative to this directory (the repository, GitHub's workspace); default `cwd`. */
  root?: string
  /** Where the code pages are published (`codePagesBase`); null or absent: titles and the summary name codes without a link. */
  codePages?: string | null
  /** The most warnings the run allows (`--max-warnings`); absent or negative: no limit. */
  maxWarnings?: number
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
 * for info), placed in the file the problem is in (the manifest, or another file of the package); the help
 * page only where one is published. `line` and `col` are left out when unknown or inside an artifact (whose
 * inner path then leads the message); a subject that could not be read, and warnings over `maxWarnings`, are
 * one `::error` each without a file. Nothing else is printed: the runner turns each line into an
 * annotation. Ends with a newline unless empty.
 */
export function renderGithub(subjects: readonly SubjectResult[], options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const pages = options.codePages ?? null
  const title = (code: string): readonly [string, string] => ['title', pages === null ? code : `${code} (${codeHelpUrl(code, pages)})`]
  const lines: string[] = []
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      lines.push(workflowCommand('error', [title(subject.code)], `${subject.path}: ${subject.message}`))
      continue
    }
    for (const problem of subject.problems) {
      const place = placeOfProblem(subject, problem)
      const properties: Array<readonly [string, string | number]> = [['file', rootRelativePath(place.file, cwd, root) ?? displayPath(place.file, cwd)]]
      if (place.line !== null) {
        properties.push(['line', place.line])
        if (place.column !== null) properties.push(['col', place.column])
      }
      properties.push(title(problem.code))
      lines.push(workflowCommand(commands[problem.severity], properties, placedMessage(place, problem.message)))
    }
  }
  const limit = warningLimit(subjects, options.maxWarnings)
  if (limit?.exceeded === true) lines.push(workflowCommand('error', [title(tooManyWarnings)], warningLimitMessage(limit)))
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`
}

/**
 * A Markdown summary for a GitHub Actions job page (`$GITHUB_STEP_SUMMARY`): a table with one row per
 * subject (result, errors, warnings), then one row per problem with its code (a link to the code's page
 * where one is published), then the warning limit when it was exceeded. Built as tables of typed cells
 * (markdown.ts), which escape every value.
 */
export function renderStepSummary(subjects: readonly SubjectResult[], options: GithubOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const pages = options.codePages ?? null
  const link = (code: string): MarkdownPart => (pages === null ? code : {code, href: codeHelpUrl(code, pages)})
  const rows: MarkdownCell[][] = []
  const problems: MarkdownCell[][] = []
  for (const subject of subjects) {
    if (isSubjectFailure(subject)) {
      rows.push([subject.path, ['not read: ', link(subject.code)], '1', '0'])
      problems.push([subject.path, 'error', link(subject.code), subject.message])
      continue
    }
    const name = subject.pluginId === null ? displayPath(subjectFile(subject), cwd) : `${subject.pluginId} ${subject.version ?? ''}`.trim()
    const {error, warning} = countProblems(subject)
    rows.push([name, `${subject.valid ? 'valid' : 'invalid'} (${subject.level})`, String(error), String(warning)])
    for (const problem of subject.problems) problems.push([name, problem.severity, link(problem.code), problem.message])
  }
  const sections = ['### svc-plugin validate', '', ...markdownTable(['Subject', 'Result', 'Errors', 'Warnings'], rows), '']
  if (problems.length > 0) sections.push(...markdownTable(['Subject', 'Severity', 'Code', 'Message'], problems), '')
  const limit = warningLimit(subjects, options.maxWarnings)
  if (limit?.exceeded === true) sections.push(...markdownTable(['Run', 'Code', 'Message'], [['failed', link(tooManyWarnings), warningLimitMessage(limit)]]), '')
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
