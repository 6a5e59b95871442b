/**
 * `npm run bench`: measures svc-plugin against the standard tools, side by side. Each comparison runs
 * the two commands in turn (ours, theirs, ours, theirs…) and reports the median time and the peak RSS
 * of each, their ratio, and the 1-minute load when the comparison started. Seven plugins are generated
 * (seeded, and cached in `.bench/`): the bench tree (~295 MB, ~2,000 files), a 5 MB plugin, 19,995 small files
 * (20,000 entries once signed), one 200 MB entry, and the shapes most plugins have: 1,000 JavaScript modules
 * of 50 KiB, 19,990 text files of 512 bytes, and a mixed tree (two 20 MiB native libraries, 200 images, 300
 * modules). Never part of the tests: timings on a shared machine are noisy, so read the load column with
 * every figure.
 *
 *   npm run bench -- --only=tree,startup   # some cases: tree, small, many, large, js, text, mixed, startup, validate, bombs
 *   npm run bench -- --only=verify,install # some tasks of every case: pack, pigz, verify, install, validate-artifact
 *   npm run bench -- --rounds=3            # fewer rounds (default 5)
 *   npm run bench -- --readme              # also rewrite the table in README.md's Performance section
 *
 * Prints a Markdown table and writes `.bench/results.json` and `.bench/results.md`.
 */
import {spawnSync} from 'node:child_process'
import {rmSync, statSync} from 'node:fs'
import {availableParallelism, cpus, loadavg} from 'node:os'
import {mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {openArchive} from '../src/archive/reader.js'
import {validateManifest} from '../src/manifest/validate.js'
import {issueCertificate} from '../src/pki/certificate.js'
import {generateKeyPair} from '../src/pki/ed25519.js'
import {signArtifact} from '../src/signing/sign-artifact.js'
import {createRoot, readTrustStore} from '../src/pki/trust.js'
import {verifyArtifact} from '../src/signing/verify-artifact.js'
import {makeHostileArchives} from './make-hostile-archives.js'
import {ensureBenchTree, ensureJsModulesTree, ensureLargeEntryTree, ensureMixedTree, ensureSmallFilesTree, ensureSmallPlugin, ensureSmallTextTree, type BenchTree} from './bench/tree.js'
import {startupCases} from './bench/startup.js'
import {measure, measureShell, median, type Measurement} from './bench/measure.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const benchDir = path.join(repoRoot, '.bench')
const cli = path.join(repoRoot, 'bin', 'run.js')
const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice(9) ?? 5)
const writeReadme = process.argv.includes('--readme')
const cases = ['tree', 'small', 'many', 'large', 'js', 'text', 'mixed', 'startup', 'validate', 'bombs'] as const
const tasks = ['pack', 'pigz', 'verify', 'install', 'validate-artifact'] as const
/** `--only=tree,verify`: run only these cases and, within them, only these tasks (see the list above). */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice(7).split(',') ?? []
for (const name of only) {
  if (!(cases as readonly string[]).includes(name) && !(tasks as readonly string[]).includes(name)) {
    throw new Error(`--only takes cases (${cases.join(', ')}) and tasks (${tasks.join(', ')}), not ${JSON.stringify(name)}`)
  }
}
const onlyCases = only.filter((name) => (cases as readonly string[]).includes(name))
const onlyTasks = only.filter((name) => (tasks as readonly string[]).includes(name))
const runsCase = (name: (typeof cases)[number]): boolean => onlyCases.length === 0 || onlyCases.includes(name)
const runsTask = (name: (typeof tasks)[number]): boolean => onlyTasks.length === 0 || onlyTasks.includes(name)

interface Row {
  task: string
  ours: string
  theirs: string
  /** Our median time over theirs. */
  ratio: string
  target: string
  /** 1-minute load average when the row's runs started. */
  load: string
}
const rows: Row[] = []
const results: Record<string, unknown> = {}

function log(text: string): void {
  process.stderr.write(`${text}\n`)
}

const load1 = (): number => Number(loadavg()[0]!.toFixed(2))
const seconds = (value: number): string => (value < 1 ? `${(value * 1000).toFixed(0)} ms` : `${value.toFixed(2)} s`)

interface Summary {
  medianSeconds: number
  peakRssMiB: number
  runs: number[]
}

