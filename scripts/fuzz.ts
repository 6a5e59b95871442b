/**
 * `npm run fuzz`: runs every fuzz target family (test/fuzz/) for its share of a time budget and reports
 * every finding with a reproducer. Each family runs in a child process watched from here, so that a case
 * that blocks the event loop (a hang no in-process timer can interrupt) or kills the process (a crash)
 * becomes a finding too; the family then resumes at the next case in a fresh child.
 *
 *   npm run fuzz -- [--seconds N] [--seed S] [--family manifest,archive,install] [--timeout MS] [--out DIR]
 *   npm run fuzz -- --seed S --replay <family>:<case>      runs one case again and prints its findings
 *
 * Exits 0 when there are no findings, 1 when there are, 2 on a usage error.
 */
import {fork, type ChildProcess} from 'node:child_process'
import {randomInt} from 'node:crypto'
import {copyFile, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {parseArgs} from 'node:util'
import {familyNames, families, type FamilyName} from '../test/fuzz/families.js'
import {knownDefectOf} from '../test/fuzz/known-defects.js'
import type {Finding} from '../test/fuzz/oracle.js'
import {defaultTimeoutMs, distinctFindings, prepareSeeds, runCase, runFamily} from '../test/fuzz/runner.js'
import {fuzzPki} from '../test/fuzz/seeds.js'
import {testNow} from '../test/signing/pki.js'

/** What the parent tells a child: run `family` from case `firstCase` until `deadline` (epoch ms). */
interface ChildTask {
  family: FamilyName
  seed: number
  firstCase: number
  deadline: number
  timeoutMs: number
}

/** What a child tells the parent. */
type ChildMessage =
  | {type: 'heartbeat'}
  | {type: 'prepared'}
  | {type: 'case'; index: number; label: string; inputFile: string; inputName: string}
  | {type: 'findings'; findings: Finding[]}
  | {type: 'done'; iterations: number}

/** A child that sends nothing for this long past the per-call timeout is blocked: it is killed and its case is a hang. */
const heartbeatMs = 500
const blockedGraceMs = 2000
/** Loading the modules and preparing the seeds is not a case: on a busy machine it may take a while. */
const preparationMs = 120_000

const self = fileURLToPath(import.meta.url)

const synopsis = [
  `usage: npm run fuzz -- [--seconds N] [--seed S] [--family ${familyNames.join(',')}] [--timeout MS] [--out DIR]`,
  '       npm run fuzz -- --seed S --replay FAMILY:CASE',
]

const help = [
  'Runs every fuzz family for its share of a time budget, each in a watched child process, and reports',
  'every finding with its saved input and a reproducer: a crash (an untyped error or a dead process), a hang,',
  'a result of the wrong shape, a Trusted verdict for bytes the signature does not cover, or a refused install',
  'that left something behind.',
  '',
  ...synopsis,
  '',
  '  --seconds N          the whole budget in seconds, split evenly among the families (default 60)',
  '  --seed S             the number the cases are drawn from (default random; printed, so a run can be repeated)',
  `  --family LIST        a comma-separated subset of ${familyNames.join(', ')} (default all)`,
  `  --timeout MS         the time one call may take before it is a hang (default ${defaultTimeoutMs})`,
  '  --out DIR            where findings and their inputs are saved (default fuzz-findings/seed-S)',
  '  --replay FAMILY:CASE run one case of the run with --seed S again and print its findings',
  '  --help               print this help',
  '',
  'Exit status: 0 no findings, 1 findings, 2 a usage error.',
]

/** A usage error: one line naming it and where the usage is, on stderr; exit 2. */
function usage(message: string): never {
  process.stderr.write(`fuzz: ${message}\nSee: npm run fuzz -- --help\n`)
  process.exit(2)
}

/** The command line, or a usage error for an unknown option, a missing value or a stray argument. */
function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        seconds: {type: 'string'},
        seed: {type: 'string'},
        family: {type: 'string'},
        timeout: {type: 'string'},
        out: {type: 'string'},
        replay: {type: 'string'},
        help: {type: 'boolean', short: 'h'},
      },
      strict: true,
    }).values
  } catch (error) {
    if (typeof (error as {code?: unknown}).code === 'string' && (error as {code: string}).code.startsWith('ERR_PARSE_ARGS_')) usage((error as Error).message)
    throw error
  }
}

