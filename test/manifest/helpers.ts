import type {Diagnostic} from '../../src/manifest/diagnostic.js'
import type {ValidationReport} from '../../src/manifest/report.js'

/** A manifest valid at every level, with every publication field (a copy each call). */
export function completeManifest(): Record<string, any> {
  return {
    manifestVersion: 1,
    id: 'com.example.weather',
    name: 'Weather',
    version: '1.2.3',
    description: 'Shows the weather.',
    icon: 'assets/icon.png',
    publisher: {name: 'Example Labs', id: 'com.example', email: 'plugins@example.com', url: 'https://example.com'},
    license: 'MIT',
    repository: 'https://github.com/example/weather',
    homepage: 'https://example.com/weather',
    compatibility: {sdk: '>=2.0.0, <3.0.0', protocol: {minimum: 1, maximum: 3}, svc: '>=1.0.0'},
    entrypoints: {
      'linux-x64': {executable: 'runtimes/linux-x64/weather', arguments: ['--quiet']},
      'win-x64': {executable: 'runtimes/win-x64/Weather.exe'},
    },
    shutdown: {gracefulTimeoutSeconds: 15},
    health: {path: '/_svc/health', intervalSeconds: 30, timeoutSeconds: 2, unhealthyThreshold: 3},
    permissions: ['host:variables', 'net:outbound'],
    languages: ['en', 'de'],
  }
}

/** The smallest manifest valid at development level. */
export function minimalManifest(): Record<string, any> {
  return {manifestVersion: 1, id: 'com.example.weather', name: 'Weather', version: '1.2.3', entrypoints: {'win-x64': {executable: 'runtimes/win-x64/Weather.exe'}}}
}

/** The text a test validates: two-space indented, so each member starts its own line. */
export function manifestText(manifest: unknown): string {
  return `${JSON.stringify(manifest, null, 2)}\n`
}

/**
 * The 1-based line of the `occurrence`-th line containing `needle`, found by plain text search so that
 * the test does not trust the library's own position code.
 */
export function lineOf(text: string, needle: string, occurrence = 1): number {
  const lines = text.split('\n')
  let seen = 0
  for (let i = 0; i < lines.length; i++) {
    if ((lines[i] as string).includes(needle) && ++seen === occurrence) return i + 1
  }
  throw new Error(`${JSON.stringify(needle)} is not in the text`)
}

/** The fields tests compare, without the message wording. */
export function summary(problems: readonly Diagnostic[]): Array<Pick<Diagnostic, 'code' | 'severity' | 'pointer' | 'line'> & {requiredBy?: string}> {
  return problems.map(({code, severity, pointer, line, requiredBy}) => ({code, severity, pointer, line, ...(requiredBy === undefined ? {} : {requiredBy})}))
}

/** The errors of a report. */
export function errors(report: ValidationReport): Diagnostic[] {
  return report.problems.filter((problem) => problem.severity === 'error')
}
