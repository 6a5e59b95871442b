import type {PackageContent} from './content.js'
import type {HostContext} from './host.js'
import type {Diagnostic} from './diagnostic.js'
import type {JsonDocument, JsonProblem, ReadJsonResult} from '../json/strict-json.js'
import {levelIncludes} from './levels.js'
import type {Level} from './levels.js'
import {isWithin} from '../json/pointer.js'
import type {SubjectKind, ValidationReport} from './report.js'
import {rules} from './rules/index.js'
import type {Finding, Rule, SchemaClaim} from './rules/index.js'
import {hasMember, member, quote} from './rules/values.js'
import {schemaProblems} from './schema-problems.js'
import type {SchemaProblem} from './schema-problems.js'
import {manifestValidator} from './schema-validator.js'

/** The only manifest format there is (`manifestVersion` 1). */
export const supportedManifestVersion = 1

/** What `validateManifest` is told about its subject. */
export interface ValidateManifestOptions {
  /** Default `development`. */
  level?: Level
  /** The manifest's path as diagnostics name it; default `manifest.json`. */
  file?: string
  /** What the manifest came from; default `manifest`. Decides `generated-field-authored`. */
  subjectKind?: SubjectKind
  /** The subject as the caller named it (a directory, an artifact); default `file`. */
  subjectPath?: string
  /** The package's files. Without it the package-level content checks cannot run and are skipped. */
  content?: PackageContent
  /** The host the manifest is judged for (its entrypoint on disk, its compatibility). */
  host?: HostContext
  /**
   * Give each diagnostic its line and column (default true). Finding them builds a tree of the whole
   * document; a caller that reports by pointer alone (of a manifest it wrote itself) may skip it.
   */
  positions?: boolean
}

/**
 * Validates an already read document; `extraRules` run after the built-in ones (the installed-directory
 * identity check of `readManifest`). Shared by every entry point so that a manifest is parsed once.
 */
export function validateDocument(read: ReadJsonResult, options: ValidateManifestOptions = {}, extraRules: readonly Rule[] = []): ValidationReport {
  const level = options.level ?? 'development'
  const file = options.file ?? 'manifest.json'
  const subject = {kind: options.subjectKind ?? 'manifest', path: options.subjectPath ?? file}
  if (!read.ok) return report([malformedDiagnostic(read.problem)], null, {level, file, subject})
  const manifest = read.value
  const at: Locator = options.positions === false ? () => ({line: null, column: null}) : (pointer) => position(read, pointer)
  const problems = hasMember(manifest, 'manifestVersion') && member(manifest, 'manifestVersion') !== supportedManifestVersion
    ? [unsupportedVersion(read, at)]
    : judge(read, at, level, subject.kind, options.content, options.host, extraRules)
  return report(problems, manifest, {level, file, subject})
}

/** The one diagnostic of a text that is not strict JSON. */
export function malformedDiagnostic(problem: JsonProblem): Diagnostic {
  return {code: 'malformed', severity: 'error', ...problem}
}

/** `manifestVersion` other than 1 stops everything else: exactly one diagnostic. */
function unsupportedVersion(document: JsonDocument, at: Locator): Diagnostic {
  const declared = member(document.value, 'manifestVersion')
  return {
    code: 'unsupported-manifest-version',
    severity: 'error',
    message: `manifestVersion ${quote(declared)} is not supported: manifest format ${supportedManifestVersion} (the number ${supportedManifestVersion}) is the only one, so nothing else was checked.`,
    pointer: '/manifestVersion',
    ...at('/manifestVersion'),
  }
}

/**
 * The schema, then every rule of the level: a schema error a rule claims is dropped when
 * that rule reported the value itself; every other schema error marks its pointer rejected, so no
 * rule judges that value again; and a rule's error does the same for the rules after it.
 */
