import {createHash} from 'node:crypto'
import {mkdir, readFile, readdir, lstat, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {writeArchive, type WriterEntry} from '../../../src/archive/writer.js'
import type {FileDigest} from '../../../src/model/manifest.js'
import {base64Line} from '../../../src/pki/base64.js'
import {issueCertificate} from '../../../src/pki/certificate.js'
import {generateKeyPair} from '../../../src/pki/ed25519.js'
import type {KeyPair} from '../../../src/pki/keys.js'
import {computeArtifactDigest, signatureMessage} from '../../../src/artifact/digest.js'
import {sign} from '../../../src/pki/ed25519.js'
import {signContents} from '../../../src/signing/sign.js'
import {manifestRead} from '../../../src/artifact/contents.js'
import {appendSignatureTrailer, unsignedManifestOf} from '../../../src/artifact/trailer.js'
import {createRoot, type TrustStore} from '../../../src/pki/trust.js'

/** The clock signed test artifacts are made and installed at. */
export const testNow = new Date('2030-06-01T12:00:00Z')

/** A root, its trust store and a package certificate for `com.example` valid through 2030. */
export interface TestSigner {
  trust: TrustStore
  keyPair: KeyPair
  certificate: {json: Uint8Array; sig: string}
  certificateId: string
  /** The signing time of everything this signer signs. */
  now: Date
  /** The root that certified this signer, to certify another subject under it. */
  root: {rootKeyId: string; keyPair: KeyPair; trustStore: TrustStore}
}

const day = 24 * 60 * 60 * 1000

/**
 * A fresh root and a package signing certificate under it, valid from a day before `now` (default
 * {@link testNow}) to a year after; artifacts are signed at `now`.
 */
export function createSigner(
  options: {rootKeyId?: string; usage?: 'package' | 'registry'; now?: Date; subject?: {kind: 'creator' | 'organization' | 'service'; id: string; name: string}; sameRootAs?: TestSigner} = {},
): TestSigner {
  const now = new Date(Math.floor((options.now ?? testNow).getTime() / 1000) * 1000)
  const {rootKeyId, keyPair: root, trustStore: trust} = options.sameRootAs?.root ?? createRoot(options.rootKeyId ?? 'root_install')
  const keyPair = generateKeyPair()
  const issued = issueCertificate({
    subject: options.subject ?? {kind: options.usage === 'registry' ? 'service' : 'creator', id: 'com.example', name: 'Example Labs'},
    subjectPublicKey: keyPair.publicKey,
    keyUsage: options.usage ?? 'package',
    notBefore: new Date(now.getTime() - day),
    notAfter: new Date(now.getTime() + 365 * day),
    signerPrivateKey: root.privateKey,
    rootKeyId,
    now,
  })
  return {trust, keyPair, certificate: {json: issued.certificateJson, sig: issued.certificateSig}, certificateId: issued.certificate.certificateId, now, root: {rootKeyId, keyPair: root, trustStore: trust}}
}

/** What a test artifact holds. */
export interface ArtifactSpec {
  id?: string
  version?: string
  /** Merged over the default manifest; a member set to `undefined` is removed. */
  manifest?: Record<string, unknown>
  /** Payload files by entry name; default one executable for linux-x64 and a text file. */
  payload?: Record<string, string | Uint8Array>
  /** `files[]`: computed from the payload (default), left out, or exactly this list. */
  files?: 'complete' | 'none' | FileDigest[]
  /** Sign with this certificate (the payload must then be fully listed). */
  signer?: TestSigner
  /**
   * Sign from the primitives, without the signer's checks (a certificate of the wrong purpose, a signing
   * time outside its validity, a corrupted signature value).
   */
  forge?: {signedAt?: string; corrupt?: boolean; algorithm?: string}
  /** Entries added to the archive after signing and listing (tampering). */
  extraEntries?: Record<string, string | Uint8Array>
}

/** `sha256:` + hex. */
export function sha256Of(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

function bytesOf(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? new Uint8Array(Buffer.from(content, 'utf8')) : content
}

/** The default payload of a plugin named by the last segment of its id. */
export function defaultPayload(id: string): Record<string, string> {
  const name = id.split('.').pop() as string
  return {[`runtimes/linux-x64/${name}`]: `ELF ${id}\n`, 'assets/readme.txt': `About ${id}\n`}
}

/** The manifest a spec produces (before `files[]` and signing). */
export function manifestOf(spec: ArtifactSpec): Record<string, unknown> {
  const id = spec.id ?? 'com.example.alpha'
  const name = id.split('.').pop() as string
  const manifest: Record<string, unknown> = {
    manifestVersion: 1,
    id,
    name: `Plugin ${name}`,
    version: spec.version ?? '1.0.0',
    publisher: {name: 'Example Labs', id: 'com.example'},
    entrypoints: {'linux-x64': {executable: `runtimes/linux-x64/${name}`, arguments: ['--serve']}},
  }
  for (const [key, value] of Object.entries(spec.manifest ?? {})) {
    if (value === undefined) delete manifest[key]
    else manifest[key] = value
  }
  return manifest
}

/**
 * Writes a `.svcPlugin` with the archive writer: manifest.json (2-space JSON with a complete `files[]`
 * unless told otherwise), the payload, and the certificate files when signed.
 */
export async function writeArtifact(file: string, spec: ArtifactSpec = {}): Promise<string> {
  const manifest = manifestOf(spec)
  const payload = new Map(Object.entries(spec.payload ?? defaultPayload(manifest['id'] as string)).map(([name, content]) => [name, bytesOf(content)]))
  const digests = new Map([...payload].map(([name, bytes]) => [name, {size: bytes.byteLength, sha256: sha256Of(bytes)}]))
  const files = spec.files ?? 'complete'
  if (files === 'complete') {
    manifest['files'] = [...digests]
      .map(([name, digest]) => ({path: name, sha256: digest.sha256, size: digest.size}))
      .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
  } else if (files !== 'none') {
    manifest['files'] = files
  }
  let manifestBytes = new Uint8Array(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`))
  const entries = new Map(payload)
  if (spec.signer !== undefined && spec.forge !== undefined) {
    const chain = chainEntries(spec.signer)
    for (const [name, bytes] of Object.entries(chain)) entries.set(name, bytes)
    const files = new Map([...entries].map(([name, bytes]) => [name, {size: bytes.byteLength, sha256: sha256Of(bytes)}]))
    const digest = computeArtifactDigest({unsignedManifest: unsignedManifestOf(manifestBytes), files})
    const signedAt = spec.forge.signedAt ?? spec.signer.now.toISOString().replace(/\.\d{3}Z$/, 'Z')
    const message = Buffer.from(signatureMessage({keyId: spec.signer.certificateId, signedAt, artifactDigestHex: digest.sha256}), 'utf8')
    const value = Buffer.from(sign(message, spec.signer.keyPair.privateKey))
    if (spec.forge.corrupt === true) value[0] = (value[0] as number) ^ 1
    manifestBytes = new Uint8Array(appendSignatureTrailer(manifestBytes, {algorithm: spec.forge.algorithm ?? 'ed25519', keyId: spec.signer.certificateId, value: value.toString('base64'), signedAt}))
  } else if (spec.signer !== undefined) {
    const signed = signContents(
      {manifest: manifestRead(manifestBytes), files: digests, signingFiles: new Map()},
      {privateKey: spec.signer.keyPair.privateKey, certificate: spec.signer.certificate, now: spec.signer.now},
    )
    manifestBytes = new Uint8Array(signed.manifest)
    for (const [name, bytes] of signed.chainEntries) entries.set(name, bytes)
  }
  for (const [name, content] of Object.entries(spec.extraEntries ?? {})) entries.set(name, bytesOf(content))
  const sorted = [...entries].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
  const writerEntries: WriterEntry[] = [
    {name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(manifestBytes)}},
    ...sorted.map(([name, data]): WriterEntry => ({name, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(data)}})),
  ]
  await mkdir(path.dirname(file), {recursive: true})
  await writeArchive(file, writerEntries)
  return file
}

/** Certificate files as archive entries (for artifacts signed by hand). */
export function chainEntries(signer: TestSigner): Record<string, Uint8Array> {
  return {
    'certificate.json': signer.certificate.json,
    'certificate.sig': new Uint8Array(Buffer.from(base64Line(Buffer.from(signer.certificate.sig, 'base64')))),
  }
}

/** Every path under `root` with its type and, for files, size and digest: compared before and after an operation. */
export async function snapshotTree(root: string, options: {exclude?: (relative: string) => boolean} = {}): Promise<Map<string, string>> {
  const listing = new Map<string, string>()
  const walk = async (dir: string, prefix: string): Promise<void> => {
    let names: string[]
    try {
      names = (await readdir(dir)).sort()
    } catch {
      return
    }
    for (const name of names) {
      const relative = prefix === '' ? name : `${prefix}/${name}`
      if (options.exclude?.(relative) === true) continue
      const full = path.join(dir, name)
      const info = await lstat(full)
      if (info.isDirectory()) {
        listing.set(relative, 'dir')
        await walk(full, relative)
      } else if (info.isFile()) {
        listing.set(relative, `file ${info.size} ${sha256Of(await readFile(full))}`)
      } else {
        listing.set(relative, 'other')
      }
    }
  }
  await walk(root, '')
  return listing
}

/** Writes `content` at `relative` under `root`, creating directories. */
export async function putFile(root: string, relative: string, content: string | Uint8Array): Promise<void> {
  const file = path.join(root, ...relative.split('/'))
  await mkdir(path.dirname(file), {recursive: true})
  await writeFile(file, content)
}

/**
 * Rewrites the uncompressed size an entry declares, in its central record and its local header alike, so
 * that the archive is consistent on its face and lies only about how much its deflate stream holds.
 */
export async function patchDeclaredSize(file: string, entryName: string, uncompressedSize: number): Promise<void> {
  const bytes = await readFile(file)
  const end = bytes.length - 22
  if (bytes.readUInt32LE(end) !== 0x06054b50) throw new Error(`${file}: no end record where expected`)
  const size = bytes.readUInt32LE(end + 12)
  const offset = bytes.readUInt32LE(end + 16)
  let patched = false
  for (let at = offset; at < offset + size; ) {
    if (bytes.readUInt32LE(at) !== 0x02014b50) throw new Error(`${file}: not a central record at ${at}`)
    const nameLength = bytes.readUInt16LE(at + 28)
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength)
    if (name === entryName) {
      bytes.writeUInt32LE(uncompressedSize, at + 24)
      const local = bytes.readUInt32LE(at + 42)
      // With a data descriptor the local header may leave its sizes zero; the descriptor then holds them.
      if (bytes.readUInt32LE(local + 22) !== 0) bytes.writeUInt32LE(uncompressedSize, local + 22)
      if ((bytes.readUInt16LE(at + 8) & 0x8) !== 0) {
        const data = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28)
        let descriptor = data + bytes.readUInt32LE(at + 20)
        if (bytes.readUInt32LE(descriptor) === 0x08074b50) descriptor += 4
        bytes.writeUInt32LE(uncompressedSize, descriptor + 8)
      }
      patched = true
    }
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32)
  }
  if (!patched) throw new Error(`${file} has no entry ${entryName}`)
  await writeFile(file, bytes)
}
