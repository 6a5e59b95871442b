/**
 * `npm run bench`: measures svc-plugin against the standard tools, side by
 * side and alternating in one run, on a generated ~300 MB / ~2,000-file plugin tree. Prints a
 * table and writes `.bench/results.json`. Never part of the tests: timings on shared machines
 * are noisy, so every figure is a median of several alternating runs.
 */
import {rmSync, statSync} from 'node:fs'
import {loadavg} from 'node:os'
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
import {ensureBenchTree, ensureSmallFilesTree} from './bench/tree.js'
import {measure, measureShell, median, type Measurement} from './bench/measure.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
const benchDir = path.join(repoRoot, '.bench')
const cli = path.join(repoRoot, 'bin', 'run.js')
const rounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice(9) ?? 5)
/** `--only=pack,pack-small`: run only these tasks (validate, pack, pack-small, verify, install, bombs); verify and install need pack. */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice(7).split(',')
const runs = (task: string): boolean => only === undefined || only.includes(task)

interface Row {
  task: string
  ours: string
  theirs: string
  ratio: string
  target: string
}
const rows: Row[] = []
const results: Record<string, unknown> = {}

function log(text: string): void {
  process.stderr.write(`${text}\n`)
}

/** Alternates two commands `rounds` times; returns the medians and peak RSS of each. */
function alternate(ours: () => Measurement, theirs: () => Measurement, before?: () => void) {
  const a: Measurement[] = []
  const b: Measurement[] = []
  for (let round = 0; round < rounds; round += 1) {
    before?.()
    a.push(ours())
    before?.()
    b.push(theirs())
    log(`  round ${round + 1}/${rounds}: ours ${a.at(-1)!.seconds.toFixed(2)} s, theirs ${b.at(-1)!.seconds.toFixed(2)} s`)
  }
  const summary = (list: Measurement[]) => ({
    medianSeconds: median(list.map((m) => m.seconds)),
    peakRssMiB: Math.max(...list.map((m) => m.peakRssMiB)),
    runs: list.map((m) => Number(m.seconds.toFixed(3))),
  })
  return {ours: summary(a), theirs: summary(b)}
}

async function benchValidate(manifestFile: string): Promise<void> {
  log('validate: in-process throughput and CLI cold start')
  const bytes = await readFile(manifestFile)
  validateManifest(bytes, {level: 'development'})
  const count = 20_000
  const start = performance.now()
  for (let i = 0; i < count; i += 1) validateManifest(bytes, {level: 'development'})
  const perSecond = count / ((performance.now() - start) / 1000)
  const cold: number[] = []
  for (let i = 0; i < 15; i += 1) cold.push(measure(process.execPath, [cli, 'validate', manifestFile], repoRoot).seconds)
  results.validate = {manifestsPerSecond: Math.round(perSecond), coldStartMedianMs: Math.round(median(cold) * 1000)}
  rows.push({task: 'validate (in-process)', ours: `${Math.round(perSecond)}/s`, theirs: '-', ratio: '-', target: '≥ 20,000/s'})
  rows.push({task: 'validate CLI cold start', ours: `${Math.round(median(cold) * 1000)} ms`, theirs: '-', ratio: '-', target: '< 400 ms'})
}

async function benchPack(tree: string, work: string): Promise<string> {
  log('pack: svc-plugin pack vs zip -r -X -6, alternating')
  const ours = path.join(work, 'ours.svcPlugin')
  const theirs = path.join(work, 'theirs.zip')
  const result = alternate(
    () => measure(process.execPath, [cli, 'pack', tree, '--output', ours, '--force', '--quiet'], work),
    () => measure('zip', ['-r', '-X', '-6', '-q', theirs, '.'], tree),
    () => rmSync(theirs, {force: true}),
  )
  const ratio = result.theirs.medianSeconds / result.ours.medianSeconds
  results.pack = {...result, speedup: Number(ratio.toFixed(2)), bytes: {ours: statSync(ours).size, theirs: statSync(theirs).size}}
  rows.push({
    task: 'pack vs zip -r -X -6',
    ours: `${result.ours.medianSeconds.toFixed(2)} s, ${result.ours.peakRssMiB.toFixed(0)} MiB`,
    theirs: `${result.theirs.medianSeconds.toFixed(2)} s, ${result.theirs.peakRssMiB.toFixed(0)} MiB`,
    ratio: `${ratio.toFixed(2)}× faster`,
    target: '≥ 1.5× faster, < 150 MiB',
  })
  return ours
}