function summary(list: readonly Measurement[]): Summary {
  return {
    medianSeconds: median(list.map((m) => m.seconds)),
    peakRssMiB: Number(Math.max(...list.map((m) => m.peakRssMiB)).toFixed(1)),
    runs: list.map((m) => Number(m.seconds.toFixed(3))),
  }
}

/**
 * Runs ours and theirs in turn, `count` rounds (after one unmeasured warm-up of each), and adds a row
 * with the medians, the peak RSS of each and the ratio of our median time to theirs.
 */
function compare(key: string, task: string, target: string, ours: () => Measurement, theirs: () => Measurement, options: {before?: () => void; count?: number} = {}): {ours: Summary; theirs: Summary; ratio: number} {
  log(`${task}…`)
  const load = load1()
  const a: Measurement[] = []
  const b: Measurement[] = []
  options.before?.()
  ours()
  options.before?.()
  theirs()
  for (let round = 0; round < (options.count ?? rounds); round += 1) {
    options.before?.()
    a.push(ours())
    options.before?.()
    b.push(theirs())
  }
  const result = {ours: summary(a), theirs: summary(b), ratio: Number((median(a.map((m) => m.seconds)) / median(b.map((m) => m.seconds))).toFixed(2))}
  log(`  ${seconds(result.ours.medianSeconds)} vs ${seconds(result.theirs.medianSeconds)}: ${result.ratio}× (load ${load})`)
  results[key] = {...result, load}
  rows.push({
    task,
    ours: `${seconds(result.ours.medianSeconds)}, ${result.ours.peakRssMiB.toFixed(0)} MiB`,
    theirs: `${seconds(result.theirs.medianSeconds)}, ${result.theirs.peakRssMiB.toFixed(0)} MiB`,
    ratio: `${result.ratio.toFixed(2)}×`,
    target,
    load: load.toFixed(2),
  })
  return result
}

const memoryTarget = '< 150 MiB'

/** Signs an artifact with a fresh root and package certificate; returns the trust store file. */
async function signForBench(packed: string, signed: string, work: string): Promise<string> {
  const root = createRoot('root_bench')
  const publisher = generateKeyPair()
  const now = new Date()
  const issued = issueCertificate({
    subject: {kind: 'organization', id: 'com.example', name: 'Example Labs'},
    subjectPublicKey: publisher.publicKey,
    keyUsage: 'package',
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + 86_400_000),
    signerPrivateKey: root.keyPair.privateKey,
    rootKeyId: root.rootKeyId,
  })
  await rm(signed, {force: true})
  await signArtifact({artifact: packed, output: signed, privateKey: publisher.privateKey, certificate: {json: issued.certificateJson, sig: issued.certificateSig}})
  const trustFile = path.join(work, `${path.basename(signed, '.svcPlugin')}.trust.json`)
  await writeFile(trustFile, `${JSON.stringify(root.trustStore)}\n`)
  return trustFile
}

/** What {@link benchPlugin} compares besides pack. */
interface PluginBench {
  /** Also pack vs tar piped to pigz. */
  pigz?: boolean
  /** Also the library's verifyArtifact, in process. */
  library?: boolean
  /** verify vs sha256sum (default true). */
  verify?: boolean
  /** The standard install ends with `sync -f`, as durable as ours (default false). */
  sync?: boolean
  /** `validate --artifact --level package` vs sha256sum (default false). */
  validate?: boolean
}

/**
 * One plugin against the standard tools: pack vs `zip -r -X -6` (and vs tar piped to pigz), verify and
 * `validate --artifact` vs `sha256sum` over the same files, the library's verifyArtifact vs the same,
 * install vs `unzip -q` and `sha256sum -c` (and `sync -f`). Returns the signed artifact and its trust store.
 */
