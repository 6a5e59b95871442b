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
import {freeFormBytes} from './zip.js'

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
  /** The signed example artifact: a Trusted verdict on its mutants is checked against its digest. */
  signed: boolean
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
  /** The signed seed's canonical digest (hex) and size, and the bytes no signature covers in it. */
  signedDigest: string
  signedSize: number
  signedFreeFormBytes: number
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

  const unsigned = (await pack(examplePlugin, {output: path.join(dir, 'example.svcPlugin')})).path
  const signed = (await signArtifact({artifact: unsigned, output: path.join(dir, 'example-signed.svcPlugin'), privateKey: signerKey, certificate, now: testNow})).output
  const [mergeInput, mergePartner] = await perRidPackages(dir)
  const base = path.join(dir, 'hostile-base.svcPlugin')
  await makeBaseArchive(base)

  const seeds: ArchiveSeed[] = [
    {name: 'example-signed', bytes: await readFile(signed), signed: true},
    {name: 'example', bytes: await readFile(unsigned), signed: false},
    {name: 'merge-input', bytes: await readFile(mergeInput), signed: false},
    {name: 'hostile-base', bytes: await readFile(base), signed: false},
  ]
  const hostileDir = path.join(dir, 'hostile')
  for (const item of await makeHostileArchives(hostileDir)) {
    if ((await stat(item.file)).size <= maxHostileSeedBytes) seeds.push({name: `hostile:${item.name}`, bytes: await readFile(item.file), signed: false})
  }
  // The corpus holds a sparse 540 MiB file and bombs; only the small seeds are kept (in memory).
  await rm(hostileDir, {recursive: true, force: true})

  const signedBytes = seeds[0]!.bytes
  return {
    seeds,
    trust,
    now: testNow,
    account: {name: 'Example Labs', id: 'com.example'},
    signedDigest: (await artifactDigestOf(signed)).sha256,
    signedSize: signedBytes.length,
    signedFreeFormBytes: freeFormBytes(signedBytes)?.total ?? 0,
    mergePartner,
  }
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