/** The per-entry cost: pack and zip over a tree of 19,999 files of 1-4 KB (20,000 entries with the manifest). */
async function benchPackSmall(work: string): Promise<void> {
  log('pack, many small files: svc-plugin pack vs zip -r -X -6, alternating')
  const tree = await ensureSmallFilesTree(benchDir)
  const ours = path.join(work, 'small.svcPlugin')
  const theirs = path.join(work, 'small.zip')
  const result = alternate(
    () => measure(process.execPath, [cli, 'pack', tree.root, '--output', ours, '--force', '--quiet'], work),
    () => measure('zip', ['-r', '-X', '-6', '-q', theirs, '.'], tree.root),
    () => rmSync(theirs, {force: true}),
  )
  const perFile = (seconds: number) => (seconds / tree.files) * 1000
  results.packSmall = {...result, files: tree.files, bytes: {ours: statSync(ours).size, theirs: statSync(theirs).size}, msPerFile: {ours: perFile(result.ours.medianSeconds), theirs: perFile(result.theirs.medianSeconds)}}
  rows.push({
    task: `pack ${tree.files} small files vs zip`,
    ours: `${result.ours.medianSeconds.toFixed(2)} s, ${result.ours.peakRssMiB.toFixed(0)} MiB`,
    theirs: `${result.theirs.medianSeconds.toFixed(2)} s, ${result.theirs.peakRssMiB.toFixed(0)} MiB`,
    ratio: `${perFile(result.ours.medianSeconds).toFixed(3)} vs ${perFile(result.theirs.medianSeconds).toFixed(3)} ms/file`,
    target: '< 150 MiB, linear in entries',
  })
}

/** Signs the packed benchmark artifact with a fresh root and package certificate; returns the trust store file. */
async function signBenchArtifact(packed: string, signed: string, work: string): Promise<string> {
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
  const trustFile = path.join(work, 'trust.json')
  await writeFile(trustFile, `${JSON.stringify(root.trustStore)}\n`)
  return trustFile
}

async function benchVerify(signed: string, trustFile: string, tree: string): Promise<void> {
  log('verify: svc-plugin verify vs sha256sum over the same files, alternating')
  const result = alternate(
    () => measure(process.execPath, [cli, 'verify', signed, '--trust', trustFile, '--quiet'], repoRoot),
    () => measureShell('find . -type f -print0 | xargs -0 sha256sum > /dev/null', tree),
  )
  const ratio = result.ours.medianSeconds / result.theirs.medianSeconds
  // What a host or a store pays: the library call, without starting a process.
  const trust = await readTrustStore(trustFile)
  const inProcess: number[] = []
  for (let round = 0; round < rounds; round += 1) {
    const start = performance.now()
    const verdict = await verifyArtifact(signed, {trust})
    inProcess.push((performance.now() - start) / 1000)
    if (!verdict.valid) throw new Error(`the benchmark artifact did not verify: ${JSON.stringify(verdict.problems)}`)
  }
  const libraryRatio = median(inProcess) / result.theirs.medianSeconds
  results.verify = {...result, ratio: Number(ratio.toFixed(2)), libraryMedianSeconds: Number(median(inProcess).toFixed(3)), libraryRatio: Number(libraryRatio.toFixed(2))}
  rows.push({
    task: 'verify vs sha256sum',
    ours: `${result.ours.medianSeconds.toFixed(2)} s, ${result.ours.peakRssMiB.toFixed(0)} MiB`,
    theirs: `${result.theirs.medianSeconds.toFixed(2)} s, ${result.theirs.peakRssMiB.toFixed(0)} MiB`,
    ratio: `${ratio.toFixed(2)}× the time`,
    target: '≤ 1.2×',
  })
  rows.push({
    task: 'verifyArtifact (library) vs sha256sum',
    ours: `${median(inProcess).toFixed(2)} s`,
    theirs: `${result.theirs.medianSeconds.toFixed(2)} s`,
    ratio: `${libraryRatio.toFixed(2)}× the time`,
    target: '≤ 1.2×',
  })
}

