import type {Diagnostic, Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectResult, type ValidationReport} from '../manifest/report.js'
import {codeDocumentation, codePageMarkdown, codePageText} from './descriptions.js'
import {codeHelpUrl} from './help.js'
import {directoryUrl, fileUrl, placedMessage, placeOfProblem, rootRelativePath, uriReference, type ProblemPlace} from './location.js'
import {jsonText} from './json-text.js'
import {tooManyWarnings, warningLimit, warningLimitMessage} from './warning-limit.js'

/** Options of the SARIF renderer. */
export interface SarifOptions {
  /** The version of svc-plugin, recorded as the driver version. */
  toolVersion: string
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /** The repository root: artifact URIs are relative to it, under the base id `%SRCROOT%`; default `cwd`. */
  root?: string
  /** Where the code pages are published (`codePagesBase`); null or absent: each rule carries its page's text. */
  codePages?: string | null
  /** The most warnings the run allows (`--max-warnings`); absent or negative: no limit. */
  maxWarnings?: number
}

const sarifSchemaUri = 'https://json.schemastore.org/sarif-2.1.0.json'
/** The base id every relative URI hangs from; code scanning reads it as the repository root. */
const rootBaseId = '%SRCROOT%'
const levels: Record<Severity, 'error' | 'warning' | 'note'> = {error: 'error', warning: 'warning', info: 'note'}

/**
 * Subjects as a SARIF 2.1.0 log with one run. The driver `svc-plugin` lists a rule for every code that
 * occurs (id = code, with descriptions and help: a link to the code's page where one is published, else the
 * page's text in `help.markdown` and `help.text`). Each diagnostic becomes a result located in the file it
 * is in (the manifest, or another file of the package such as the one holding a secret) by a URI relative to
 * the repository root (base id `%SRCROOT%`), with line and column when known; a diagnostic inside an artifact
 * is located at the artifact file, and the path inside it is named in the message. A subject that could not
 * be read becomes a tool execution notification, and the invocation is then `executionSuccessful: false`;
 * warnings over `maxWarnings` are an error notification `too-many-warnings`. Returns indented JSON text,
 * newline-terminated.
 */
export function renderSarif(subjects: readonly SubjectResult[], options: SarifOptions): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const pages = options.codePages ?? null
  const reports = subjects.filter((subject): subject is ValidationReport => !isSubjectFailure(subject))
  const failures = subjects.filter(isSubjectFailure)
  const codes: string[] = []
  for (const report of reports) for (const problem of report.problems) if (!codes.includes(problem.code)) codes.push(problem.code)
  const location = (file: string): Record<string, unknown> => {
    const relative = rootRelativePath(file, cwd, root)
    return relative === null ? {uri: fileUrl(file, cwd)} : {uri: uriReference(relative), uriBaseId: rootBaseId}
  }
  const notifications = failures.map((failure) => notification(failure.code, failure.message, location(failure.path)))
  const limit = warningLimit(subjects, options.maxWarnings)
  if (limit?.exceeded === true) notifications.push(notification(tooManyWarnings, warningLimitMessage(limit), null))
  const log = {
    $schema: sarifSchemaUri,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'svc-plugin',
            version: options.toolVersion,
            ...(pages === null ? {} : {informationUri: codeHelpUrl('README', pages)}),
            rules: codes.map((code) => rule(code, pages)),
          },
        },
        invocations: [{executionSuccessful: failures.length === 0, toolExecutionNotifications: notifications}],
        originalUriBaseIds: {[rootBaseId]: {uri: directoryUrl(root)}},
        columnKind: 'utf16CodeUnits',
        results: reports.flatMap((report) => report.problems.map((problem) => result(problem, codes.indexOf(problem.code), placeOfProblem(report, problem), location))),
      },
    ],
  }
  return jsonText(log)
}

/** A rule: the code's descriptions, and its page as a link where one is published, else as text. */
function rule(code: string, pages: string | null): Record<string, unknown> {
  const documentation = codeDocumentation(code)
  const described = {id: code, shortDescription: {text: documentation.summary}, fullDescription: {text: `${documentation.summary} ${documentation.fix}`}}
  if (pages === null) return {...described, help: {text: codePageText(code), markdown: codePageMarkdown(code)}}
  const helpUri = codeHelpUrl(code, pages)
  return {
    ...described,
    help: {text: `${documentation.fix} See ${helpUri}`, markdown: `${documentation.summary}\n\n**Example:** ${documentation.example}\n\n**Fix:** ${documentation.fix}\n\n[More about ${code}](${helpUri})`},
    helpUri,
  }
}

function notification(code: string, message: string, artifactLocation: Record<string, unknown> | null): Record<string, unknown> {
  return {
    level: 'error',
    message: {text: message},
    descriptor: {id: code},
    ...(artifactLocation === null ? {} : {locations: [{physicalLocation: {artifactLocation}}]}),
  }
}

function result(problem: Diagnostic, ruleIndex: number, place: ProblemPlace, location: (file: string) => Record<string, unknown>): Record<string, unknown> {
  const physicalLocation: Record<string, unknown> = {artifactLocation: location(place.file)}
  if (place.line !== null) physicalLocation.region = place.column === null ? {startLine: place.line} : {startLine: place.line, startColumn: place.column}
  const found: Record<string, unknown> = {physicalLocation}
  if (problem.pointer !== null) found.logicalLocations = [{fullyQualifiedName: problem.pointer, kind: 'value'}]
  const properties: Record<string, unknown> = {pointer: problem.pointer}
  if (problem.requiredBy !== undefined) properties.requiredBy = problem.requiredBy
  if (place.inner !== null) {
    properties.innerPath = place.inner
    if (place.innerLine !== null) properties.innerLine = place.innerLine
  }
  return {
    ruleId: problem.code,
    ruleIndex,
    level: levels[problem.severity],
    message: {text: placedMessage(place, problem.message)},
    locations: [found],
    properties,
  }
}
