/**
 * What the fuzzer accepts from a library call: a typed result or a typed refusal (a `SvcPluginError`),
 * never another exception, never a call that takes longer than the per-call timeout, and never a result
 * of the wrong shape. Everything else is a {@link Finding}.
 */
import {isSvcPluginError, type SvcPluginError} from '../../src/errors.js'
import {diagnosticCodes, type Severity} from '../../src/manifest/diagnostic.js'
import {levels} from '../../src/manifest/levels.js'
import type {ValidationReport} from '../../src/manifest/report.js'
import {verdictOf, verifyCodes, type VerificationResult} from '../../src/signing/result.js'
import type {UploadReport} from '../../src/store/report.js'

/**
 * The kinds of finding:
 * - `crash`: an exception that is not a `SvcPluginError` (or a process that died);
 * - `hang`: a call that did not settle within the per-call timeout;
 * - `bad-result`: a result of the wrong shape (a report whose problems lack a code, SARIF that is not JSON);
 * - `unsigned-mutation-verifies`: a mutant of the signed artifact verifies Trusted although bytes the
 *   signature does not cover were changed or added;
 * - `data-root-dirty`: a refused install left a version directory, `current.json` or staging leftovers.
 */
export type FindingKind = 'crash' | 'hang' | 'bad-result' | 'unsigned-mutation-verifies' | 'data-root-dirty'

/** One oracle violation of one case, as a target reports it (the runner adds the case). */
export interface TargetFinding {
  /** The library call, with the options that matter: `validateManifest(package, content)`. */
  target: string
  kind: FindingKind
  /** What happened, in one paragraph. */
  message: string
  /** Findings with the same signature are one defect: the kind, and the place or check that failed. */
  signature: string
  /** The stack, for a crash. */
  stack?: string
}

/** A finding with the case that produced it: enough to reproduce it. */
export interface Finding extends TargetFinding {
  family: string
  /** The run's seed and the case's index in its family: `--seed <seed> --replay <family>:<caseIndex>` regenerates it. */
  seed: number
  caseIndex: number
  /** How the case was made (seed file and mutations). */
  caseLabel: string
  /** The case's input bytes and the file name they are saved under. */
  input: Uint8Array
  inputName: string
}

/** The outcome of one call under the oracle. */
export type Attempt<T> = {outcome: 'result'; value: T} | {outcome: 'refused'; error: SvcPluginError} | {outcome: 'finding'; finding: TargetFinding}

/**
 * Runs one library call: its result, its typed refusal, or a finding (any other exception, or no
 * answer within `timeoutMs`). A call that never settles keeps running in the background; its eventual
 * outcome is ignored.
 */
export async function attempt<T>(target: string, call: () => T | Promise<T>, timeoutMs: number): Promise<Attempt<T>> {
  // One turn of the event loop between calls: a watchdog's timer runs even when every call is synchronous.
  await new Promise((resolve) => setImmediate(resolve))
  let timer: NodeJS.Timeout | undefined
  const started = performance.now()
  try {
    const pending = Promise.resolve().then(call)
    pending.catch(() => undefined)
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    })
    const settled = await Promise.race([pending.then((value) => ({value})), timedOut])
    if (settled === 'timeout') return {outcome: 'finding', finding: hangFinding(target, timeoutMs)}
    // A synchronous call cannot be interrupted: one that blocked past the timeout is a hang all the same.
    if (performance.now() - started > timeoutMs) return {outcome: 'finding', finding: hangFinding(target, timeoutMs)}
    return {outcome: 'result', value: settled.value}
  } catch (error) {
    if (isSvcPluginError(error)) return {outcome: 'refused', error}
    return {outcome: 'finding', finding: crashFinding(target, error)}
  } finally {
    clearTimeout(timer)
  }
}

function hangFinding(target: string, timeoutMs: number): TargetFinding {
  return {target, kind: 'hang', message: `${target} did not settle within ${timeoutMs} ms.`, signature: `hang ${target}`}
}

/** A finding for an exception that is not one of ours. */
export function crashFinding(target: string, error: unknown): TargetFinding {
  const name = error instanceof Error ? error.constructor.name : typeof error
  const message = error instanceof Error ? error.message : String(error)
  const stack = error instanceof Error ? error.stack : undefined
  return {
    target,
    kind: 'crash',
    message: `${target} threw ${name}: ${message}`,
    signature: `crash ${name} at ${throwSite(stack) ?? normalize(message)}`,
    ...(stack === undefined ? {} : {stack}),
  }
}

/** The first stack frame as `function (file)`, the file from `src/` or `node_modules/` on: the same throw site is one defect. */
function throwSite(stack: string | undefined): string | null {
  const frame = stack?.split('\n').find((line) => line.trimStart().startsWith('at '))
  const match = frame?.trim().match(/^at (?:(.+?) \()?(.+?)(?::\d+:\d+)?\)?$/)
  if (!match) return null
  const file = match[2]!.replace(/^.*?\/(?=(?:src|node_modules)\/)/, '')
  return match[1] === undefined ? file : `${match[1]} (${file})`
}

function normalize(message: string): string {
  return message.replace(/\d+/g, 'N').replace(/"[^"]*"|'[^']*'/g, 'S').slice(0, 120)
}

