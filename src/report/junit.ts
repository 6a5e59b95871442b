import {isSubjectFailure, type SubjectResult} from '../manifest/report.js'
import {diagnosticLine} from './text.js'
import {plainText} from './text-lines.js'
import {displayPath, placeOf} from './location.js'
import {element, xmlDocument, xmlText, type XmlElement} from './xml.js'

/** Options of the JUnit renderer. */
export interface JunitOptions {
  /** Paths are shown relative to this directory; default `process.cwd()`. */
  cwd?: string
}

/**
 * Subjects as JUnit XML, the report format most CI systems read: one `<testsuite>` per subject holding
 * one `<testcase>` for the level it was judged at, with a `<failure>` per error (type = code) and the
 * warnings and notes in `<system-out>`; a subject that could not be read is a test case with an `<error>`.
 * Built as elements (xml.ts), which escape every value.
 */
export function renderJunit(subjects: readonly SubjectResult[], options: JunitOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  let failures = 0
  let errors = 0
  const suites = subjects.map((subject) => {
    if (isSubjectFailure(subject)) {
      errors += 1
      const error = element('error', [['type', subject.code], ['message', subject.message]], [xmlText(subject.message)])
      return suite(subject.path, `${subject.path} could be read`, subject.path, {failures: 0, errors: 1}, [error])
    }
    const file = displayPath(placeOf(subject).file, cwd)
    const name = subject.pluginId === null ? file : `${subject.pluginId}${subject.version === null ? '' : ` ${subject.version}`}`
    const errorProblems = subject.problems.filter((problem) => problem.severity === 'error')
    const others = subject.problems.filter((problem) => problem.severity !== 'error')
    failures += errorProblems.length
    const body = errorProblems.map((problem) => {
      const position = problem.line === null ? [] : [`  at ${subject.file}:${problem.line}${problem.column === null ? '' : `:${problem.column}`}`]
      return element('failure', [['type', problem.code], ['message', problem.message]], [xmlText(plainText(diagnosticLine(problem)), ...position)])
    })
    if (others.length > 0) body.push(element('system-out', [], [xmlText(...others.map((problem) => plainText(diagnosticLine(problem))))]))
    return suite(name, `${subject.level} level`, file, {failures: errorProblems.length, errors: 0}, body)
  })
  return xmlDocument(element('testsuites', [['name', 'svc-plugin validate'], ['tests', subjects.length], ['failures', failures], ['errors', errors]], suites))
}

function suite(name: string, caseName: string, file: string, counts: {failures: number; errors: number}, body: XmlElement[]): XmlElement {
  const testcase = element('testcase', [['classname', name], ['name', caseName], ['file', file]], body)
  return element('testsuite', [['name', name], ['tests', 1], ['failures', counts.failures], ['errors', counts.errors], ['skipped', 0]], [testcase])
}
