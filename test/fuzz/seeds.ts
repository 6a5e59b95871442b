/**
 * What the fuzzer mutates: the example plugin's manifest and the diagnostic corpus; the example plugin
 * packed, signed (with keys and a certificate derived from fixed bytes, so that the signed artifact is the
 * same on every run and a seed reproduces a case exactly), split into two per-RID packages for merge;
 * and the small archives of the hostile corpus.
 */
import {createHash} from 'node:crypto'
import {cp, mkdir, readFile, rm, stat, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {makeBaseArchive, makeHostileArchives} from '../../scripts/make-hostile-archives.js'
import {readFolderContent} from '../../src/artifact/folder.js'
import type {PackageContent} from '../../src/manifest/content.js'
import {merge} from '../../src/merge/merge.js'
import {pack} from '../../src/pack/pack.js'
import {artifactDigestOf} from '../../src/artifact/artifact-digest.js'
import {issueCertificate} from '../../src/pki/certificate.js'
import {publicKeyOf} from '../../src/pki/ed25519.js'
import {signArtifact} from '../../src/signing/sign-artifact.js'
import type {TrustStore} from '../../src/pki/trust.js'
import type {UploadAccount} from '../../src/store/verify-upload.js'
import {corpusDir, casePath, loadCases} from '../fixtures/corpus.js'
import {craftCertificate, fieldsOf, testNow, validFrom, validTo} from '../signing/pki.js'
import {treeOf, type ManifestSeed} from './manifest-documents.js'
import {freeFormBytes} from '../helpers/zip-model.js'

/** The example plugin folder. */
export const examplePlugin = path.join(corpusDir, '..', 'example-plugin')

/** Manifest seeds and the package contents the content checks compare them with. */
export interface ManifestSeeds {
  seeds: ManifestSeed[]
  /** The content of each seed's folder (the example plugin's for a lone manifest file), by seed index. */
  contents: PackageContent[]
}

/** The example manifest and every corpus case (generated ones written into `work`). */
export async function prepareManifestSeeds(work: string): Promise<ManifestSeeds> {
  const exampleContent = await readFolderContent(examplePlugin, {digests: true})
  const seeds: ManifestSeed[] = []
  const contents: PackageContent[] = []
  const add = (name: string, text: Uint8Array, content: PackageContent): void => {
    let tree
    try {
      tree = treeOf(JSON.parse(Buffer.from(text).toString('utf8')))
    } catch {
      tree = undefined
    }
    seeds.push({name, text, tree})
    contents.push(content)
  }
  add('example-plugin/manifest.json', new Uint8Array(await readFile(path.join(examplePlugin, 'manifest.json'))), exampleContent)
  for (const entry of loadCases()) {
    const subject = await casePath(entry, work)
    const file = entry.kind === 'directory' ? path.join(subject, 'manifest.json') : subject
    const content = entry.kind === 'directory' ? await readFolderContent(subject, {digests: true}) : exampleContent
    add(`corpus:${entry.name}`, new Uint8Array(await readFile(file)), content)
  }
  return {seeds, contents}
}

/** One archive to mutate. */
export interface ArchiveSeed {
  name: string
  bytes: Buffer
  /**
   * For a signed seed: its canonical digest (hex) and the bytes no signature covers in it, which a
   * Trusted mutant must keep. Null for an unsigned seed, whose mutants may never be Trusted.
   */
  signed: {digest: string; freeFormBytes: number} | null
}

/** The archive seeds and everything the archive targets need. */
export interface ArchiveSeeds {
  seeds: ArchiveSeed[]
  /** The roots the signed seed chains to. */
  trust: TrustStore
  /** The clock every verification runs at (inside the certificate's validity). */
  now: Date
  /** The store account the signed seed's publisher belongs to. */
  account: UploadAccount
  /** A valid per-RID package that merges with the `merge-input` seed. */
  mergePartner: string
}

/** Private keys from fixed bytes: the signed seed is byte-for-byte the same on every run. */
const keyFrom = (label: string): Uint8Array => new Uint8Array(createHash('sha256').update(`svc-plugin fuzz ${label}`).digest())

/** The fuzzer's root (its trust store) and signing key, the same on every run. */
export function fuzzPki(): {rootKeyId: string; rootKey: Uint8Array; signerKey: Uint8Array; trust: TrustStore} {
  const rootKeyId = 'root_fuzz'
  const rootKey = keyFrom('root')
  return {rootKeyId, rootKey, signerKey: keyFrom('signer'), trust: {roots: [{rootKeyId, publicKey: Buffer.from(publicKeyOf(rootKey)).toString('base64')}]}}
}

/** The largest hostile-corpus archive used as a seed: the large ones only test limits the mutants cannot reach. */
const maxHostileSeedBytes = 64 * 1024

/**
 * A text file past the size the reader digests in one piece (1 MiB), so that mutants reach the streaming
 * path too: numbered lines with a hash each, which deflate to about a third, within the compression limit.
 */
function largeText(): string {
  const lines: string[] = []
  for (let i = 0; lines.length === 0 || i * 48 < 1.2 * 1024 * 1024; i++) lines.push(`${String(i).padStart(7, '0')} ${createHash('sha256').update(String(i)).digest('hex').slice(0, 39)}\n`)
  return lines.join('')
}

/** Packs, signs and splits the example plugin, and writes the hostile corpus, under `work`. */
export async function prepareArchiveSeeds(work: string): Promise<ArchiveSeeds> {
  const dir = path.join(work, 'archive-seeds')
  await mkdir(dir, {recursive: true})
  const {rootKeyId, rootKey, signerKey, trust} = fuzzPki()
  const issued = issueCertificate({
    subject: {kind: 'creator', id: 'com.example', name: 'Example Labs'},
    subjectPublicKey: publicKeyOf(signerKey),
    keyUsage: 'package',
    notBefore: validFrom,
    notAfter: validTo,
    signerPrivateKey: rootKey,
    rootKeyId,
    now: testNow,
  })
  // The issuer draws a random certificate id; a fixed one keeps the signed seed the same on every run.
  const certificate = craftCertificate({...fieldsOf({json: issued.certificateJson}), certificateId: `cert_${'f0'.repeat(16)}`}, rootKey)

  const sign = async (artifact: string, name: string): Promise<ArchiveSeed> => {
    const output = (await signArtifact({artifact, output: path.join(dir, `${name}.svcPlugin`), privateKey: signerKey, certificate, now: testNow})).output
    const bytes = await readFile(output)
    return {name, bytes, signed: {digest: (await artifactDigestOf(output)).sha256, freeFormBytes: freeFormBytes(bytes)?.total ?? 0}}
  }
  const unsigned = (await pack(examplePlugin, {output: path.join(dir, 'example.svcPlugin')})).path
  const largeSource = path.join(dir, 'source-large')
  await cp(examplePlugin, largeSource, {recursive: true})
  await writeFile(path.join(largeSource, 'assets', 'large.txt'), largeText())
  const large = (await pack(largeSource, {output: path.join(dir, 'example-large.svcPlugin')})).path
  const [mergeInput, mergePartner] = await perRidPackages(dir)
  const base = path.join(dir, 'hostile-base.svcPlugin')
  await makeBaseArchive(base)

  const seeds: ArchiveSeed[] = [
    await sign(unsigned, 'example-signed'),
    await sign(large, 'example-large-signed'),
    {name: 'example', bytes: await readFile(unsigned), signed: null},
    {name: 'merge-input', bytes: await readFile(mergeInput), signed: null},
    {name: 'hostile-base', bytes: await readFile(base), signed: null},
  ]
  const hostileDir = path.join(dir, 'hostile')
  for (const item of await makeHostileArchives(hostileDir)) {
    if ((await stat(item.file)).size <= maxHostileSeedBytes) seeds.push({name: `hostile:${item.name}`, bytes: await readFile(item.file), signed: null})
  }
  // The corpus holds a sparse 540 MiB file and bombs; only the small seeds are kept (in memory).
  await rm(hostileDir, {recursive: true, force: true})
  return {seeds, trust, now: testNow, account: {name: 'Example Labs', id: 'com.example'}, mergePartner}
}

/** The example plugin as two packages of one version that merge: linux-x64 and osx-arm64, and win-x64. */
async function perRidPackages(dir: string): Promise<[string, string]> {
  const manifest = JSON.parse(await readFile(path.join(examplePlugin, 'manifest.json'), 'utf8')) as Record<string, any>
  const outputs: string[] = []
  for (const [name, rids] of [['unix', ['linux-x64', 'osx-arm64']], ['windows', ['win-x64']]] as const) {
    const source = path.join(dir, `source-${name}`)
    await cp(examplePlugin, source, {recursive: true})
    for (const rid of Object.keys(manifest.entrypoints)) {
      if (!(rids as readonly string[]).includes(rid)) await rm(path.join(source, 'runtimes', rid), {recursive: true, force: true})
    }
    const entrypoints = Object.fromEntries(Object.entries(manifest.entrypoints).filter(([rid]) => (rids as readonly string[]).includes(rid)))
    // The schema reference is relative to the fixture's own folder.
    const {$schema: _, ...rest} = manifest
    await writeFile(path.join(source, 'manifest.json'), `${JSON.stringify({...rest, entrypoints}, null, 2)}\n`)
    outputs.push((await pack(source, {output: path.join(dir, `example-${name}.svcPlugin`)})).path)
  }
  // The two must merge, or mutants of one would only ever test the first refusal.
  await merge(outputs, {output: path.join(dir, 'merged.svcPlugin')})
  return outputs as [string, string]
}