/** A finding for a result of the wrong shape; `check` names what failed and is part of the signature. */
export function badResult(target: string, check: string, detail: string): TargetFinding {
  return {target, kind: 'bad-result', message: `${target}: ${check} (${detail})`, signature: `bad-result ${target.replace(/\(.*\)$/, '')} ${check}`}
}

const severities: ReadonlySet<string> = new Set<Severity>(['error', 'warning', 'info'])
const knownCodes: ReadonlySet<string> = new Set(diagnosticCodes)
const isPosition = (value: unknown): boolean => value === null || (Number.isSafeInteger(value) && (value as number) >= 1)

/** Problems with a validation report's shape: every diagnostic typed, `valid` agreeing with the errors. */
export function checkReport(target: string, report: ValidationReport): TargetFinding[] {
  const findings: TargetFinding[] = []
  if (typeof report !== 'object' || report === null || !Array.isArray(report.problems)) return [badResult(target, 'report is not an object with problems', String(report))]
  if (typeof report.valid !== 'boolean') findings.push(badResult(target, 'valid is not a boolean', String(report.valid)))
  if (!(levels as readonly string[]).includes(report.level)) findings.push(badResult(target, 'level is not a level', String(report.level)))
  for (const key of ['pluginId', 'version'] as const) {
    if (report[key] !== null && typeof report[key] !== 'string') findings.push(badResult(target, `${key} is neither a string nor null`, typeof report[key]))
  }
  for (const problem of report.problems) {
    const where = `problem ${JSON.stringify(problem?.code)}`
    if (typeof problem?.code !== 'string' || !(knownCodes.has(problem.code) || /^schema:[a-zA-Z]+$/.test(problem.code))) findings.push(badResult(target, 'a problem has no known code', where))
    if (!severities.has(problem?.severity)) findings.push(badResult(target, 'a problem has no severity', where))
    if (typeof problem?.message !== 'string' || problem.message === '') findings.push(badResult(target, 'a problem has no message', where))
    if (problem?.pointer !== null && typeof problem?.pointer !== 'string') findings.push(badResult(target, 'a pointer is neither a string nor null', where))
    if (typeof problem?.pointer === 'string' && problem.pointer !== '' && !problem.pointer.startsWith('/')) findings.push(badResult(target, 'a pointer is not an RFC 6901 pointer', `${where}: ${problem.pointer}`))
    if (!isPosition(problem?.line) || !isPosition(problem?.column)) findings.push(badResult(target, 'a line or column is not a positive integer or null', `${where}: ${problem?.line}:${problem?.column}`))
  }
  if (typeof report.valid === 'boolean' && report.valid === report.problems.some((problem) => problem?.severity === 'error')) {
    findings.push(badResult(target, 'valid disagrees with the errors', `valid ${report.valid}`))
  }
  return findings
}

const verdicts: ReadonlySet<string> = new Set(['Trusted', ...Object.values(verdictOf)])
const knownVerifyCodes: ReadonlySet<string> = new Set(verifyCodes)

/** Problems with a verification result's shape: a verdict, and the one deciding problem agreeing with it. */
export function checkVerification(target: string, result: VerificationResult): TargetFinding[] {
  if (typeof result !== 'object' || result === null || !Array.isArray(result.problems)) return [badResult(target, 'result is not an object with problems', String(result))]
  const findings: TargetFinding[] = []
  if (!verdicts.has(result.verdict)) findings.push(badResult(target, 'verdict is not a verdict', String(result.verdict)))
  if (result.valid !== (result.verdict === 'Trusted')) findings.push(badResult(target, 'valid disagrees with the verdict', `${result.valid} ${result.verdict}`))
  for (const problem of result.problems) {
    if (!knownVerifyCodes.has(problem?.code) || typeof problem?.message !== 'string') findings.push(badResult(target, 'a problem has no known code or no message', JSON.stringify(problem?.code)))
  }
  const [deciding] = result.problems
  if (result.verdict === 'Trusted' ? result.problems.length !== 0 : deciding === undefined || verdictOf[deciding.code] !== result.verdict) {
    findings.push(badResult(target, 'the deciding problem disagrees with the verdict', `${result.verdict} ${result.problems.map((problem) => problem?.code).join(',')}`))
  }
  return findings
}

/** Problems with an upload report's shape. */
export function checkUpload(target: string, report: UploadReport): TargetFinding[] {
  if (typeof report !== 'object' || report === null || !Array.isArray(report.problems)) return [badResult(target, 'report is not an object with problems', String(report))]
  const findings: TargetFinding[] = []
  if (!verdicts.has(report.verdict)) findings.push(badResult(target, 'verdict is not a verdict', String(report.verdict)))
  for (const problem of report.problems) {
    if (typeof problem?.code !== 'string' || !severities.has(problem?.severity) || typeof problem?.message !== 'string') {
      findings.push(badResult(target, 'a problem has no code, severity or message', JSON.stringify(problem?.code)))
    }
  }
  const refused = report.verdict !== 'Trusted' || report.problems.some((problem) => problem?.severity === 'error')
  if (report.accepted === refused) findings.push(badResult(target, 'accepted disagrees with the verdict and the errors', `${report.accepted} ${report.verdict}`))
  return findings
}
