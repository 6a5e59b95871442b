import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {cp, mkdir, readFile, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {Readable} from 'node:stream'
import {install} from '../../src/install/install.js'
import type {InstallResult} from '../../src/install/types.js'
import {verifyInstalled, type InstalledVerification} from '../../src/install/verify-installed.js'
import {merge, type MergeResult} from '../../src/merge/merge.js'
import {pack, type PackResult} from '../../src/pack/pack.js'
import {signArtifact, type SignArtifactResult} from '../../src/signing/sign-artifact.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import type {VerificationResult} from '../../src/signing/result.js'
import type {UploadReport} from '../../src/store/report.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import type {ValidationReport} from '../../src/manifest/report.js'
import {validatePath} from '../../src/validate/validate-path.js'
import type {AbortCase} from '../helpers/abort-points.js'
import {createSigner, defaultPayload, snapshotTree as snapshotDataRoot, writeArtifact as writeInstallArtifact, type TestSigner} from '../install/helpers/artifacts.js'
import {noise, packRids} from '../merge/fixtures.js'
import {copyExample, snapshotTree, writeTree} from '../pack/support.js'
import {writeArtifact} from '../signing/artifacts.js'
import {account} from '../store/uploads.js'
import {createPki, samplePlugin, sha256Of, testNow, type TestPki} from '../signing/pki.js'

/**
 * The operations under the abort-point property (test/helpers/abort-points.ts), each over inputs large
 * enough to pass every kind of abort point: entries of several 1 MiB chunks (deflated on the thread pool,
 * and stored), small entries, several folders, the secret scan's text.
 */

/** Deterministic text that deflates well: several deflate chunks, each one a job of the thread pool. */
export function compressibleText(bytes: number): string {
  const words = ['station', 'pressure', 'humidity', 'wind', 'reading', 'sensor', 'interval', 'forecast']
  const lines: string[] = []
  let length = 0
  for (let index = 0; length < bytes; index++) {
    const line = `${index} ${words[index % words.length]} ${words[(index * 7) % words.length]} ${(index * 31) % 997}\n`
    lines.push(line)
    length += line.length
  }
  return lines.join('').slice(0, bytes)
}

/**
 * How large the added files are: `full` for the exhaustive suite (an entry of three deflate chunks, one of
 * two stored chunks), `sample` for `npm test` (two deflate chunks, one small stored entry).
 */
export type CaseSize = 'full' | 'sample'

let size: CaseSize = 'full'

/** Sets the size of the files the cases add (see {@link CaseSize}). */
export function setCaseSize(next: CaseSize): void {
  size = next
}

/** The files added to a plugin so that its operations pass every kind of abort point. */
export function largeFiles(): Record<string, string | Buffer> {
  const mib = 1024 * 1024
  return {
    'assets/data/readings.txt': compressibleText(size === 'full' ? 2.5 * mib : 1.1 * mib),
    'assets/data/blob.bin': noise('blob', size === 'full' ? 1.5 * mib : 64 * 1024),
    'assets/data/notes/today.txt': 'Nothing to report.\n',
  }
}

async function sha256OfFile(file: string): Promise<string> {
  return createHash('sha256').update(await readFile(file)).digest('hex')
}

/** `pack` of the example plugin with large files, into a folder it creates two levels deep. */
export async function packCase(dir: string): Promise<AbortCase<PackResult>> {
  const source = await copyExample(path.join(dir, 'source'))
  await writeTree(source, largeFiles())
  const out = path.join(dir, 'out')
  await mkdir(out)
  const output = path.join(out, 'new', 'deeper', 'plugin.svcPlugin')
  const reference = await pack(source, {output: path.join(dir, 'reference.svcPlugin')})
  const sourceBefore = await snapshotTree(source)
  return {
    run: (signal) => pack(source, {output, signal}),
    unchanged: async () => {
      assert.deepEqual(await readdir(out), [])
      assert.deepEqual(await snapshotTree(source), sourceBefore)
    },
    whole: async (result) => {
      assert.equal(result.sha256, reference.sha256)
      assert.equal(await sha256OfFile(output), reference.sha256)
      assert.deepEqual(await readdir(path.dirname(output)), ['plugin.svcPlugin'])
    },
    reset: () => rm(path.join(out, 'new'), {recursive: true, force: true}),
  }
}

/** `merge` of two per-RID packages (one of them with large files) into a folder it creates. */
export async function mergeCase(dir: string): Promise<AbortCase<MergeResult>> {
  const inputs = [await packRids(dir, ['linux-x64'], {files: largeFiles()}), await packRids(dir, ['win-x64'], {files: largeFiles()})]
  const inputDigests = await Promise.all(inputs.map(sha256OfFile))
  const out = path.join(dir, 'out')
  await mkdir(out)
  const output = path.join(out, 'new', 'merged.svcPlugin')
  const reference = await merge(inputs, {output: path.join(dir, 'reference.svcPlugin')})
  return {
    run: (signal) => merge(inputs, {output, signal}),
    unchanged: async () => {
      assert.deepEqual(await readdir(out), [])
      assert.deepEqual(await Promise.all(inputs.map(sha256OfFile)), inputDigests)
    },
    whole: async (result) => {
      assert.equal(result.sha256, reference.sha256)
      assert.equal(await sha256OfFile(output), reference.sha256)
    },
    reset: () => rm(path.join(out, 'new'), {recursive: true, force: true}),
  }
}

/** An unsigned packed artifact of the sample plugin with large files, for sign and verify. */
async function unsignedLargeSample(file: string): Promise<string> {
  const {manifest, payload} = samplePlugin()
  for (const [name, content] of Object.entries(largeFiles())) payload.set(name, new Uint8Array(Buffer.from(content)))
  const document = JSON.parse(Buffer.from(manifest).toString('utf8')) as {files: {path: string; sha256: string; size: number}[]}
  document.files = [...payload]
    .map(([name, bytes]) => ({path: name, sha256: sha256Of(bytes), size: bytes.length}))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
  return writeArtifact(file, {manifest: new Uint8Array(Buffer.from(`${JSON.stringify(document, null, 2)}\n`)), entries: payload})
}

/** What the signing cases share: a PKI and an unsigned artifact. */
export interface SigningInputs {
  pki: TestPki
  unsigned: string
}

/** The PKI and the unsigned artifact of the signing cases. */
export async function signingInputs(dir: string): Promise<SigningInputs> {
  return {pki: createPki(), unsigned: await unsignedLargeSample(path.join(dir, 'unsigned.svcPlugin'))}
}

/** `signArtifact` into a folder it creates: a cancellation while it reads its output back removes it too. */
export async function signCase(dir: string, {pki, unsigned}: SigningInputs): Promise<AbortCase<SignArtifactResult>> {
  const inputDigest = await sha256OfFile(unsigned)
  const out = path.join(dir, 'out')
  await mkdir(out)
  const output = path.join(out, 'new', 'signed.svcPlugin')
  const options = {artifact: unsigned, privateKey: pki.signer.privateKey, certificate: pki.certificate, now: testNow}
  const reference = await signArtifact({...options, output: path.join(dir, 'reference.svcPlugin')})
  const referenceDigest = await sha256OfFile(reference.output)
  return {
    run: (signal) => signArtifact({...options, output, signal}),
    unchanged: async () => {
      assert.deepEqual(await readdir(out), [])
      assert.equal(await sha256OfFile(unsigned), inputDigest)
    },
    whole: async (result) => {
      assert.equal(result.artifactDigest, reference.artifactDigest)
      assert.equal(await sha256OfFile(output), referenceDigest)
    },
    reset: () => rm(path.join(out, 'new'), {recursive: true, force: true}),
  }
}

/** `verifyArtifact` of the signed sample: a cancelled verification gives no verdict and changes nothing. */
export async function verifyCase(dir: string, {pki, unsigned}: SigningInputs): Promise<AbortCase<VerificationResult>> {
  const signed = (await signArtifact({artifact: unsigned, privateKey: pki.signer.privateKey, certificate: pki.certificate, now: testNow, output: path.join(dir, 'verify.svcPlugin')})).output
  const digest = await sha256OfFile(signed)
  return {
    run: (signal) => verifyArtifact(signed, {trust: pki.trust, now: testNow, signal}),
    unchanged: async () => assert.equal(await sha256OfFile(signed), digest),
    whole: async (result) => assert.equal(result.verdict, 'Trusted'),
    reset: async () => undefined,
  }
}

/** The spool folders of uploads given as bytes or streams, in the system's temporary folder. */
async function spools(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('svc-plugin-spool-')).sort()
}

