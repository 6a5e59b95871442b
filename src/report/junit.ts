import type {Diagnostic} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectFailure, type SubjectResult, type ValidationReport} from '../manifest/report.js'
import {diagnosticLine, pointerText} from './text.js'
import {plainText} from './text-lines.js'
import {displayPath, placeOfProblem, problemFile, subjectFile} from './location.js'
import {tooManyWarnings, warningLimit, warningLimitMessage, type WarningLimit} from './warning-limit.js'
import {plural} from '../quantities.js'
import {element, xmlDocument, xmlText, type XmlElement} from './xml.js'

/** Options of the JUnit renderer. */
export interface JunitOptions {
  /** Paths are shown relative to this directory; default `process.cwd()`. */
  cwd?: string
  /** The most warnings the run allows (`--max-warnings`); absent or negative: no limit. */
  maxWarnings?: number
}

/** A suite's test cases and how many of them failed or erred. */
interface Suite {
  element: XmlElement
  tests: number
  failures: number
  errors: number
}

/**
 * Subjects as JUnit XML, the report format most CI systems read: one `<testsuite>` per subject, named by
 * the subject's path (so two folders of one plugin id are two suites), holding one `<testcase>` per
 * problem — an error is that test case's one `<failure>` (type = code), a warning or a note passes with
 * its line in `<system-out>` — or, for a subject without problems, one passing test case for the level it
 * was judged at. A subject that could not be read is a test case with an `<error>`. With a warning limit,
 * one more suite holds the test case `too-many-warnings`. Built as elements (xml.ts), which escape every
 * value.
 */
export function renderJunit(subjects: readonly SubjectResult[], options: JunitOptions = {}): string {
  const cwd = options.cwd ?? process.cwd()
  const suites = subjects.map((subject) => (isSubjectFailure(subject) ? failureSuite(subject) : reportSuite(subject, cwd)))
  const limit = warningLimit(subjects, options.maxWarnings)
  if (limit !== null) suites.push(limitSuite(limit))
  const total = (key: 'tests' | 'failures' | 'errors'): number => suites.reduce((sum, suite) => sum + suite[key], 0)
  const attributes: XmlElement['attributes'] = [['name', 'svc-plugin validate'], ['tests', total('tests')], ['failures', total('failures')], ['errors', total('errors')]]
  return xmlDocument(element('testsuites', attributes, suites.map((suite) => suite.element)))
}

function reportSuite(report: ValidationReport, cwd: string): Suite {
  const name = displayPath(report.subject.path, cwd)
  const properties = element('properties', [], [
    element('property', [['name', 'id'], ['value', report.pluginId ?? '']]),
    element('property', [['name', 'version'], ['value', report.version ?? '']]),
    element('property', [['name', 'level'], ['value', report.level]]),
  ])
  const cases = report.problems.map((problem) => problemCase(report, problem, name, cwd))
  if (cases.length === 0) cases.push(element('testcase', [['classname', name], ['name', `${report.level} level`], ['file', displayPath(subjectFile(report), cwd)]]))
  const failures = report.problems.filter((problem) => problem.severity === 'error').length
  return suite(name, [properties, ...cases], {tests: cases.length, failures, errors: 0})
}

/** One problem as a test case: its code and where it is, failing for an error. */
function problemCase(report: ValidationReport, problem: Diagnostic, suiteName: string, cwd: string): XmlElement {
  const place = placeOfProblem(report, problem)
  const file = displayPath(place.file, cwd)
  const position = problem.line === null ? '' : `:${problem.line}${problem.column === null ? '' : `:${problem.column}`}`
  const where = problem.path !== undefined ? ` in ${problem.path}${position}` : problem.pointer !== null ? ` at ${pointerText(problem.pointer)}` : ''
  const attributes: Array<readonly [string, string | number]> = [['classname', suiteName], ['name', `${problem.code}${where}`], ['file', file]]
  if (place.line !== null) attributes.push(['line', place.line])
  const text = [plainText(diagnosticLine(problem)), ...(problem.line === null ? [] : [`  at ${displayPath(problemFile(report, problem), cwd)}${position}`])]
  const body = problem.severity === 'error' ? element('failure', [['type', problem.code], ['message', problem.message]], [xmlText(...text)]) : element('system-out', [], [xmlText(...text)])
  return element('testcase', attributes, [body])
}

/** A subject that could not be read, its suite named by the path or pattern as given. */
function failureSuite(failure: SubjectFailure): Suite {
  const name = failure.path
  const error = element('error', [['type', failure.code], ['message', failure.message]], [xmlText(failure.message)])
  return suite(name, [element('testcase', [['classname', name], ['name', 'read'], ['file', name]], [error])], {tests: 1, failures: 0, errors: 1})
}

function limitSuite(limit: WarningLimit): Suite {
  const name = `at most ${plural(limit.limit, 'warning')} (--max-warnings)`
  const failure = limit.exceeded ? [element('failure', [['type', tooManyWarnings], ['message', warningLimitMessage(limit)]], [xmlText(warningLimitMessage(limit))])] : []
  return suite('svc-plugin validate', [element('testcase', [['classname', 'svc-plugin validate'], ['name', name]], failure)], {tests: 1, failures: limit.exceeded ? 1 : 0, errors: 0})
}

function suite(name: string, children: XmlElement[], counts: {tests: number; failures: number; errors: number}): Suite {
  const attributes: XmlElement['attributes'] = [['name', name], ['tests', counts.tests], ['failures', counts.failures], ['errors', counts.errors], ['skipped', 0]]
  return {element: element('testsuite', attributes, children), ...counts}
}