async function benchInstall(signed: string, trustFile: string, work: string): Promise<void> {
  log('install: svc-plugin install vs unzip -q && sha256sum -c, alternating')
  const oursRoot = path.join(work, 'host')
  const theirsDir = path.join(work, 'unzipped')
  // The checksum list unzip's output is checked against: files[] of the packed manifest.
  const archive = await openArchive(signed)
  const manifest = JSON.parse((await archive.readEntry(archive.get('manifest.json')!)).toString('utf8')) as {files: {path: string; sha256: string}[]}
  await archive.close()
  const sums = path.join(work, 'files.sha256')
  await writeFile(sums, manifest.files.map((file) => `${file.sha256.slice(7)}  ${file.path}`).join('\n') + '\n')
  const result = alternate(
    () => measure(process.execPath, [cli, 'install', signed, '--data-root', oursRoot, '--trust', trustFile, '--rid', 'linux-x64', '--quiet'], work),
    () => measureShell(`mkdir -p ${theirsDir} && unzip -q ${signed} -d ${theirsDir} && cd ${theirsDir} && sha256sum -c --quiet ${sums}`, work),
    () => {
      rmSync(oursRoot, {recursive: true, force: true})
      rmSync(theirsDir, {recursive: true, force: true})
    },
  )
  const ratio = result.ours.medianSeconds / result.theirs.medianSeconds
  results.install = {...result, ratio: Number(ratio.toFixed(2))}
  rows.push({
    task: 'install vs unzip + sha256sum -c',
    ours: `${result.ours.medianSeconds.toFixed(2)} s, ${result.ours.peakRssMiB.toFixed(0)} MiB`,
    theirs: `${result.theirs.medianSeconds.toFixed(2)} s, ${result.theirs.peakRssMiB.toFixed(0)} MiB`,
    ratio: `${ratio.toFixed(2)}× the time`,
    target: '≤ 1.0×, < 150 MiB',
  })
}

async function benchBombs(work: string): Promise<void> {
  log('hostile archives: time to refusal')
  const dir = path.join(work, 'hostile')
  await rm(dir, {recursive: true, force: true})
  await mkdir(dir, {recursive: true})
  const cases = await makeHostileArchives(dir)
  const times: Record<string, number> = {}
  for (const item of cases.filter((c) => /bomb|too-large|too-many/.test(c.name))) {
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
  results.bombs = times
  const worst = Math.max(...Object.values(times))
  rows.push({task: 'bombs refused (worst of ' + Object.keys(times).length + ')', ours: `${worst} ms`, theirs: '-', ratio: '-', target: '< 100 ms'})
}

/** The 1, 5 and 15-minute load averages. */
function loadAverage(): number[] {
  return loadavg().map((value) => Number(value.toFixed(2)))
}

async function main(): Promise<void> {
  await mkdir(benchDir, {recursive: true})
  const work = path.join(benchDir, 'work')
  await rm(work, {recursive: true, force: true})
  await mkdir(work, {recursive: true})
  // The machine may be shared: the load when the run started and ended says how much the figures can be trusted.
  const load = {start: loadAverage(), end: [] as number[]}
  results.loadAverage = load
  log('generating the plugin tree (cached in .bench/)…')
  const tree = await ensureBenchTree(benchDir)
  log(`tree: ${tree.files} files, ${(tree.bytes / 1048576).toFixed(0)} MiB`)
  results.tree = tree
  if (runs('validate')) await benchValidate(path.join(repoRoot, 'fixtures', 'example-plugin', 'manifest.json'))
  if (runs('pack') || runs('verify') || runs('install')) {
    const packed = await benchPack(tree.root, work)
    if (runs('verify') || runs('install')) {
      const signed = path.join(work, 'signed.svcPlugin')
      const trustFile = await signBenchArtifact(packed, signed, work)
      if (runs('verify')) await benchVerify(signed, trustFile, tree.root)
      if (runs('install')) await benchInstall(signed, trustFile, work)
    }
  }
  if (runs('pack-small')) await benchPackSmall(work)
  if (runs('bombs')) await benchBombs(work)
  load.end = loadAverage()
  await writeFile(path.join(benchDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`)
  const widths = [32, 22, 22, 18, 26]
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' ')
  process.stdout.write(`${line(['task', 'svc-plugin', 'standard tool', 'ratio', 'target'])}\n`)
  for (const row of rows) process.stdout.write(`${line([row.task, row.ours, row.theirs, row.ratio, row.target])}\n`)
  process.stdout.write(`load average (1, 5, 15 min): ${load.start.join(' ')} at the start, ${load.end.join(' ')} at the end\n`)
}

await main()
