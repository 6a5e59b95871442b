/**
 * The fuzz runner: for a seed and a number of cases or a time budget, generates case after case of a
 * family, runs each through the family's targets, and returns how many cases ran and every finding. Case `i` of a family is
 * generated from a seed derived from the run's seed, the family and `i` alone, so any case can be
 * regenerated on its own (`runCase`), and a run can resume after case `i`.
 */
import {createHash} from 'node:crypto'
import {mkdir} from 'node:fs/promises'
import path from 'node:path'
import {families, type Family, type FamilyName, type FuzzCase} from './families.js'
import {crashFinding, type Finding, type TargetFinding} from './oracle.js'

/** The default per-call timeout: a call that takes longer is a hang. */
export const defaultTimeoutMs = 5000

/** Options of a run. */
export interface RunOptions {
  seed: number
  /**
   * How many cases of each family to generate: the sample in `npm test` runs the same cases on every run,
   * however busy the machine is. Without it, the time budget decides.
   */
  cases?: number
  /** Time budget of the case loop, per family, in seconds (preparing the seeds is not counted): `npm run fuzz`. */
  seconds?: number
  /** Per library call; default {@link defaultTimeoutMs}. */
  timeoutMs?: number
  /** The first case index (default 0): a resumed run starts after the case it stopped at. */
  firstCase?: number
  /**
   * Generate but do not run cases with larger inputs (the sample in `npm test` leaves out the documents of
   * several MiB, which take seconds each; `npm run fuzz` runs everything).
   */
  maxInputBytes?: number
  /** Called before each case runs (the script records which case is running, for a crash or a hang). */
  onCase?: (family: FamilyName, index: number, fuzzCase: FuzzCase) => void | Promise<void>
  /** Called with each case's findings as soon as it has run. */
  onCaseDone?: (family: FamilyName, index: number, findings: readonly Finding[]) => void | Promise<void>
}

/** What a run did. */
export interface FuzzResult {
  /** Cases run, by family. */
  iterations: Partial<Record<FamilyName, number>>
  findings: Finding[]
}

/** The seed of case `index` of `family` in the run seeded `seed`, and whether it is generated without bias. */
export function caseSeedOf(seed: number, family: FamilyName, index: number): {caseSeed: number; unbiased: boolean} {
  const hash = createHash('sha256').update(`${seed}:${family}:${index}`).digest()
  return {caseSeed: hash.readInt32LE(0), unbiased: (hash[4]! & 1) === 1}
}

/** Prepares the seeds of `names` under `work`, once per seeds key. */
export async function prepareSeeds(names: readonly FamilyName[], work: string): Promise<Map<string, unknown>> {
  const prepared = new Map<string, unknown>()
  for (const name of names) {
    const family = families[name]
    if (!prepared.has(family.seedsKey)) {
      const dir = path.join(work, `seeds-${family.seedsKey}`)
      await mkdir(dir, {recursive: true})
      prepared.set(family.seedsKey, await family.prepare(dir))
    }
  }
  return prepared
}

/** Generates and runs one case; a failure of the harness itself is a finding too, so a run never stops early. */
export async function runCase(
  family: Family,
  seeds: unknown,
  work: string,
  seed: number,
  index: number,
  options: Pick<RunOptions, 'timeoutMs' | 'onCase' | 'maxInputBytes'> = {},
): Promise<{fuzzCase: FuzzCase | null; skipped: boolean; findings: Finding[]}> {
  const {caseSeed, unbiased} = caseSeedOf(seed, family.name, index)
  let fuzzCase: FuzzCase | null = null
  let found: TargetFinding[]
  try {
    fuzzCase = family.generate(seeds, caseSeed, unbiased)
    if (fuzzCase.input.length > (options.maxInputBytes ?? Number.POSITIVE_INFINITY)) return {fuzzCase, skipped: true, findings: []}
    await options.onCase?.(family.name, index, fuzzCase)
    found = await family.run(seeds, fuzzCase, {work: path.join(work, `cases-${family.name}`), timeoutMs: options.timeoutMs ?? defaultTimeoutMs})
  } catch (error) {
    found = [crashFinding(fuzzCase === null ? 'generating the case' : 'the harness', error)]
  }
  const findings = found.map((finding) => ({
    ...finding,
    family: family.name,
    seed,
    caseIndex: index,
    caseLabel: fuzzCase?.label ?? '(not generated)',
    input: fuzzCase?.input ?? new Uint8Array(),
    inputName: fuzzCase?.inputName ?? 'input.bin',
  }))
  return {fuzzCase, skipped: false, findings}
}

/** Runs cases of one family: its number of cases, or until its time budget is spent. */
export async function runFamily(name: FamilyName, seeds: unknown, work: string, options: RunOptions): Promise<{iterations: number; skipped: number; findings: Finding[]}> {
  const family = families[name]
  if (options.cases === undefined && options.seconds === undefined) throw new Error('a fuzz run needs a number of cases or a time budget')
  const deadline = options.seconds === undefined ? Number.POSITIVE_INFINITY : performance.now() + options.seconds * 1000
  const first = options.firstCase ?? 0
  const last = first + (options.cases ?? Number.POSITIVE_INFINITY)
  const findings: Finding[] = []
  let index = first
  let skipped = 0
  while (index < last && performance.now() < deadline) {
    const done = await runCase(family, seeds, work, options.seed, index, options)
    if (done.skipped) skipped++
    await options.onCaseDone?.(name, index, done.findings)
    findings.push(...done.findings)
    index++
  }
  return {iterations: index - first - skipped, skipped, findings}
}

/** Prepares and runs every family in `names` (`options.cases` or `options.seconds` each), one after another. */
export async function runFuzz(names: readonly FamilyName[], work: string, options: RunOptions): Promise<FuzzResult> {
  const prepared = await prepareSeeds(names, work)
  const result: FuzzResult = {iterations: {}, findings: []}
  for (const name of names) {
    const run = await runFamily(name, prepared.get(families[name].seedsKey), work, options)
    result.iterations[name] = run.iterations
    result.findings.push(...run.findings)
  }
  return result
}

/** Findings grouped by signature, in order of first appearance: each group is one defect. */
export function distinctFindings(findings: readonly Finding[]): Array<{first: Finding; count: number; targets: string[]}> {
  const groups = new Map<string, {first: Finding; count: number; targets: Set<string>}>()
  for (const finding of findings) {
    const group = groups.get(finding.signature)
    if (group === undefined) groups.set(finding.signature, {first: finding, count: 1, targets: new Set([finding.target])})
    else {
      group.count++
      group.targets.add(finding.target)
    }
  }
  return [...groups.values()].map(({first, count, targets}) => ({first, count, targets: [...targets]}))
}

/** One line per finding with what reproduces it, for an assertion message. */
export function describeFinding(finding: Finding): string {
  return `${finding.signature}: ${finding.message} [case ${finding.family}:${finding.caseIndex} of seed ${finding.seed}: ${finding.caseLabel.slice(0, 300)}]`
}
