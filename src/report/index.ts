/** Renderers of validation reports: text, JSON, SARIF 2.1.0 and GitHub workflow commands. */
export {renderReport, reportFormats, type ReportFormat, type RenderOptions} from './render.js'
export {renderText, diagnosticLine, pointerText, type TextOptions} from './text.js'
export {renderJson, reportDocument, type ReportDocument} from './json.js'
export {renderSarif, type SarifOptions} from './sarif.js'
export {renderGithub, escapeData, escapeProperty, type GithubOptions} from './github.js'
export {colorEnabled, type ColorContext} from './color.js'
export {countProblems, summaryLine, type ProblemCounts} from './summary.js'
export {describeCode} from './descriptions.js'