async function benchPlugin(key: string, label: string, tree: BenchTree, work: string, options: PluginBench = {}): Promise<{signed: string; trustFile: string}> {
  const ours = path.join(work, `${key}.svcPlugin`)
  const theirs = path.join(work, `${key}.zip`)
  results[`${key}Tree`] = tree
  if (runsTask('pack')) {
    const pack = compare(`${key}.pack`, `${label}: \`pack\` vs \`zip -r -X -6\``, '≤ 0.67× (1.5× faster), ' + memoryTarget,
      () => measure(process.execPath, [cli, 'pack', tree.root, '--output', ours, '--force', '--quiet'], work),
      () => measure('zip', ['-r', '-X', '-6', '-q', theirs, '.'], tree.root),
      {before: () => rmSync(theirs, {force: true})},
    )
    results[`${key}.bytes`] = {ours: statSync(ours).size, theirs: statSync(theirs).size, perEntryMs: {ours: (pack.ours.medianSeconds / tree.files) * 1000, theirs: (pack.theirs.medianSeconds / tree.files) * 1000}}
  } else {
    measure(process.execPath, [cli, 'pack', tree.root, '--output', ours, '--force', '--quiet'], work)
  }
  if (options.pigz === true && runsTask('pigz') && hasCommand('pigz')) {
    const cores = availableParallelism()
    compare(`${key}.pigz`, `${label}: \`pack\` vs \`tar\` piped to \`pigz -6 -p ${cores}\``, 'for reference',
      () => measure(process.execPath, [cli, 'pack', tree.root, '--output', ours, '--force', '--quiet'], work),
      () => measureShell(`tar -cf - . | pigz -6 -p ${cores} > ${path.join(work, `${key}.tar.gz`)}`, tree.root),
    )
  }
  const signed = path.join(work, `${key}-signed.svcPlugin`)
  const trustFile = await signForBench(ours, signed, work)
  const sha256sum = () => measureShell('find . -type f -print0 | xargs -0 sha256sum > /dev/null', tree.root)
  if (options.validate === true && runsTask('validate-artifact')) {
    compare(`${key}.validate`, `${label}: \`validate --artifact --level package\` vs \`sha256sum\` of the files`, `≤ 2×, ${memoryTarget}`,
      () => measure(process.execPath, [cli, 'validate', '--artifact', signed, '--level', 'package', '--quiet'], repoRoot),
      sha256sum,
    )
  }
  if (options.verify !== false && runsTask('verify')) {
    const verify = compare(`${key}.verify`, `${label}: \`verify\` vs \`sha256sum\` of the files`, `≤ ${key === 'tree' ? '1.2' : '2'}×, ${memoryTarget}`,
      () => measure(process.execPath, [cli, 'verify', signed, '--trust', trustFile, '--quiet'], repoRoot),
      sha256sum,
    )
    if (options.library === true) {
      // What a host or a store pays: the library call, without starting a process.
      const trust = await readTrustStore(trustFile)
      const load = load1()
      const inProcess: number[] = []
      for (let round = 0; round <= rounds; round += 1) {
        const start = performance.now()
        const verdict = await verifyArtifact(signed, {trust})
        if (round > 0) inProcess.push((performance.now() - start) / 1000)
        if (!verdict.valid) throw new Error(`the benchmark artifact did not verify: ${JSON.stringify(verdict.problems)}`)
      }
      const ratio = Number((median(inProcess) / verify.theirs.medianSeconds).toFixed(2))
      results[`${key}.verifyLibrary`] = {medianSeconds: median(inProcess), ratio, load}
      rows.push({task: `${label}: \`verifyArtifact\` (library) vs \`sha256sum\``, ours: seconds(median(inProcess)), theirs: seconds(verify.theirs.medianSeconds), ratio: `${ratio.toFixed(2)}×`, target: '≤ 1.2×', load: load.toFixed(2)})
    }
  }
  if (runsTask('install')) {
    const oursRoot = path.join(work, `${key}-host`)
    const theirsDir = path.join(work, `${key}-unzipped`)
    // The checksum list unzip's output is checked against: files[] of the packed manifest.
    const archive = await openArchive(signed)
    const manifest = JSON.parse((await archive.readEntry(archive.get('manifest.json')!)).toString('utf8')) as {files: {path: string; sha256: string}[]}
    await archive.close()
    const sums = path.join(work, `${key}.sha256`)
    await writeFile(sums, manifest.files.map((file) => `${file.sha256.slice(7)}  ${file.path}`).join('\n') + '\n')
    const sync = options.sync === true
    compare(`${key}.install`, `${label}: \`install\` vs \`unzip -q\` + \`sha256sum -c\`${sync ? ' + `sync -f`' : ''}`, `≤ ${key === 'tree' || sync ? '1.0' : '2'}×, ${memoryTarget}`,
      () => measure(process.execPath, [cli, 'install', signed, '--data-root', oursRoot, '--trust', trustFile, '--rid', 'linux-x64', '--quiet'], work),
      () => measureShell(`mkdir -p ${theirsDir} && unzip -q ${signed} -d ${theirsDir} && cd ${theirsDir} && sha256sum -c --quiet ${sums}${sync ? ' && sync -f .' : ''}`, work),
      {
        before: () => {
          rmSync(oursRoot, {recursive: true, force: true})
          rmSync(theirsDir, {recursive: true, force: true})
        },
      },
    )
  }
  return {signed, trustFile}
}

