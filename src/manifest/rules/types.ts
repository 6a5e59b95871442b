import type {PackageContent} from '../content.js'
import type {DiagnosticCode, Severity} from '../diagnostic.js'
import type {Level} from '../levels.js'
import type {SubjectKind} from '../report.js'
import type {HostContext} from '../host.js'

/** What a rule reports; the engine adds the line and column of `pointer`, unless the finding is `at` another file. */
export interface Finding {
  code: DiagnosticCode
  /** The offending value (or, for something missing, the object that should hold it). */
  pointer: string
  message: string
  /** Default `error`. */
  severity?: Severity
  requiredBy?: Level
  /**
   * Where the problem is when it is in another file of the package than manifest.json: its package path and
   * position there, which replace the pointer's position (the diagnostic's pointer is then null).
   */
  at?: {path: string; line: number | null; column: number | null}
}

/** What every rule is handed (the elgatosf/cli rule-collector shape). */
export interface RuleContext {
  /** The parsed top-level object; nothing in it has been checked by code yet. */
  readonly manifest: Readonly<Record<string, unknown>>
  readonly level: Level
  readonly subjectKind: SubjectKind
  /** The package's files, when the caller has them (package level and up). */
  readonly content: PackageContent | undefined
  /** The host the manifest is judged for, when the caller names one. */
  readonly host: HostContext | undefined
  /**
   * Pointers already rejected, by the schema or by an earlier rule's error: a rule never judges
   * such a value again, so one mistake gives one diagnostic.
   */
  readonly rejected: ReadonlySet<string>
  emit(finding: Finding): void
}

/**
 * Schema errors a rule takes over: an Ajv error with one of `keywords` at an instance path matching
 * `pointer` is dropped when the rule reported an error at that path or below it, so that the
 * manifest format's own code replaces the generic `schema:<keyword>`.
 */
export interface SchemaClaim {
  keywords: readonly string[]
  pointer: RegExp
}

/** One rule: named after what it claims, checking one concern. */
export interface Rule {
  /** The claim, as a file name: `version-is-semver`. */
  readonly name: string
  /** Codes it can report. */
  readonly codes: readonly DiagnosticCode[]
  /** The lowest level it runs at. */
  readonly level: Level
  readonly claims?: readonly SchemaClaim[]
  check(context: RuleContext): void
}
