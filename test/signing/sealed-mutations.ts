import {mkdtemp, readdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {install} from '../../src/install/install.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import {account, writeSignedUpload} from '../store/uploads.js'
import {fieldsOf, type Mutation} from './byte-mutations.js'
import {createPki, testNow, type TestPki} from './pki.js'

/**
 * The property of an artifact that carries `containerDigest`: no byte of it can change and still be
 * accepted. Every mutant (a bit flipped, a byte inserted, a byte deleted, anywhere: headers, names, data,
 * central directory, end record) must be refused by all three verifiers a host or a store runs:
 * `verifyArtifact` (not Trusted), `verifyUpload` (not accepted) and `install` (throws, and nothing is
 * installed in its data root).
 */

const pluginId = 'com.example.weather-station'

/** A publishable upload signed by `signArtifact` (container included), its bytes and the field of each byte. */
export interface SealedOriginal {
  dir: string
  file: string
  bytes: Buffer
  fields: string[]
  pki: TestPki
  remove: () => Promise<void>
}

/**
 * Signs the publishable plugin of the store tests, with one text file that deflates (so the artifact has
 * stored and deflated payload, the stored signed manifest and the certificate entries), into a fresh folder.
 */
export async function sealedOriginal(): Promise<SealedOriginal> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-sealed-'))
  const pki = createPki()
  const notes = new Uint8Array(Buffer.from('Readings every minute; averages every hour.\n'.repeat(12)))
  const file = await writeSignedUpload(path.join(dir, 'original.svcPlugin'), pki, {extraFiles: new Map([['docs/notes.txt', notes]])})
  const bytes = await readFile(file)
  return {dir, file, bytes, fields: fieldsOf(bytes), pki, remove: () => rm(dir, {recursive: true, force: true})}
}

/** A mutation that deletes the byte at `offset`. */
export const remove = (offset: number): Mutation => ({
  label: `delete at ${offset}`,
  adds: false,
  apply: (original) => Buffer.concat([original.subarray(0, offset), original.subarray(offset + 1)]),
})

/** How the three verifiers judged one file. */
export interface Judgement {
  /** The verdict of verifyArtifact and its deciding code (null when Trusted). */
  artifact: {verdict: string; code: string | null}
  upload: {accepted: boolean; codes: string[]}
  /** The code install threw, or null when it installed. */
  install: string | null
}

/** Judges `file` with verifyArtifact, verifyUpload and install (into `dataRoot`), as a host and a store would. */
export async function judgeEverywhere(original: SealedOriginal, file: string, dataRoot: string): Promise<Judgement> {
  const verified = await verifyArtifact(file, {trust: original.pki.trust, now: testNow})
  const uploaded = await verifyUpload(file, {account, trust: original.pki.trust, now: testNow})
  let installed: string | null = null
  try {
    await install(file, {dataRoot, hostRid: 'linux-x64', trust: original.pki.trust, now: testNow})
  } catch (error) {
    installed = (error as {code?: string}).code ?? String(error)
  }
  return {
    artifact: {verdict: verified.verdict, code: verified.problems[0]?.code ?? null},
    upload: {accepted: uploaded.accepted, codes: uploaded.problems.filter((problem) => problem.severity === 'error').map((problem) => problem.code)},
    install: installed,
  }
}

/** True when the data root holds an installed version of the plugin (then it is removed, for the next mutant). */
async function installedAnything(dataRoot: string): Promise<boolean> {
  const plugin = path.join(dataRoot, 'plugins', pluginId)
  const versions = await readdir(path.join(plugin, 'versions')).catch(() => [])
  const current = await stat(path.join(plugin, 'current.json')).then(() => true, () => false)
  if (versions.length === 0 && !current) return false
  await rm(plugin, {recursive: true, force: true})
  return true
}

/** What a run over mutants found: how many were tried, how many each verifier refused, and every acceptance. */
export interface SealedReport {
  tried: number
  refused: {verifyArtifact: number; verifyUpload: number; install: number}
  /** Every mutant some verifier accepted, with which one. */
  violations: string[]
}

/** Runs every mutation over one scratch file and data root and checks that all three verifiers refuse each. */
export async function checkSealedMutations(original: SealedOriginal, mutations: Iterable<Mutation>): Promise<SealedReport> {
  const file = path.join(original.dir, 'mutant.svcPlugin')
  const dataRoot = path.join(original.dir, 'data')
  const report: SealedReport = {tried: 0, refused: {verifyArtifact: 0, verifyUpload: 0, install: 0}, violations: []}
  for (const mutation of mutations) {
    const mutant = mutation.apply(original.bytes)
    if (mutant.equals(original.bytes)) throw new Error(`${mutation.label} does not change the artifact`)
    await writeFile(file, mutant)
    const judged = await judgeEverywhere(original, file, dataRoot)
    report.tried++
    const installed = await installedAnything(dataRoot)
    if (judged.artifact.verdict !== 'Trusted') report.refused.verifyArtifact++
    else report.violations.push(`${mutation.label}: verifyArtifact says Trusted`)
    if (!judged.upload.accepted) report.refused.verifyUpload++
    else report.violations.push(`${mutation.label}: verifyUpload accepts it`)
    if (judged.install !== null && !installed) report.refused.install++
    else report.violations.push(`${mutation.label}: install ${judged.install === null ? 'installed it' : `threw ${judged.install} but left a version installed`}`)
  }
  return report
}
