import type {Diagnostic} from '../../src/manifest/diagnostic.js'
import type {ValidationReport} from '../../src/manifest/report.js'

/** Where the sample reports' code pages are published (a repository's docs/codes/ at a tag). */
export const samplePages = 'https://github.com/example/svc-plugin/blob/v1.2.3/docs/codes/'

/** The working directory the sample reports' files live under. */
export const sampleCwd = '/work/plugins'

/** A report built by hand with given problems (the renderers never look past the report). */
export function sampleReport(problems: Diagnostic[], overrides: Partial<ValidationReport> = {}): ValidationReport {
  return {
    valid: !problems.some((problem) => problem.severity === 'error'),
    pluginId: 'com.example.weather-station',
    version: '1.4.2',
    level: 'development',
    file: `${sampleCwd}/weather/manifest.json`,
    subject: {kind: 'manifest', path: `${sampleCwd}/weather/manifest.json`},
    problems,
    ...overrides,
  }
}

/** Three problems of three severities: a root pointer with requiredBy, an error, a warning. */
export const mixedProblems: Diagnostic[] = [
  {
    code: 'publication-metadata-missing',
    severity: 'error',
    message: 'The manifest has no "license"; the store requires one.',
    pointer: '',
    line: 1,
    column: 1,
    requiredBy: 'publication',
  },
  {code: 'invalid-plugin-id', severity: 'error', message: 'The id "Com.Example" is not a reverse-domain id.', pointer: '/id', line: 3, column: 9},
  {code: 'unknown-permission', severity: 'warning', message: 'The permission "host:coffee" is not known.', pointer: '/permissions/1', line: 12, column: 37},
  {code: 'schema:type', severity: 'info', message: 'Just so you know.', pointer: null, line: null, column: null},
]