function integer(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback
  const value = Number(text)
  if (!Number.isSafeInteger(value)) usage(`--${name} must be an integer, not ${JSON.stringify(text)}.`)
  return value
}

async function main(): Promise<number> {
  if (process.argv.includes('--child')) return child()
  const values = parseCommandLine()
  if (values.help === true) {
    process.stdout.write(`${help.join('\n')}\n`)
    return 0
  }
  const seconds = integer(values.seconds, 'seconds', 60)
  const seed = integer(values.seed, 'seed', randomInt(0, 2 ** 31 - 1))
  const timeoutMs = integer(values.timeout, 'timeout', defaultTimeoutMs)
  const names = (values.family?.split(',') ?? [...familyNames]).map((name) => {
    if (!(familyNames as readonly string[]).includes(name)) usage(`Unknown family ${JSON.stringify(name)}; the families are ${familyNames.join(', ')}.`)
    return name as FamilyName
  })
  const out = path.resolve(values.out ?? path.join('fuzz-findings', `seed-${seed}`))
  if (values.replay !== undefined) {
    if (values.seed === undefined) usage('--replay needs the --seed of the run that found the case.')
    return replay(values.replay, seed, timeoutMs, out)
  }

  process.stdout.write(`svc-plugin fuzz: seed ${seed}, ${seconds} s, families ${names.join(', ')}, ${timeoutMs} ms per call\n`)
  const started = Date.now()
  const iterations: Partial<Record<FamilyName, number>> = {}
  const findings: Finding[] = []
  const savedInputs = new Map<Finding, string>()
  for (const [i, name] of names.entries()) {
    // Each family gets an equal share of what is left, so a slow start does not starve the last one.
    const deadline = Date.now() + (started + seconds * 1000 - Date.now()) / (names.length - i)
    const run = await superviseFamily(name, seed, deadline, timeoutMs, out, savedInputs)
    iterations[name] = run.iterations
    findings.push(...run.findings)
    process.stdout.write(`${name}: ${run.iterations} cases, ${run.findings.length} findings${run.restarts > 0 ? `, ${run.restarts} restarts after a hang or crash` : ''}\n`)
  }
  await report(findings, seed, out, savedInputs)
  return findings.length === 0 ? 0 : 1
}

/** Runs one family in child processes until its deadline, restarting after a hang or a crash. */
async function superviseFamily(family: FamilyName, seed: number, deadline: number, timeoutMs: number, out: string, savedInputs: Map<Finding, string>): Promise<{iterations: number; findings: Finding[]; restarts: number}> {
  const findings: Finding[] = []
  let next = 0
  let iterations = 0
  let restarts = 0
  while (Date.now() < deadline) {
    const outcome = await runChild({family, seed, firstCase: next, deadline, timeoutMs}, (found) => findings.push(...found))
    iterations += outcome.iterations
    if (outcome.failure === null) break
    if (outcome.current === null) throw new Error(`The ${family} child failed before its first case: ${outcome.failure.message}`)
    // The case that was running when the child stopped answering or died: saved now, before the next child reuses the file.
    const {index, label, inputFile, inputName} = outcome.current
    await mkdir(out, {recursive: true})
    const saved = path.join(out, `${family}-${index}-${outcome.failure.kind}${path.extname(inputName)}`)
    await copyFile(inputFile, saved).catch(() => undefined)
    const finding: Finding = {
      family,
      seed,
      caseIndex: index,
      caseLabel: label,
      input: new Uint8Array(),
      inputName,
      target: 'the process',
      kind: outcome.failure.kind,
      message: outcome.failure.message,
      signature: `${outcome.failure.kind} ${family} process`,
    }
    savedInputs.set(finding, saved)
    findings.push(finding)
    iterations += 1
    next = index + 1
    restarts++
  }
  return {iterations, findings, restarts}
}