function hasCommand(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`]).status === 0
}

/**
 * Start-up: every command on the example plugin (a few KB; `--version` included) against bare `node -e 0`,
 * run in turn (scripts/bench/startup.ts); then verify of the 5 MB plugin, start-up and 5 MB of work together.
 */
async function benchStartup(small: {signed: string; trustFile: string}, work: string): Promise<void> {
  const count = Math.max(rounds, 10)
  const exampleRoot = path.join(repoRoot, 'fixtures', 'example-plugin')
  const example = await preparedPlugin('example', {root: exampleRoot, files: 0, bytes: 0}, work)
  const bare = () => measure(process.execPath, ['-e', '0'], repoRoot)
  const kb = Math.round(statSync(example.signed).size / 1024)
  for (const {name, args, before} of startupCases(cli, exampleRoot, example, work)) {
    const target = name === '--version' ? '≤ 1.5×' : '≤ 3×'
    const label = name === '--version' ? '`svc-plugin --version` vs `node -e 0`' : `\`svc-plugin ${name}\` (example plugin, ${kb} KB) vs \`node -e 0\``
    compare(`startup.${name.replaceAll(' ', '-')}`, label, target, () => measure(process.execPath, [cli, ...args], repoRoot), bare, {count, ...(before === undefined ? {} : {before})})
  }
  compare('startup.verify-5mb', '`svc-plugin verify` (5 MB plugin) vs `node -e 0`', '–', () => measure(process.execPath, [cli, 'verify', small.signed, '--trust', small.trustFile, '--quiet'], repoRoot), bare, {count})
}

async function benchValidate(manifestFile: string): Promise<void> {
  log('validate: in-process throughput')
  const load = load1()
  const bytes = await readFile(manifestFile)
  validateManifest(bytes, {level: 'development'})
  const count = 20_000
  const start = performance.now()
  for (let i = 0; i < count; i += 1) validateManifest(bytes, {level: 'development'})
  const perSecond = count / ((performance.now() - start) / 1000)
  results.validate = {manifestsPerSecond: Math.round(perSecond), load}
  rows.push({task: '`validateManifest` (library), development level', ours: `${Math.round(perSecond).toLocaleString('en-US')}/s`, theirs: '–', ratio: '–', target: '≥ 20,000/s', load: load.toFixed(2)})
}

async function benchBombs(work: string): Promise<void> {
  log('hostile archives: time to refusal')
  const load = load1()
  const dir = path.join(work, 'hostile')
  await rm(dir, {recursive: true, force: true})
  await mkdir(dir, {recursive: true})
  const hostile = await makeHostileArchives(dir)
  const times: Record<string, number> = {}
  for (const item of hostile.filter((c) => /bomb|too-large|too-many/.test(c.name))) {
    const start = performance.now()
    try {
      const archive = await openArchive(item.file)
      try {
        await archive.digestEntries()
      } finally {
        await archive.close()
      }
    } catch {
      // refused, as expected
    }
    times[item.name] = Number((performance.now() - start).toFixed(1))
  }
  results.bombs = {times, load}
  const worst = Math.max(...Object.values(times))
  rows.push({task: `hostile archive refused (worst of ${Object.keys(times).length})`, ours: `${worst} ms`, theirs: '–', ratio: '–', target: '< 100 ms', load: load.toFixed(2)})
}

/** The machine the figures came from, in one line. */
function machine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU'
  return `${availableParallelism()} cores (${model}), Node ${process.version}`
}

