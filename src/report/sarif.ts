import type {Diagnostic, DiagnosticCode, Severity} from '../manifest/diagnostic.js'
import type {ValidationReport} from '../manifest/report.js'
import {describeCode} from './descriptions.js'
import {sarifUri} from './location.js'

/** Options of the SARIF renderer. */
export interface SarifOptions {
  /** The version of svc-plugin, recorded as the driver version. */
  toolVersion: string
  /** Artifact URIs are made relative to this directory; default `process.cwd()`. */
  cwd?: string
}

const sarifSchemaUri = 'https://json.schemastore.org/sarif-2.1.0.json'
const levels: Record<Severity, 'error' | 'warning' | 'note'> = {error: 'error', warning: 'warning', info: 'note'}

/**
 * A report as a SARIF 2.1.0 log with one run: the driver `svc-plugin` lists a rule for every code
 * that occurs (id = code), and each diagnostic becomes a result whose location is the manifest
 * file (line and column when known) and whose JSON pointer is in `properties.pointer` and in a
 * logical location. Returns indented JSON text, newline-terminated.
 */
export function renderSarif(report: ValidationReport, options: SarifOptions): string {
  const uri = sarifUri(report.file, options.cwd ?? process.cwd())
  const codes: DiagnosticCode[] = []
  for (const problem of report.problems) if (!codes.includes(problem.code)) codes.push(problem.code)
  const log = {
    $schema: sarifSchemaUri,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'svc-plugin',
            version: options.toolVersion,
            rules: codes.map((code) => ({id: code, shortDescription: {text: describeCode(code)}})),
          },
        },
        columnKind: 'utf16CodeUnits',
        results: report.problems.map((problem) => result(problem, codes.indexOf(problem.code), uri)),
      },
    ],
  }
  return `${JSON.stringify(log, null, 2)}\n`
}

function result(problem: Diagnostic, ruleIndex: number, uri: string): Record<string, unknown> {
  const physicalLocation: Record<string, unknown> = {artifactLocation: {uri}}
  if (problem.line !== null) {
    physicalLocation.region = problem.column === null ? {startLine: problem.line} : {startLine: problem.line, startColumn: problem.column}
  }
  const location: Record<string, unknown> = {physicalLocation}
  if (problem.pointer !== null) location.logicalLocations = [{fullyQualifiedName: problem.pointer, kind: 'value'}]
  const properties: Record<string, unknown> = {pointer: problem.pointer}
  if (problem.requiredBy !== undefined) properties.requiredBy = problem.requiredBy
  return {
    ruleId: problem.code,
    ruleIndex,
    level: levels[problem.severity],
    message: {text: problem.message},
    locations: [location],
    properties,
  }
}