interface ChildOutcome {
  iterations: number
  current: Extract<ChildMessage, {type: 'case'}> | null
  /** Null when the child finished its share. */
  failure: {kind: 'hang' | 'crash'; message: string} | null
}

function runChild(task: ChildTask, onFindings: (findings: Finding[]) => void): Promise<ChildOutcome> {
  return new Promise((resolve) => {
    const child: ChildProcess = fork(self, ['--child'], {serialization: 'advanced', stdio: ['ignore', 'inherit', 'pipe', 'ipc']})
    let stderr = ''
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)))
    let current: ChildOutcome['current'] = null
    let iterations = 0
    let done = false
    let blocked = false
    let lastHeard = Date.now()
    let prepared = false
    const watchdog = setInterval(() => {
      if (Date.now() - lastHeard > (prepared ? task.timeoutMs + blockedGraceMs : preparationMs)) {
        blocked = true
        child.kill('SIGKILL')
      }
    }, heartbeatMs)
    child.on('message', (message: ChildMessage) => {
      lastHeard = Date.now()
      if (message.type === 'prepared') prepared = true
      else if (message.type === 'case') current = message
      else if (message.type === 'findings') onFindings(message.findings)
      else if (message.type === 'done') {
        done = true
        iterations = message.iterations
      }
    })
    child.on('exit', (code, signal) => {
      clearInterval(watchdog)
      if (done && code === 0) return resolve({iterations, current, failure: null})
      const ran = current === null ? 0 : current.index - task.firstCase
      const failure = blocked
        ? {kind: 'hang' as const, message: `the process stopped answering for ${task.timeoutMs + blockedGraceMs} ms (its event loop was blocked) during ${task.family} case ${current?.index}`}
        : {kind: 'crash' as const, message: `the process died (${signal ?? `exit ${code}`}) during ${task.family} case ${current?.index}: ${stderr.trim().split('\n').slice(-12).join('\n')}`}
      resolve({iterations: ran, current, failure})
    })
    child.send(task)
  })
}

/** The child: prepares the family's seeds and runs cases, telling the parent about each. */
async function child(): Promise<number> {
  const task = await new Promise<ChildTask>((resolve) => process.once('message', (message) => resolve(message as ChildTask)))
  const send = (message: ChildMessage): Promise<void> => new Promise((resolve) => process.send!(message, () => resolve()))
  const heartbeat = setInterval(() => void send({type: 'heartbeat'}), heartbeatMs)
  const work = await mkdtemp(path.join(tmpdir(), 'svc-plugin-fuzz-'))
  try {
    const seeds = (await prepareSeeds([task.family], work)).get(families[task.family].seedsKey)
    const current = path.join(work, 'current')
    await mkdir(current, {recursive: true})
    await send({type: 'prepared'})
    const run = await runFamily(task.family, seeds, work, {
      seed: task.seed,
      seconds: Math.max(0, (task.deadline - Date.now()) / 1000),
      timeoutMs: task.timeoutMs,
      firstCase: task.firstCase,
      onCase: async (_family, index, fuzzCase) => {
        const inputFile = path.join(current, fuzzCase.inputName)
        await writeFile(inputFile, fuzzCase.input)
        await send({type: 'case', index, label: fuzzCase.label, inputFile, inputName: fuzzCase.inputName})
      },
      onCaseDone: async (_family, _index, found) => {
        if (found.length > 0) await send({type: 'findings', findings: [...found]})
      },
    })
    await send({type: 'done', iterations: run.iterations})
  } finally {
    clearInterval(heartbeat)
    await rm(work, {recursive: true, force: true})
  }
  // A call that timed out may still hold a timer or a descriptor: the child's work is done, so it ends here.
  process.disconnect()
  process.exit(0)
}

