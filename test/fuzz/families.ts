/**
 * The target families: how each generates a case from a seed and which library calls it runs the case
 * through, with what the oracle demands of each call.
 * - `manifest`: a manifest document through validateManifest at every level (with and without a package
 *   content snapshot), readManifest, and every report format.
 * - `archive`: an archive mutant through openArchive + digestEntries, validateArtifact, inspect,
 *   verifyArtifact, verifyUpload and merge with a valid per-RID package.
 * - `install`: an archive mutant installed into a fresh data root, unsigned allowed and with a trust store.
 */
import {mkdir, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import {openArchive} from '../../src/archive/reader.js'
import {inspect} from '../../src/inspect/inspect.js'
import {install} from '../../src/install/install.js'
import type {PackageContent} from '../../src/manifest/content.js'
import {levels} from '../../src/manifest/levels.js'
import {readManifest} from '../../src/manifest/read-manifest.js'
import type {ValidationReport} from '../../src/manifest/report.js'
import {validateArtifact} from '../../src/artifact/validate-artifact.js'
import {validateManifest} from '../../src/manifest/validate.js'
import {merge} from '../../src/merge/merge.js'
import {renderReport, reportFormats} from '../../src/report/render.js'
import {artifactDigestOf} from '../../src/artifact/artifact-digest.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import {archiveMutationArb, describeMutation, mutateArchive, type ArchiveMutation} from './archive-mutants.js'
import {documentArb, type ManifestDocument} from './manifest-documents.js'
import {attempt, badResult, checkReport, checkUpload, checkVerification, type TargetFinding} from './oracle.js'
import {prepareArchiveSeeds, prepareManifestSeeds, type ArchiveSeeds, type ManifestSeeds} from './seeds.js'
import {freeFormBytes} from '../helpers/zip-model.js'

/** One generated case. */
export interface FuzzCase<Extra = unknown> {
  /** How it was made, for a finding. */
  label: string
  input: Uint8Array
  /** The file name its input is saved under. */
  inputName: string
  /** What else the targets need (a content snapshot, the seed it came from). */
  extra: Extra
}

/** How a family runs its cases. */
export interface RunContext {
  /** A directory of its own for the case's files, emptied between cases by the family itself. */
  work: string
  /** Per library call. */
  timeoutMs: number
}

/** A target family: prepares its seeds once, generates cases from case seeds, runs them through its targets. */
export interface Family<Seeds = any, Extra = any> {
  name: FamilyName
  /** Families with the same key share one preparation (the archive seeds serve archive and install). */
  seedsKey: string
  prepare(work: string): Promise<Seeds>
  generate(seeds: Seeds, caseSeed: number, unbiased: boolean): FuzzCase<Extra>
  run(seeds: Seeds, fuzzCase: FuzzCase<Extra>, context: RunContext): Promise<TargetFinding[]>
}

export const familyNames = ['manifest', 'archive', 'install'] as const
export type FamilyName = (typeof familyNames)[number]

/** One value of `arbitrary` for a case seed (fast-check's own generator, so the value is the same on every run). */
function generateOne<T>(arbitrary: fc.Arbitrary<T>, caseSeed: number, unbiased: boolean): T {
  return fc.sample(arbitrary, {seed: caseSeed, numRuns: 1, unbiased})[0] as T
}

const renderOptions = {toolVersion: '0.0.0-fuzz', cwd: '/'}

/** How the text format is asked for. */
interface TextStyle {
  color: boolean
  errorsOnly: boolean
}

/** Every report format over `report`: each a string, JSON and SARIF parseable. */
async function checkRenderings(target: string, report: ValidationReport, timeoutMs: number, style: TextStyle): Promise<TargetFinding[]> {
  const findings: TargetFinding[] = []
  for (const format of reportFormats) {
    const call = `renderReport(${format}) of ${target}`
    const rendered = await attempt(call, () => renderReport(report, format, {...renderOptions, ...style}), timeoutMs)
    if (rendered.outcome === 'finding') findings.push(rendered.finding)
    else if (rendered.outcome === 'refused') findings.push(badResult(`renderReport(${format})`, 'a renderer refused a report', rendered.error.code))
    else if (typeof rendered.value !== 'string') findings.push(badResult(`renderReport(${format})`, 'a renderer returned no string', typeof rendered.value))
    else if (format === 'json' || format === 'sarif') {
      try {
        JSON.parse(rendered.value)
      } catch (error) {
        findings.push(badResult(`renderReport(${format})`, 'the output is not JSON', (error as Error).message))
      }
    }
  }
  return findings
}

/** A report's shape and its renderings. */
async function checkReportCall(target: string, report: ValidationReport, timeoutMs: number, style: TextStyle): Promise<TargetFinding[]> {
  const shape = checkReport(target, report)
  return shape.length > 0 ? shape : checkRenderings(target, report, timeoutMs, style)
}

// ---------------------------------------------------------------------------------------------
// manifest

interface ManifestFamilySeeds extends ManifestSeeds {
  cases: fc.Arbitrary<{document: ManifestDocument; edit: ContentEdit}>
}

interface ManifestExtra {
  content: PackageContent
  style: TextStyle
}

/** Names a package may hold that a rule might look up on a plain object. */
const contentNames = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty', 'assets/__proto__', 'manifest.json', 'runtimes/linux-x64/weather-station', 'assets/icon.png', 'Assets/Icon.png', 'caf\u00e9', 'cafe\u0301']

/** The package content a document is judged against (its seed's, or none), with files added; and the text style. */
const contentEditArb = fc.record({
  kind: fc.constantFrom<PackageContent['kind']>('directory', 'artifact', 'installed'),
  source: fc.constantFrom('seed', 'empty'),
  added: fc.array(fc.record({name: fc.constantFrom(...contentNames), size: fc.constantFrom(0, 1, 261, 2 ** 32, Number.MAX_SAFE_INTEGER), digest: fc.constantFrom('0', 'f')}), {maxLength: 3}),
  style: fc.record({color: fc.boolean(), errorsOnly: fc.boolean()}),
})
type ContentEdit = typeof contentEditArb extends fc.Arbitrary<infer T> ? T : never

const manifestFamily: Family<ManifestFamilySeeds, ManifestExtra> = {
  name: 'manifest',
  seedsKey: 'manifest',
  async prepare(work) {
    const seeds = await prepareManifestSeeds(work)
    return {...seeds, cases: fc.record({document: documentArb(seeds.seeds), edit: contentEditArb})}
  },
  generate(seeds, caseSeed, unbiased) {
    const {document, edit} = generateOne(seeds.cases, caseSeed, unbiased)
    const files = new Map(edit.source === 'empty' ? [] : seeds.contents[document.seed ?? 0]!.files)
    for (const {name, size, digest} of edit.added) files.set(name, {size, sha256: `sha256:${digest.repeat(64)}`})
    const contentLabel = `content: ${edit.kind}, ${edit.source}${edit.added.length === 0 ? '' : ` + ${edit.added.map((file) => file.name).join(', ')}`}`
    return {label: `${document.label}; ${contentLabel}`, input: document.bytes, inputName: 'manifest.json', extra: {content: {kind: edit.kind, files}, style: edit.style}}
  },
  async run(_seeds, fuzzCase, {timeoutMs}) {
    const bytes = fuzzCase.input
    const {content, style} = fuzzCase.extra
    const findings: TargetFinding[] = []
    const reports: Array<[string, ValidationReport]> = []
    const call = async (target: string, validate: () => ValidationReport): Promise<void> => {
      const outcome = await attempt(target, validate, timeoutMs)
      if (outcome.outcome === 'finding') findings.push(outcome.finding)
      else if (outcome.outcome === 'refused') findings.push(badResult(target, 'validation threw instead of reporting', `${outcome.error.code}: ${outcome.error.message}`))
      else reports.push([target, outcome.value])
    }
    for (const level of levels) {
      await call(`validateManifest(${level})`, () => validateManifest(bytes, {level}))
      await call(`validateManifest(${level}, content)`, () => validateManifest(bytes, {level, content, subjectKind: content.kind}))
    }
    await call('readManifest', () => readManifestReport('readManifest', bytes, {}, findings))
    await call('readManifest(expect)', () => readManifestReport('readManifest(expect)', bytes, {expect: {id: 'com.example.weather-station', version: '1.4.2'}}, findings))
    for (const [target, report] of reports) findings.push(...(await checkReportCall(target, report, timeoutMs, style)))
    return findings
  },
}

/** readManifest's report, after checking that it hands out the manifest exactly when the report is valid. */
function readManifestReport(target: string, bytes: Uint8Array, options: Parameters<typeof readManifest>[1], findings: TargetFinding[]): ValidationReport {
  const read = readManifest(bytes, options)
  if ((read.manifest !== null) !== read.report.valid) findings.push(badResult(target, 'the manifest is handed out exactly when the report is valid', `valid ${read.report.valid}`))
  return read.report
}

// ---------------------------------------------------------------------------------------------
// archives

interface ArchiveExtra {
  seed: number
}

interface ArchiveFamilySeeds extends ArchiveSeeds {
  mutants: fc.Arbitrary<{seed: number; mutations: ArchiveMutation[]}>
}

/** Manifests put into archives: small ones, so that an archive case stays fast. */
const maxEmbeddedManifestBytes = 64 * 1024

async function prepareArchiveFamily(work: string): Promise<ArchiveFamilySeeds> {
  const seeds = await prepareArchiveSeeds(work)
  const manifests = await prepareManifestSeeds(work)
  const documents = documentArb(manifests.seeds)
    .map((document) => document.bytes)
    .filter((bytes) => bytes.length <= maxEmbeddedManifestBytes)
  const index = (name: string): number => seeds.seeds.findIndex((seed) => seed.name === name)
  const hostile = seeds.seeds.flatMap((seed, i) => (seed.name.startsWith('hostile:') ? [i] : []))
  const seedArb = fc.oneof(
    {weight: 8, arbitrary: fc.constant(index('example-signed'))},
    {weight: 1, arbitrary: fc.constant(index('example-large-signed'))},
    {weight: 2, arbitrary: fc.constant(index('example'))},
    {weight: 2, arbitrary: fc.constant(index('merge-input'))},
    {weight: 1, arbitrary: fc.constant(index('hostile-base'))},
    {weight: 3, arbitrary: fc.constantFrom(...hostile)},
  )
  return {...seeds, mutants: fc.record({seed: seedArb, mutations: fc.array(archiveMutationArb(documents), {minLength: 1, maxLength: 4})})}
}

function generateMutant(seeds: ArchiveFamilySeeds, caseSeed: number, unbiased: boolean): FuzzCase<ArchiveExtra> {
  const {seed, mutations} = generateOne(seeds.mutants, caseSeed, unbiased)
  const base = seeds.seeds[seed]!
  return {label: `${base.name} with ${mutations.map(describeMutation).join(', ')}`, input: mutateArchive(base.bytes, mutations), inputName: 'artifact.svcPlugin', extra: {seed}}
}

/** Writes the case's archive into the family's work directory. */
async function caseFile(fuzzCase: FuzzCase, work: string): Promise<string> {
  await mkdir(work, {recursive: true})
  const file = path.join(work, 'case.svcPlugin')
  await writeFile(file, fuzzCase.input)
  return file
}

/**
 * The oracle for a Trusted verdict (or an accepted upload, or a Trusted install): only a mutant of the
 * signed seed may get one, its canonical digest must be the seed's, and it may carry no more bytes that
 * no signature covers (extra fields, comments, directory-entry data, unaccounted bytes) than the seed.
 * Header fields of fixed size and a re-encoded deflate stream of the same content may differ.
 */
function trustedOracle(seeds: ArchiveSeeds, fuzzCase: FuzzCase<ArchiveExtra>, file: string, timeoutMs: number): (via: string) => Promise<TargetFinding[]> {
  let checked: Promise<Array<Omit<TargetFinding, 'target'>>> | undefined
  const check = async (): Promise<Array<Omit<TargetFinding, 'target'>>> => {
    const kind = 'unsigned-mutation-verifies' as const
    const {name, bytes, signed} = seeds.seeds[fuzzCase.extra.seed]!
    if (signed === null) return [{kind, message: `a mutant of the unsigned seed ${name} verifies Trusted`, signature: `${kind} unsigned-seed`}]
    const digest = await attempt('artifactDigestOf', () => artifactDigestOf(file), timeoutMs)
    if (digest.outcome !== 'result') {
      const why = digest.outcome === 'refused' ? `${digest.error.code}: ${digest.error.message}` : digest.finding.message
      return [{kind, message: `a Trusted mutant's canonical digest cannot be computed (${why})`, signature: `${kind} digest-unreadable`}]
    }
    if (digest.value.sha256 !== signed.digest) {
      return [{kind, message: `a Trusted mutant of ${name} has the canonical digest ${digest.value.sha256}, not the signed ${signed.digest}`, signature: `${kind} digest-changed`}]
    }
    const free = freeFormBytes(Buffer.from(fuzzCase.input))
    if (free === null) {
      return fuzzCase.input.length === bytes.length ? [] : [{kind, message: `a Trusted mutant of ${name} that does not split into records has ${fuzzCase.input.length} bytes, the signed artifact ${bytes.length}`, signature: `${kind} size-changed`}]
    }
    if (free.total <= signed.freeFormBytes) return []
    // One finding per place the bytes hide in: each is its own way past the signature.
    const breakdown = (['directoryData', 'extraFields', 'comments', 'unaccounted'] as const).filter((key) => free[key] > 0)
    return breakdown.map((key) => ({
      kind,
      message: `a Trusted mutant of ${name} carries ${free.total} bytes no signature covers (${breakdown.map((each) => `${each} ${free[each]}`).join(', ')}); the signed artifact ${signed.freeFormBytes}`,
      signature: `${kind} ${key}`,
    }))
  }
  return async (via) => (await (checked ??= check())).map((finding) => ({...finding, target: via}))
}

const archiveFamily: Family<ArchiveFamilySeeds, ArchiveExtra> = {
  name: 'archive',
  seedsKey: 'archive',
  prepare: prepareArchiveFamily,
  generate: generateMutant,
  async run(seeds, fuzzCase, {work, timeoutMs}) {
    const file = await caseFile(fuzzCase, work)
    const findings: TargetFinding[] = []
    const trusted = trustedOracle(seeds, fuzzCase, file, timeoutMs)

    const digests = await attempt(
      'openArchive+digestEntries',
      async () => {
        const archive = await openArchive(file)
        try {
          return {entries: archive.entries.length, digests: await archive.digestEntries()}
        } finally {
          await archive.close()
        }
      },
      timeoutMs,
    )
    if (digests.outcome === 'finding') findings.push(digests.finding)
    else if (digests.outcome === 'result') {
      const {entries, digests: map} = digests.value
      if (map.size !== entries) findings.push(badResult('openArchive+digestEntries', 'one digest per entry', `${map.size} digests, ${entries} entries`))
      for (const [name, digest] of map) {
        if (!Number.isSafeInteger(digest.size) || digest.size < 0 || !/^sha256:[0-9a-f]{64}$/.test(digest.sha256)) findings.push(badResult('openArchive+digestEntries', 'a digest is a size and a sha256', name))
      }
    }

    for (const level of ['package', 'publication'] as const) {
      const target = `validateArtifact(${level})`
      const report = await attempt(target, () => validateArtifact(file, {level}), timeoutMs)
      if (report.outcome === 'finding') findings.push(report.finding)
      else if (report.outcome === 'result') findings.push(...(await checkReportCall(target, report.value, timeoutMs, {color: false, errorsOnly: false})))
    }

    const inspection = await attempt('inspect', () => inspect(file), timeoutMs)
    if (inspection.outcome === 'finding') findings.push(inspection.finding)

    const verification = await attempt('verifyArtifact', () => verifyArtifact(file, {trust: seeds.trust, now: seeds.now}), timeoutMs)
    if (verification.outcome === 'finding') findings.push(verification.finding)
    else if (verification.outcome === 'result') {
      findings.push(...checkVerification('verifyArtifact', verification.value))
      if (verification.value.verdict === 'Trusted') findings.push(...(await trusted('verifyArtifact')))
    }

    const upload = await attempt('verifyUpload', () => verifyUpload(file, {account: seeds.account, trust: seeds.trust, now: seeds.now}), timeoutMs)
    if (upload.outcome === 'finding') findings.push(upload.finding)
    else if (upload.outcome === 'result') {
      findings.push(...checkUpload('verifyUpload', upload.value))
      if (upload.value.verdict === 'Trusted') findings.push(...(await trusted('verifyUpload')))
    }

    const output = path.join(work, 'merged.svcPlugin')
    const merged = await attempt('merge', () => merge([file, seeds.mergePartner], {output, force: true}), timeoutMs)
    if (merged.outcome === 'finding') findings.push(merged.finding)
    await rm(output, {force: true})
    return findings
  },
}

// ---------------------------------------------------------------------------------------------
// install

/** What a refused install may not leave in a data root: a version directory, an active version, a journal, staging leftovers. */
const leftoverPattern = /^plugins\/(?:[^/]+\/versions\/[^/]+|[^/]+\/current\.json|[^/]+\/\.transaction\.json|_staging\/.+)$/

async function leftovers(root: string): Promise<string[]> {
  const found: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let names: string[]
    try {
      names = await readdir(dir)
    } catch {
      return
    }
    for (const name of names) {
      const relative = prefix === '' ? name : `${prefix}/${name}`
      if (leftoverPattern.test(relative)) found.push(relative)
      else await walk(path.join(dir, name), relative)
    }
  }
  await walk(root, '')
  return found.sort()
}

