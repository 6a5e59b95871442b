import type {Diagnostic} from '../manifest/diagnostic.js'
import type {Level} from '../manifest/levels.js'
import type {ValidationReport} from '../manifest/report.js'

/** The `--json` document of `validate` (plus the manifest file the positions refer to). */
export interface ReportDocument {
  valid: boolean
  pluginId: string | null
  version: string | null
  level: Level
  file: string
  problems: Diagnostic[]
}

/** The report reduced to the documented `--json` shape, keys in a fixed order. */
export function reportDocument(report: ValidationReport): ReportDocument {
  return {
    valid: report.valid,
    pluginId: report.pluginId,
    version: report.version,
    level: report.level,
    file: report.file,
    problems: report.problems.map(diagnosticDocument),
  }
}

/** The report as indented JSON text (`{ valid, pluginId, version, level, file, problems }`), newline-terminated. */
export function renderJson(report: ValidationReport): string {
  return `${JSON.stringify(reportDocument(report), null, 2)}\n`
}

function diagnosticDocument(problem: Diagnostic): Diagnostic {
  const {code, severity, message, pointer, line, column, requiredBy} = problem
  return requiredBy === undefined ? {code, severity, message, pointer, line, column} : {code, severity, message, pointer, line, column, requiredBy}
}