/**
 * `verifyUpload` of the signed sample, from its path or as a stream (spooled to a temporary file first, in
 * 256 KiB chunks): a cancelled verification gives no report and leaves no temporary file.
 */
export async function verifyUploadCase(dir: string, {pki, unsigned}: SigningInputs, source: 'path' | 'stream'): Promise<AbortCase<UploadReport>> {
  const signed = (await signArtifact({artifact: unsigned, privateKey: pki.signer.privateKey, certificate: pki.certificate, now: testNow, output: path.join(dir, 'upload.svcPlugin')})).output
  const bytes = await readFile(signed)
  const chunks = Array.from({length: Math.ceil(bytes.length / (256 * 1024))}, (_, index) => bytes.subarray(index * 256 * 1024, (index + 1) * 256 * 1024))
  const before = await spools()
  return {
    run: (signal) => verifyUpload(source === 'path' ? signed : Readable.from(chunks), {account, trust: pki.trust, now: testNow, label: signed, signal}),
    unchanged: async () => assert.deepEqual(await spools(), before),
    // The sample declares no license and no icon: refused at publication level, with a Trusted signature.
    whole: async (report) => {
      assert.equal(report.verdict, 'Trusted')
      assert.equal(report.id, 'com.example.weather-station')
      assert.deepEqual(await spools(), before)
    },
    reset: async () => undefined,
  }
}

