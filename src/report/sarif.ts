import type {Diagnostic, Severity} from '../manifest/diagnostic.js'
import {isSubjectFailure, type SubjectFailure, type SubjectResult, type ValidationReport} from '../manifest/report.js'
import {codeDocumentation} from './descriptions.js'
import {codeHelpUrl} from './help.js'
import {directoryUrl, fileUrl, placeOf, rootRelativePath, uriReference} from './location.js'
import {jsonText} from './json-text.js'

/** Options of the SARIF renderer. */
export interface SarifOptions {
  /** The version of svc-plugin, recorded as the driver version and naming the help pages. */
  toolVersion: string
  /** Relative subject paths are resolved against this; default `process.cwd()`. */
  cwd?: string
  /** The repository root: artifact URIs are relative to it, under the base id `%SRCROOT%`; default `cwd`. */
  root?: string
}

const sarifSchemaUri = 'https://json.schemastore.org/sarif-2.1.0.json'
/** The base id every relative URI hangs from; code scanning reads it as the repository root. */
const rootBaseId = '%SRCROOT%'
const levels: Record<Severity, 'error' | 'warning' | 'note'> = {error: 'error', warning: 'warning', info: 'note'}

/**
 * Subjects as a SARIF 2.1.0 log with one run. The driver `svc-plugin` lists a rule for every code that
 * occurs (id = code, with descriptions, markdown help and a link to the code's page). Each diagnostic becomes
 * a result located in its file by a URI relative to the repository root (base id `%SRCROOT%`), with line and
 * column when known; a diagnostic inside an artifact is located at the artifact file, and the path inside it
 * is named in the message. A subject that could not be read becomes a tool execution notification, and the
 * invocation is then `executionSuccessful: false`. Returns indented JSON text, newline-terminated.
 */
export function renderSarif(subjects: readonly SubjectResult[], options: SarifOptions): string {
  const cwd = options.cwd ?? process.cwd()
  const root = options.root ?? cwd
  const reports = subjects.filter((subject): subject is ValidationReport => !isSubjectFailure(subject))
  const failures = subjects.filter(isSubjectFailure)
  const codes: string[] = []
  for (const report of reports) for (const problem of report.problems) if (!codes.includes(problem.code)) codes.push(problem.code)
  const location = (file: string): Record<string, unknown> => {
    const relative = rootRelativePath(file, cwd, root)
    return relative === null ? {uri: fileUrl(file, cwd)} : {uri: uriReference(relative), uriBaseId: rootBaseId}
  }
  const log = {
    $schema: sarifSchemaUri,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'svc-plugin',
            version: options.toolVersion,
            informationUri: codeHelpUrl('README', options.toolVersion),
            rules: codes.map((code) => rule(code, options.toolVersion)),
          },
        },
        invocations: [
          {
            executionSuccessful: failures.length === 0,
            toolExecutionNotifications: failures.map((failure) => notification(failure, location(failure.path))),
          },
        ],
        originalUriBaseIds: {[rootBaseId]: {uri: directoryUrl(root)}},
        columnKind: 'utf16CodeUnits',
        results: reports.flatMap((report) => {
          const place = placeOf(report)
          const artifactLocation = location(place.file)
          return report.problems.map((problem) => result(problem, codes.indexOf(problem.code), artifactLocation, place.inner))
        }),
      },
    ],
  }
  return jsonText(log)
}

function rule(code: string, toolVersion: string): Record<string, unknown> {
  const documentation = codeDocumentation(code)
  const helpUri = codeHelpUrl(code, toolVersion)
  return {
    id: code,
    shortDescription: {text: documentation.summary},
    fullDescription: {text: `${documentation.summary} ${documentation.fix}`},
    help: {
      text: `${documentation.fix} See ${helpUri}`,
      markdown: `${documentation.summary}\n\n**Example:** ${documentation.example}\n\n**Fix:** ${documentation.fix}\n\n[More about ${code}](${helpUri})`,
    },
    helpUri,
  }
}

function notification(failure: SubjectFailure, artifactLocation: Record<string, unknown>): Record<string, unknown> {
  return {
    level: 'error',
    message: {text: failure.message},
    descriptor: {id: failure.code},
    locations: [{physicalLocation: {artifactLocation}}],
  }
}

function result(problem: Diagnostic, ruleIndex: number, artifactLocation: Record<string, unknown>, inner: string | null): Record<string, unknown> {
  const physicalLocation: Record<string, unknown> = {artifactLocation}
  // A line inside an artifact's manifest is not a line of the artifact file: only the path inside is named.
  if (problem.line !== null && inner === null) {
    physicalLocation.region = problem.column === null ? {startLine: problem.line} : {startLine: problem.line, startColumn: problem.column}
  }
  const location: Record<string, unknown> = {physicalLocation}
  if (problem.pointer !== null) location.logicalLocations = [{fullyQualifiedName: problem.pointer, kind: 'value'}]
  const properties: Record<string, unknown> = {pointer: problem.pointer}
  if (problem.requiredBy !== undefined) properties.requiredBy = problem.requiredBy
  if (inner !== null) {
    properties.innerPath = inner
    if (problem.line !== null) properties.innerLine = problem.line
  }
  return {
    ruleId: problem.code,
    ruleIndex,
    level: levels[problem.severity],
    message: {text: inner === null ? problem.message : `${inner}${problem.line === null ? '' : `:${problem.line}`} (inside the artifact): ${problem.message}`},
    locations: [location],
    properties,
  }
}