function table(): string {
  const cells = (values: string[]) => `| ${values.join(' | ')} |`
  return [
    cells(['task', 'svc-plugin (median, peak RSS)', 'standard tool (median, peak RSS)', 'time ours/theirs', 'target', 'load']),
    cells(['---', '---', '---', '---', '---', '---']),
    ...rows.map((row) => cells([row.task, row.ours, row.theirs, row.ratio, row.target, row.load])),
  ].join('\n')
}

const readmeStart = '<!-- bench table: written by npm run bench -- --readme -->'
const readmeEnd = '<!-- end of bench table -->'

/** Replaces the table between the markers of README.md's Performance section. */
async function updateReadme(text: string): Promise<void> {
  const file = path.join(repoRoot, 'README.md')
  const readme = await readFile(file, 'utf8')
  const start = readme.indexOf(readmeStart)
  const end = readme.indexOf(readmeEnd)
  if (start < 0 || end < start) throw new Error(`README.md has no bench table markers (${readmeStart} … ${readmeEnd})`)
  await writeFile(file, `${readme.slice(0, start + readmeStart.length)}\n${text}\n${readme.slice(end)}`)
}

async function main(): Promise<void> {
  await mkdir(benchDir, {recursive: true})
  const work = path.join(benchDir, 'work')
  await rm(work, {recursive: true, force: true})
  await mkdir(work, {recursive: true})
  // The machine may be shared: the load when the run started and ended says how much the figures can be trusted.
  const load = {start: loadavg().map((value) => Number(value.toFixed(2))), end: [] as number[]}
  results.machine = machine()
  results.loadAverage = load
  log(`${machine()}; load ${load.start.join(' ')}`)
  log('generating the plugins (cached in .bench/)…')
  if (runsCase('validate')) await benchValidate(path.join(repoRoot, 'fixtures', 'example-plugin', 'manifest.json'))
  if (runsCase('tree')) await benchPlugin('tree', 'bench tree', await ensureBenchTree(benchDir), work, {pigz: true, library: true})
  if (runsCase('small') || runsCase('startup')) {
    const small = runsCase('small')
      ? await benchPlugin('small', '5 MB plugin', await ensureSmallPlugin(benchDir), work)
      : await preparedPlugin('small', await ensureSmallPlugin(benchDir), work)
    if (runsCase('startup')) await benchStartup(small, work)
  }
  if (runsCase('many')) await benchPlugin('many', '20,000 entries', await ensureSmallFilesTree(benchDir), work)
  if (runsCase('large')) await benchPlugin('large', 'one 200 MB entry', await ensureLargeEntryTree(benchDir), work)
  // The shapes most plugins have: what is measured for each is what a user waits for.
  const shape: PluginBench = {verify: false, sync: true, validate: true}
  if (runsCase('js')) await benchPlugin('js', '1,000 JS modules of 50 KiB', await ensureJsModulesTree(benchDir), work, shape)
  if (runsCase('text')) await benchPlugin('text', '19,990 text files of 512 bytes', await ensureSmallTextTree(benchDir), work, shape)
  if (runsCase('mixed')) await benchPlugin('mixed', 'mixed (2 × 20 MiB native, 200 images, 300 modules)', await ensureMixedTree(benchDir), work, shape)
  if (runsCase('bombs')) await benchBombs(work)
  load.end = loadavg().map((value) => Number(value.toFixed(2)))
  const text = `${table()}\n\nMachine: ${machine()}; load average (1, 5, 15 min) ${load.start.join(', ')} at the start, ${load.end.join(', ')} at the end; ${rounds} rounds, medians.`
  await writeFile(path.join(benchDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
  await writeFile(path.join(benchDir, 'results.md'), `${text}\n`)
  process.stdout.write(`${text}\n`)
  if (writeReadme) await updateReadme(text)
}

/** Packs and signs a plugin without measuring (for the start-up rows alone). */
async function preparedPlugin(key: string, tree: BenchTree, work: string): Promise<{signed: string; trustFile: string}> {
  const packed = path.join(work, `${key}.svcPlugin`)
  measure(process.execPath, [cli, 'pack', tree.root, '--output', packed, '--force', '--quiet'], work)
  const signed = path.join(work, `${key}-signed.svcPlugin`)
  return {signed, trustFile: await signForBench(packed, signed, work)}
}

await main()