/** Runs one case again, in this process, and reports its findings. */
async function replay(spec: string, seed: number, timeoutMs: number, out: string): Promise<number> {
  const [name, index] = spec.split(':')
  if (!(familyNames as readonly string[]).includes(name ?? '') || !/^\d+$/.test(index ?? '')) usage(`--replay takes FAMILY:CASE, e.g. archive:1234, not ${JSON.stringify(spec)}.`)
  const family = families[name as FamilyName]
  const work = await mkdtemp(path.join(tmpdir(), 'svc-plugin-fuzz-'))
  try {
    const seeds = (await prepareSeeds([family.name], work)).get(family.seedsKey)
    const {fuzzCase, findings} = await runCase(family, seeds, work, seed, Number(index), {timeoutMs})
    process.stdout.write(`${family.name} case ${index} of seed ${seed}: ${fuzzCase?.label ?? '(not generated)'}\n`)
    if (fuzzCase !== null) {
      await mkdir(out, {recursive: true})
      const saved = path.join(out, `${family.name}-${index}${path.extname(fuzzCase.inputName)}`)
      await writeFile(saved, fuzzCase.input)
      process.stdout.write(`input: ${saved}\n`)
    }
    for (const finding of findings) process.stdout.write(`- ${finding.kind} in ${finding.target}: ${finding.message}\n${finding.stack === undefined ? '' : `${indent(finding.stack)}\n`}`)
    if (findings.length === 0) process.stdout.write('no findings\n')
    return findings.length === 0 ? 0 : 1
  } finally {
    await rm(work, {recursive: true, force: true})
  }
}

const indent = (text: string): string => text.split('\n').map((line) => `      ${line}`).join('\n')

/** Prints every distinct finding with its reproducer and saves each one's input under `out`. */
async function report(findings: readonly Finding[], seed: number, out: string, savedInputs: Map<Finding, string>): Promise<void> {
  const groups = distinctFindings(findings)
  if (groups.length === 0) {
    process.stdout.write('no findings\n')
    return
  }
  await mkdir(out, {recursive: true})
  process.stdout.write(`\n${groups.length} distinct findings (${findings.length} in all); inputs saved under ${out}\n`)
  const summary = []
  for (const [i, {first, count, targets}] of groups.entries()) {
    let saved = savedInputs.get(first)
    if (saved === undefined) {
      saved = path.join(out, `${first.family}-${first.caseIndex}-${first.kind}${path.extname(first.inputName)}`)
      await writeFile(saved, first.input)
    }
    const known = knownDefectOf(first)
    process.stdout.write(
      [
        `\n[${i + 1}] ${first.signature}  (${count}x, in ${targets.join(', ')})${known === undefined ? '' : `\n    open defect: ${known.id}`}`,
        `    ${first.message.split('\n').join('\n    ')}`,
        `    case: ${first.family}:${first.caseIndex}: ${first.caseLabel.length > 400 ? `${first.caseLabel.slice(0, 400)}…` : first.caseLabel}`,
        `    reproduce: npm run fuzz -- --seed ${seed} --replay ${first.family}:${first.caseIndex}`,
        `    input: ${saved}`,
        '',
      ].join('\n'),
    )
    summary.push({signature: first.signature, kind: first.kind, count, targets, message: first.message, family: first.family, seed, caseIndex: first.caseIndex, caseLabel: first.caseLabel, input: saved, knownDefect: known?.id ?? null})
  }
  await writeFile(path.join(out, 'findings.json'), `${JSON.stringify(summary, null, 2)}\n`)
  if (groups.some(({first}) => first.family !== 'manifest')) {
    await writeFile(path.join(out, 'trust.json'), `${JSON.stringify(fuzzPki().trust, null, 2)}\n`)
    process.stdout.write(`\nThe archive cases verify against ${path.join(out, 'trust.json')} at ${testNow.toISOString()}.\n`)
  }
}

process.exitCode = await main()
