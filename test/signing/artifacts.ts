import {compareEntryNames} from '../../src/archive/names.js'
import {writeArchive, type WriterEntry} from '../../src/archive/writer.js'
import {base64Line} from '../../src/pki/base64.js'
import {computeArtifactDigest, signatureMessage} from '../../src/artifact/digest.js'
import {sign} from '../../src/pki/ed25519.js'
import {signContents, type SigningCredentials} from '../../src/signing/sign.js'
import {signArtifact, type SignArtifactResult} from '../../src/signing/sign-artifact.js'
import {appendSignatureTrailer, unsignedManifestOf} from '../../src/artifact/trailer.js'
import {manifestRead, type ArtifactContents} from '../../src/artifact/contents.js'
import {signingEntryNames} from '../../src/model/signing-files.js'
import {digestsOf, samplePlugin, testNow, type TestPki} from './pki.js'

/** An artifact in memory: manifest.json and every other entry by name. */
export interface Artifact {
  manifest: Uint8Array | null
  entries: Map<string, Uint8Array>
}

/** The certificate files to put beside the manifest. */
export interface Chain {
  certificate: {json: Uint8Array; sig: string}
  issuer?: {json: Uint8Array; sig: string}
}

/** Certificate files as archive entries, each `.sig` one base64 line. */
export function chainEntries(chain: Chain): Map<string, Uint8Array> {
  const line = (sig: string): Uint8Array => new Uint8Array(Buffer.from(base64Line(Buffer.from(sig, 'base64'))))
  const entries = new Map([
    ['certificate.json', chain.certificate.json],
    ['certificate.sig', line(chain.certificate.sig)],
  ])
  if (chain.issuer !== undefined) {
    entries.set('issuer.json', chain.issuer.json)
    entries.set('issuer.sig', line(chain.issuer.sig))
  }
  return entries
}

/** The sample plugin signed by the library's signer with `pki`'s certificate (or `chain` and `privateKey`). */
export async function signedSample(
  pki: TestPki,
  options: {chain?: Chain; privateKey?: Uint8Array; now?: Date; publisherId?: string | null} = {},
): Promise<Artifact> {
  const {manifest, payload} = samplePlugin({publisherId: options.publisherId})
  const chain = options.chain ?? {certificate: pki.certificate}
  const signed = signContents(
    unsignedContents(manifest, payload),
    {privateKey: options.privateKey ?? pki.signer.privateKey, certificate: chain.certificate, issuer: chain.issuer, now: options.now ?? testNow},
  )
  return {manifest: signed.manifest, entries: new Map([...payload, ...signed.chainEntries])}
}

/**
 * Signs like the library but with no checks at all, from the primitives: any key, any key id, any
 * signing time, any certificate files. Used to build artifacts the signer would refuse to make.
 */
export function forgeSigned(options: {
  packed: Uint8Array
  payload: Map<string, Uint8Array>
  chain: Chain
  privateKey: Uint8Array
  keyId: string
  signedAt: string
  algorithm?: string
  signatureValue?: (message: Uint8Array) => Uint8Array
}): Artifact {
  const entries = new Map([...options.payload, ...chainEntries(options.chain)])
  const digest = computeArtifactDigest({unsignedManifest: unsignedManifestOf(options.packed), files: digestsOf(entries)})
  const message = new Uint8Array(Buffer.from(signatureMessage({keyId: options.keyId, signedAt: options.signedAt, artifactDigestHex: digest.sha256})))
  const value = (options.signatureValue ?? ((m) => sign(m, options.privateKey)))(message)
  const manifest = appendSignatureTrailer(options.packed, {
    algorithm: options.algorithm ?? 'ed25519',
    keyId: options.keyId,
    value: Buffer.from(value).toString('base64'),
    signedAt: options.signedAt,
  })
  return {manifest, entries}
}

/** The artifact as every reader hands it on: the manifest read once, every entry's digest, the signing files' bytes. */
export function contentsOf(artifact: Artifact): ArtifactContents {
  return {
    manifest: artifact.manifest === null ? null : manifestRead(artifact.manifest),
    files: digestsOf(artifact.entries),
    signingFiles: new Map([...artifact.entries].filter(([name]) => signingEntryNames.includes(name))),
  }
}

/** An unsigned artifact's contents: a packed manifest and its payload. */
export function unsignedContents(manifest: Uint8Array, payload: Map<string, Uint8Array>): ArtifactContents {
  return contentsOf({manifest, entries: payload})
}

/** A copy of `artifact` with the manifest text transformed. */
export function withManifestText(artifact: Artifact, edit: (text: string) => string): Artifact {
  return {manifest: new Uint8Array(Buffer.from(edit(Buffer.from(artifact.manifest as Uint8Array).toString('utf8')))), entries: new Map(artifact.entries)}
}

/** A copy of `artifact` with one entry's bytes transformed (or removed when `edit` returns null). */
export function withEntry(artifact: Artifact, name: string, edit: (bytes: Uint8Array | undefined) => Uint8Array | null): Artifact {
  const entries = new Map(artifact.entries)
  const next = edit(entries.get(name))
  if (next === null) entries.delete(name)
  else entries.set(name, next)
  return {manifest: artifact.manifest, entries}
}

/** `bytes` with the byte at `index` XOR-ed with 1. */
export function flipByte(bytes: Uint8Array, index: number): Uint8Array {
  const copy = new Uint8Array(bytes)
  copy[index] = (copy[index] as number) ^ 1
  return copy
}

/**
 * Writes `artifact` as a `.svcPlugin` through the archive writer, so the ZIP itself stays valid and
 * any refusal comes from the signing layer: manifest.json first, the rest in UTF-8 byte order,
 * files under runtimes/ with mode 0755.
 */
export async function writeArtifact(file: string, artifact: Artifact): Promise<string> {
  const names = [...artifact.entries.keys()].sort(compareEntryNames)
  const entries: WriterEntry[] = names.map((name) => ({
    name,
    mode: name.startsWith('runtimes/') ? 0o755 : 0o644,
    store: false,
    source: {kind: 'buffer', data: Buffer.from(artifact.entries.get(name) as Uint8Array)},
  }))
  if (artifact.manifest !== null) entries.unshift({name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from(artifact.manifest)}})
  return (await writeArchive(file, entries)).path
}

/**
 * Signs `unsigned` the way `svc-plugin sign` does, container included: writes it packed beside `file`
 * (`<file>.packed`), then `signArtifact` writes the signed artifact to `file`.
 */
export async function writeContainerSigned(file: string, unsigned: Artifact, credentials: SigningCredentials): Promise<SignArtifactResult> {
  const packed = await writeArtifact(`${file}.packed`, unsigned)
  return signArtifact({...credentials, artifact: packed, output: file})
}
