import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {diagnosticLine} from './text.js'
import {displayPath, placeOf} from './location.js'

/** Options of the JUnit renderer. */
export interface JunitOptions {
  /** Paths are shown relative to this directory; default `process.cwd()`. */
  cwd?: string
}

/**
 * Subjects as JUnit XML, the report format most CI systems read: one `<testsuite>` per subject holding
 * one `<testcase>` for the level it was judged at, with a `<failure>` per error (type = code) and the
 * warnings and notes in `<system-out>`; a subject that could not be read is a test case with an `<error>`.
 */
export function renderJunit(subjects: readonly SubjectResult[], options: JunitOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  let failures = 0
  let errors = 0
  const suites = subjects.map((subject) => {
    if (isSubjectFailure(subject)) {
      errors += 1
      const body = `      <error type="${attribute(subject.code)}" message="${attribute(subject.message)}">${text(subject.message)}</error>\n`
      return suite(subject.path, `${subject.path} could be read`, subject.path, {failures: 0, errors: 1}, body)
    }
    const file = displayPath(placeOf(subject).file, cwd)
    const name = subject.pluginId === null ? file : `${subject.pluginId}${subject.version === null ? '' : ` ${subject.version}`}`
    const errorProblems = subject.problems.filter((problem) => problem.severity === 'error')
    const others = subject.problems.filter((problem) => problem.severity !== 'error')
    failures += errorProblems.length
    let body = ''
    for (const problem of errorProblems) {
      const position = problem.line === null ? '' : `\n  at ${subject.file}:${problem.line}${problem.column === null ? '' : `:${problem.column}`}`
      body += `      <failure type="${attribute(problem.code)}" message="${attribute(problem.message)}">${text(diagnosticLine(problem) + position)}</failure>\n`
    }
    if (others.length > 0) body += `      <system-out>${text(others.map((problem) => diagnosticLine(problem)).join('\n'))}</system-out>\n`
    return suite(name, `${subject.level} level`, file, {failures: errorProblems.length, errors: 0}, body)
  })
  const header = `<testsuites name="svc-plugin validate" tests="${subjects.length}" failures="${failures}" errors="${errors}">`
  return `<?xml version="1.0" encoding="UTF-8"?>\n${header}\n${suites.join('')}</testsuites>\n`
}

function suite(name: string, caseName: string, file: string, counts: {failures: number; errors: number}, body: string): string {
  const open = `  <testsuite name="${attribute(name)}" tests="1" failures="${counts.failures}" errors="${counts.errors}" skipped="0">\n`
  const testcase = `    <testcase classname="${attribute(name)}" name="${attribute(caseName)}" file="${attribute(file)}"`
  return `${open}${testcase}${body === '' ? '/>\n' : `>\n${body}    </testcase>\n`}  </testsuite>\n`
}

/** XML 1.0 cannot carry most control characters, even escaped: they are shown as `\uXXXX`. */
function printable(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

function text(value: string): string {
  return printable(value).replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')
}

function attribute(value: string): string {
  return text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\r', '&#13;').replaceAll('\t', '&#9;')
}
