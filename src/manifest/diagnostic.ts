import type {Level} from './levels.js'

/** How bad a diagnostic is; only `error` makes a manifest invalid. */
export type Severity = 'error' | 'warning' | 'info'

/**
 * Every diagnostic code. `schema:<keyword>` codes come from Ajv keywords and are
 * typed as a template literal; everything else is listed here and nowhere else.
 */
export const diagnosticCodes = [
  // the manifest format's own ids
  'unsupported-manifest-version',
  'invalid-plugin-id',
  'invalid-version',
  'no-entrypoints',
  'entrypoint-outside-version-directory',
  'invalid-entrypoint-runtime',
  'invalid-icon',
  'icon-declared-not-present',
  'invalid-permission',
  'unknown-permission',
  'invalid-language',
  'invalid-compatibility',
  'invalid-dependency',
  'publication-metadata-missing',
  'generated-field-authored',
  'entrypoint-layout-invalid',
  // the toolchain's, for what the manifest format requires but names no id for
  'malformed',
  'invalid-name',
  'invalid-publisher',
  'invalid-file-digest',
  'invalid-signature',
  'file-missing',
  'file-size-mismatch',
  'file-digest-mismatch',
  'undeclared-file',
  'no-file-digests',
  'entrypoint-not-packed',
  'languages-recomputed',
  'id-mismatch',
  'version-mismatch',
  'entrypoint-missing',
  'incompatible',
  // an artifact the strict archive reader refuses (its ArchiveError code, reported as a diagnostic)
  'unsafe-entry',
  'limit-exceeded',
  'archive-malformed',
  'archive-unsupported',
  'manifest-missing',
  // a package shipping a private key, an environment file or a credential
  'secret-detected',
  // a source folder pack would refuse for one of its entries (its limits are limit-exceeded)
  'source-entry-rejected',
  // pack's own warnings
  'source-looks-like-debug-build',
  'large-file',
  'package-near-limit',
] as const

export type DiagnosticCode = (typeof diagnosticCodes)[number] | `schema:${string}`

/** One problem found in a manifest. */
export interface Diagnostic {
  code: DiagnosticCode
  severity: Severity
  /** A plain sentence, no colour, saying what is wrong and what to do. */
  message: string
  /** RFC 6901 pointer into manifest.json: `""` for the root, `null` when none applies (a problem in another file). */
  pointer: string | null
  /**
   * The package file the problem is in when that is not manifest.json (a package path, forward slashes: a
   * secret in `config/app.js`); `line` and `column` are then positions in that file.
   */
  path?: string
  /** 1-based line of the offending value (the parent object for a missing property); `null` when the file did not parse or the line is unknown. */
  line: number | null
  /** 1-based column, as `line`. */
  column: number | null
  /** The level whose rules demand this, when it is above development. */
  requiredBy?: Level
}