const installFamily: Family<ArchiveFamilySeeds, ArchiveExtra> = {
  name: 'install',
  seedsKey: 'archive',
  prepare: prepareArchiveFamily,
  generate: generateMutant,
  async run(seeds, fuzzCase, {work, timeoutMs}) {
    const file = await caseFile(fuzzCase, work)
    const findings: TargetFinding[] = []
    const trusted = trustedOracle(seeds, fuzzCase, file, timeoutMs)
    const modes = {
      'install(allowUnsigned)': {allowUnsigned: true},
      'install(trust)': {trust: seeds.trust},
    }
    for (const [target, mode] of Object.entries(modes)) {
      const dataRoot = await mkdtemp(path.join(work, 'data-'))
      const installed = await attempt(target, () => install(file, {dataRoot, hostRid: 'linux-x64', now: seeds.now, ...mode}), timeoutMs)
      if (installed.outcome === 'finding') findings.push(installed.finding)
      else if (installed.outcome === 'refused') {
        const left = await leftovers(dataRoot)
        if (left.length > 0) {
          findings.push({target, kind: 'data-root-dirty', message: `${target} refused the artifact (${installed.error.code}) but left ${left.join(', ')}`, signature: `data-root-dirty ${installed.error.code}`})
        }
      } else {
        const result = installed.value
        if (typeof result?.id !== 'string' || typeof result.version !== 'string' || (result.verdict !== 'Trusted' && result.verdict !== 'Unsigned')) {
          findings.push(badResult(target, 'an install result has an id, a version and an admitted verdict', JSON.stringify({id: result?.id, verdict: result?.verdict})))
        }
        if (result?.verdict === 'Trusted') findings.push(...(await trusted(target)))
      }
      await rm(dataRoot, {recursive: true, force: true})
    }
    return findings
  },
}

/** Every family by name. */
export const families: Readonly<Record<FamilyName, Family>> = {manifest: manifestFamily, archive: archiveFamily, install: installFamily}