/** `validatePath` at package level of a folder (its content read, digested and scanned) or of its packed artifact. */
export async function validateCase(dir: string, kind: 'directory' | 'artifact'): Promise<AbortCase<ValidationReport>> {
  const source = await copyExample(path.join(dir, 'source'))
  await writeTree(source, largeFiles())
  const subject = kind === 'directory' ? {directory: source} : {artifact: (await pack(source, {output: path.join(dir, 'plugin.svcPlugin')})).path}
  const reference = await validatePath(subject, {level: 'package'})
  const before = await snapshotTree(dir)
  return {
    run: (signal) => validatePath(subject, {level: 'package', signal}),
    unchanged: async () => assert.deepEqual(await snapshotTree(dir), before),
    whole: async (report) => assert.deepEqual(report, reference),
    reset: async () => undefined,
  }
}

/** The plugin the install cases install: version 1.0.0 is in the data root, 1.1.0 (with large files) comes. */
export interface DataRootInputs {
  signer: TestSigner
  /** A data root holding 1.0.0, copied afresh for every run. */
  pristine: string
  /** Its snapshot (every path, every file's size and digest). */
  before: Map<string, string>
  /** 1.1.0. */
  artifact: string
}

/** The plugin the install cases install. */
export const pluginId = 'com.example.cancel'

/** A data root with 1.0.0 of the plugin installed, and the artifact of 1.1.0. */
export async function dataRootInputs(dir: string): Promise<DataRootInputs> {
  const signer = createSigner()
  const pristine = path.join(dir, 'pristine')
  const first = await writeInstallArtifact(path.join(dir, 'v1.svcPlugin'), {id: pluginId, version: '1.0.0', signer})
  await install(first, {dataRoot: pristine, trust: signer.trust, now: signer.now, hostRid: 'linux-x64'})
  const payload = {...defaultPayload(pluginId), ...Object.fromEntries(Object.entries(largeFiles()).map(([name, content]) => [name, typeof content === 'string' ? content : new Uint8Array(content)]))}
  const artifact = await writeInstallArtifact(path.join(dir, 'v2.svcPlugin'), {id: pluginId, version: '1.1.0', signer, payload})
  return {signer, pristine, before: await snapshotDataRoot(pristine), artifact}
}

/** The data root the install case of `dir` installs into. */
export function installDataRoot(dir: string): string {
  return path.join(dir, 'data-root')
}

// What an install makes of an empty data root before it touches a plugin: its layout's two directories (or
// the first), which stay as any refused install leaves them (empty, and holding no plugin).
const emptyLayout = new Map([
  ['plugins', 'dir'],
  ['plugins/_staging', 'dir'],
])

/**
 * `install` of 1.1.0 over 1.0.0 (`update`) or into an empty data root (`first`): a cancelled install leaves
 * the data root exactly as it was (an empty one with at most its empty layout), its lock given up and no
 * staging directory left.
 */
export function installCase(dir: string, inputs: DataRootInputs, from: 'update' | 'first' = 'update'): AbortCase<InstallResult> {
  const dataRoot = installDataRoot(dir)
  const options = {dataRoot, trust: inputs.signer.trust, now: inputs.signer.now, hostRid: 'linux-x64'}
  return {
    run: async (signal) => {
      if (from === 'update') await cp(inputs.pristine, dataRoot, {recursive: true})
      else await mkdir(dataRoot)
      return install(inputs.artifact, {...options, signal})
    },
    unchanged: async () => {
      const after = await snapshotDataRoot(dataRoot)
      if (from === 'update') assert.deepEqual(after, inputs.before)
      else assert.ok([...after].every(([name, kind]) => emptyLayout.get(name) === kind), JSON.stringify([...after]))
    },
    whole: async (result) => {
      assert.deepEqual([result.version, result.previousVersion, result.verdict], ['1.1.0', from === 'update' ? '1.0.0' : null, 'Trusted'])
      const check = await verifyInstalled(dataRoot, pluginId, options)
      assert.deepEqual([check.version, check.valid], ['1.1.0', true], JSON.stringify(check.problems))
    },
    reset: () => rm(dataRoot, {recursive: true, force: true}),
  }
}

/** `verifyInstalled` of 1.0.0: a cancelled check gives no verification and changes nothing. */
export function verifyInstalledCase(inputs: DataRootInputs): AbortCase<InstalledVerification> {
  const options = {trust: inputs.signer.trust, now: inputs.signer.now, hostRid: 'linux-x64'}
  return {
    run: (signal) => verifyInstalled(inputs.pristine, pluginId, {...options, signal}),
    unchanged: async () => assert.deepEqual(await snapshotDataRoot(inputs.pristine), inputs.before),
    whole: async (check) => assert.deepEqual([check.version, check.valid], ['1.0.0', true], JSON.stringify(check.problems)),
    reset: async () => undefined,
  }
}