function judge(document: JsonDocument, at: Locator, level: Level, subjectKind: SubjectKind, content: PackageContent | undefined, host: HostContext | undefined, extraRules: readonly Rule[]): Diagnostic[] {
  const schema = schemaProblemsOf(document.value)
  if (schema === null) return [unjudgeable(at)]
  const active = [...rules, ...extraRules].filter((rule) => levelIncludes(level, rule.level))
  const claimsOf = (problem: SchemaProblem): Array<SchemaClaim & {rule: Rule}> =>
    active.flatMap((rule) => (rule.claims ?? []).filter((claim) => claim.keywords.includes(problem.keyword) && claim.pointer.test(problem.pointer)).map((claim) => ({...claim, rule})))

  // A missing property says nothing about the values that are there.
  const rejected = new Set(schema.filter((problem) => problem.keyword !== 'required' && claimsOf(problem).length === 0).map((problem) => problem.pointer))
  const findings: Array<{finding: Finding; rule: Rule}> = []
  for (const rule of active) {
    rule.check({
      manifest: document.value,
      level,
      subjectKind,
      content,
      host,
      rejected,
      emit(finding) {
        findings.push({finding, rule})
        if ((finding.severity ?? 'error') === 'error' && finding.at === undefined) rejected.add(finding.pointer)
      },
    })
  }

  const replaced = (problem: SchemaProblem): boolean =>
    claimsOf(problem).some(({rule}) =>
      findings.some((found) => found.rule === rule && (found.finding.severity ?? 'error') === 'error' && isWithin(found.finding.pointer, problem.pointer)),
    )
  const diagnostics: Diagnostic[] = onePerValue(schema.filter((problem) => !replaced(problem))).map((problem) => ({
    code: `schema:${problem.keyword}`,
    severity: 'error',
    message: problem.message,
    pointer: problem.pointer,
    ...at(problem.pointer),
  }))
  for (const {finding} of findings) {
    diagnostics.push({
      code: finding.code,
      severity: finding.severity ?? 'error',
      message: finding.message,
      ...(finding.at === undefined ? {pointer: finding.pointer, ...at(finding.pointer)} : {pointer: null, path: finding.at.path, line: finding.at.line, column: finding.at.column}),
      ...(finding.requiredBy === undefined ? {} : {requiredBy: finding.requiredBy}),
    })
  }
  return diagnostics
}

/**
 * The schema's problems with `manifest`, or null when the schema library threw instead of answering: a
 * hostile document must never turn into a crash, so a dependency's exception is caught here, once, for
 * every caller of the validator.
 */
function schemaProblemsOf(manifest: Record<string, unknown>): SchemaProblem[] | null {
  const validate = manifestValidator()
  try {
    validate(manifest)
  } catch {
    return null
  }
  return schemaProblems(validate.errors ?? [])
}

/** The diagnostic of a document the schema library could not judge. */
function unjudgeable(at: Locator): Diagnostic {
  return {
    code: 'malformed',
    severity: 'error',
    message: 'The manifest holds values the schema validator cannot judge (an object member named like a JavaScript built-in in a place where only plain values belong); fix the values the schema describes.',
    pointer: '',
    ...at(''),
  }
}

/**
 * At most one schema error per value: a value of the wrong type also fails the keywords for the right
 * type (`0.5` is not an integer and below the minimum), which is one mistake. Missing properties are
 * each their own mistake and all kept.
 */
function onePerValue(problems: readonly SchemaProblem[]): SchemaProblem[] {
  // Items of the wrong type also make `uniqueItems` compare values that were never meant to be there.
  const itemsWrong = (array: string): boolean => problems.some((problem) => problem.pointer !== array && isWithin(problem.pointer, array))
  const chosen = new Map<string, SchemaProblem>()
  for (const problem of problems) {
    if (problem.keyword === 'uniqueItems' && itemsWrong(problem.pointer)) continue
    if (problem.keyword === 'required') continue
    const existing = chosen.get(problem.pointer)
    if (existing === undefined || (problem.keyword === 'type' && existing.keyword !== 'type')) chosen.set(problem.pointer, problem)
  }
  return problems.filter((problem) => problem.keyword === 'required' || chosen.get(problem.pointer) === problem)
}

/** Where a diagnostic at a pointer is: its line and column, or nulls when positions were not asked for. */
type Locator = (pointer: string) => {line: number | null; column: number | null}

/** Line and column of the value at `pointer`, or of its closest existing ancestor. */
function position(document: JsonDocument, pointer: string): {line: number; column: number} {
  const {line, column} = document.locate(pointer) ?? document.locateNearest(pointer)
  return {line, column}
}

function report(
  problems: Diagnostic[],
  manifest: Record<string, unknown> | null,
  {level, file, subject}: Pick<ValidationReport, 'level' | 'file' | 'subject'>,
): ValidationReport {
  const id = member(manifest, 'id')
  const version = member(manifest, 'version')
  return {
    valid: !problems.some((problem) => problem.severity === 'error'),
    pluginId: typeof id === 'string' ? id : null,
    version: typeof version === 'string' ? version : null,
    level,
    file,
    subject,
    problems: sortDiagnostics(problems),
  }
}

/**
 * Diagnostics in report order: those of manifest.json first, then those of other files by path; within a
 * file by line, then column, then code; a file-level one first.
 */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const key = (value: number | null): number => value ?? 0
  return [...diagnostics].sort(
    (a, b) =>
      compareText(a.path ?? '', b.path ?? '') ||
      key(a.line) - key(b.line) ||
      key(a.column) - key(b.column) ||
      compareText(a.code, b.code) ||
      compareText(a.pointer ?? '', b.pointer ?? '') ||
      compareText(a.message, b.message),
  )
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
