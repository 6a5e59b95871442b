/**
 * Builds the worked examples of docs/signing.md and docs/revocation.md with the library, from fixed
 * seeds, ids and times, and prints every value the documents quote. `--write` replaces the blocks in the
 * documents. test/docs/worked-example.test.ts compares the documents with what this builds.
 *
 *   npx tsx scripts/docs-example.ts            print the blocks
 *   npx tsx scripts/docs-example.ts --write    update docs/signing.md and docs/revocation.md in place
 */
import {containerClaim, containerRanges} from '../src/artifact/container.js'
import {withArtifact} from '../src/artifact/open.js'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {pack} from '../src/pack/pack.js'
import {base64Line, encodeBase64} from '../src/pki/base64.js'
import {certificateMessage, parseCertificate} from '../src/pki/certificate.js'
import {computeArtifactDigest, sha256Hex, signatureMessage} from '../src/artifact/digest.js'
import {publicKeyOf, sign} from '../src/pki/ed25519.js'
import {createRevocationList, publicKeyFingerprint, revoke, type RevocationList} from '../src/revocation/list.js'
import {signArtifact} from '../src/signing/sign-artifact.js'
import type {TrustStore} from '../src/pki/trust.js'

/** The fixed inputs of the worked example. */
export const exampleInputs = {
  /** The root's 32-byte private seed. */
  rootSeedHex: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
  rootKeyId: 'root_example',
  /** The publisher's 32-byte private seed. */
  publisherSeedHex: '202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f',
  certificateId: 'cert_0123456789abcdef0123456789abcdef',
  subject: {kind: 'creator', id: 'com.example', name: 'Example Labs'},
  notBefore: '2030-01-01T00:00:00Z',
  notAfter: '2031-01-01T00:00:00Z',
  issuedAt: '2029-12-15T09:30:00Z',
  /** The signer's clock; signedAt is this instant. */
  signedAt: '2030-06-01T12:00:00Z',
  /** The plugin source folder: manifest.json and three files. */
  sourceManifest: `${JSON.stringify(
    {
      manifestVersion: 1,
      id: 'com.example.hello',
      name: 'Hello',
      version: '1.0.0',
      publisher: {name: 'Example Labs', id: 'com.example'},
      entrypoints: {'linux-x64': {executable: 'bin/hello'}},
    },
    null,
    2,
  )}\n`,
  /** Source files: document block name, path, content. */
  sourceFiles: [
    {block: 'file-hello', path: 'bin/hello', content: 'hello world executable placeholder\n'},
    {block: 'file-strings', path: 'Localization/Strings.resx', content: '<root/>\n'},
    {block: 'file-readme', path: 'README.md', content: '# Hello\n'},
  ],
  /** The first revocation list: the example certificate superseded from this instant. */
  firstList: {issuedAt: '2030-07-01T00:00:00Z', nextUpdate: '2030-07-08T00:00:00Z', revokedAt: '2030-07-01T00:00:00Z'},
  /** The second list: the publisher key revoked for key-compromise, signed at this instant (nextUpdate by default). */
  secondList: {issuedAt: '2030-07-03T00:00:00Z'},
} as const

/** Every value the document quotes, by block name; each text is the exact content of its fenced block. */
export type ExampleBlocks = Map<string, string>

/** What the worked example produced, besides the document blocks (for the end-to-end test). */
export interface WorkedExample {
  /** The blocks of docs/signing.md. */
  blocks: ExampleBlocks
  /** The blocks of docs/revocation.md. */
  revocationBlocks: ExampleBlocks
  /** The two revocation lists of docs/revocation.md. */
  revocationLists: [RevocationList, RevocationList]
  rootSeed: Uint8Array
  publisherSeed: Uint8Array
  trustStore: TrustStore
  certificate: {json: Uint8Array; sig: string}
  signedAt: Date
  /** Writes the plugin source folder into `dir`. */
  writeSource(dir: string): Promise<void>
}

/** What the example reads back from the signed file: the manifest, the certificate entries, where the zeroed ranges lie. */
interface SealedManifest {
  manifest: Uint8Array
  chainEntries: Map<string, Uint8Array>
  /** The four ranges the container digest zeroes, one line each: what, first byte, last byte (file offsets). */
  ranges: string
}

/** Reads the signed artifact's manifest, certificate entries and container ranges, found as a verifier finds them. */
async function readSealedManifest(file: string): Promise<SealedManifest> {
  return withArtifact(file, {}, async (artifact) => {
    const entry = artifact.archive.get('manifest.json')!
    const manifest = artifact.manifest!.bytes
    const chainEntries = new Map<string, Uint8Array>()
    for (const name of ['certificate.json', 'certificate.sig']) chainEntries.set(name, await artifact.archive.readEntry(artifact.archive.get(name)!))
    const location = artifact.archive.locate(entry)
    const [hex, value, localCrc, centralCrc] = containerRanges(containerClaim(manifest)!, location)
    const lines = [
      `manifest.json: local header at ${location.localHeader}, data at ${location.data} (${manifest.length} bytes, stored), central record at ${location.centralRecord}`,
      ...([['containerDigest hex digits', hex], ['signature value', value], ['CRC-32 in the local header', localCrc], ['CRC-32 in the central record', centralCrc]] as const).map(
        ([what, range]) => `${what}: bytes ${range!.start} to ${range!.start + range!.length - 1} (${range!.length})`,
      ),
      `file: ${artifact.size} bytes`,
    ]
    return {manifest, chainEntries, ranges: `${lines.join('\n')}\n`}
  })
}

/**
 * The certificate JSON of the example, written by hand in the layout `issueCertificate` uses
 * (2-space indent, members in the documented order, one `\n` at the end), so that its id and times are fixed.
 */
export function exampleCertificateJson(publicKeyBase64: string): string {
  const {certificateId, subject, notBefore, notAfter, issuedAt, rootKeyId} = exampleInputs
  return [
    '{',
    '  "schemaVersion": 1,',
    `  "certificateId": "${certificateId}",`,
    '  "subject": {',
    `    "kind": "${subject.kind}",`,
    `    "id": "${subject.id}",`,
    `    "name": "${subject.name}"`,
    '  },',
    '  "algorithm": "ed25519",',
    `  "publicKey": "${publicKeyBase64}",`,
    '  "keyUsage": [',
    '    "package"',
    '  ],',
    `  "notBefore": "${notBefore}",`,
    `  "notAfter": "${notAfter}",`,
    `  "issuedAt": "${issuedAt}",`,
    `  "rootKeyId": "${rootKeyId}"`,
    '}',
    '',
  ].join('\n')
}

/** Builds the worked example with the library: a hand-written certificate signed by the root, `pack` and `sign` to real files. */
export async function buildWorkedExample(): Promise<WorkedExample> {
  const inputs = exampleInputs
  const rootSeed = new Uint8Array(Buffer.from(inputs.rootSeedHex, 'hex'))
  const publisherSeed = new Uint8Array(Buffer.from(inputs.publisherSeedHex, 'hex'))
  const rootPublic = publicKeyOf(rootSeed)
  const publisherPublic = publicKeyOf(publisherSeed)
  const trustStore: TrustStore = {roots: [{rootKeyId: inputs.rootKeyId, publicKey: encodeBase64(rootPublic)}]}

  const certificateJson = new Uint8Array(Buffer.from(exampleCertificateJson(encodeBase64(publisherPublic)), 'utf8'))
  // Refuse to document a certificate the library would not read.
  parseCertificate(certificateJson)
  const certificateSig = encodeBase64(sign(certificateMessage(certificateJson), rootSeed))

  const writeSource = async (dir: string): Promise<void> => {
    await writeFile(path.join(dir, 'manifest.json'), inputs.sourceManifest)
    for (const file of inputs.sourceFiles) {
      await mkdir(path.dirname(path.join(dir, file.path)), {recursive: true})
      await writeFile(path.join(dir, file.path), file.content)
    }
  }

  // Packed and signed as real files, as `pack` and `sign` do: the container digest is a digest of a file.
  const scratch = await mkdtemp(path.join(tmpdir(), 'svc-plugin-docs-example-'))
  let packedManifest: Uint8Array
  let payload: ReadonlyMap<string, {size: number; sha256: string}>
  let signed: Awaited<ReturnType<typeof signArtifact>>
  let sealed: SealedManifest
  try {
    const source = path.join(scratch, 'source')
    await mkdir(source)
    await writeSource(source)
    const packed = await pack(source, {cwd: scratch, output: path.join(scratch, 'packed.svcPlugin')})
    packedManifest = packed.manifest
    payload = packed.digests
    signed = await signArtifact({
      artifact: packed.path,
      output: path.join(scratch, 'signed.svcPlugin'),
      privateKey: publisherSeed,
      certificate: {json: certificateJson, sig: certificateSig},
      now: new Date(inputs.signedAt),
    })
    sealed = await readSealedManifest(signed.output)
  } finally {
    await rm(scratch, {recursive: true, force: true})
  }

  const signedText = Buffer.from(sealed.manifest).toString('utf8')
  const trailerAt = signedText.lastIndexOf(',"signature":{"algorithm":"')
  const signatureValue = /"value":"([^"]+)"/.exec(signedText.slice(trailerAt))?.[1] ?? ''
  const unsigned = Buffer.from(`${signedText.slice(0, trailerAt)}}`, 'utf8')

  // P and the signature message, as the signer built them, rebuilt here only to print them:
  // signArtifact returns SHA-256(P), and the test checks that this text hashes to it.
  const files = new Map(payload)
  for (const [name, bytes] of sealed.chainEntries) files.set(name, {size: bytes.length, sha256: `sha256:${sha256Hex(bytes)}`})
  const digest = computeArtifactDigest({unsignedManifest: unsigned, files})
  if (digest.sha256 !== signed.artifactDigest) throw new Error('The rebuilt digest text does not hash to the digest the signer signed.')
  const message = signatureMessage({keyId: signed.certificateId, signedAt: signed.signedAt, artifactDigestHex: digest.sha256})

  const line = (text: string): string => `${text}\n`
  const blocks: ExampleBlocks = new Map([
    ['root-seed', line(inputs.rootSeedHex)],
    ['root-key-file', base64Line(rootSeed)],
    ['root-public-key-file', base64Line(rootPublic)],
    ['trust-store', `${JSON.stringify(trustStore, null, 2)}\n`],
    ['publisher-seed', line(inputs.publisherSeedHex)],
    ['publisher-key-file', base64Line(publisherSeed)],
    ['publisher-public-key-file', base64Line(publisherPublic)],
    ['certificate-json', Buffer.from(certificateJson).toString('utf8')],
    ['certificate-sig', Buffer.from(sealed.chainEntries.get('certificate.sig') as Uint8Array).toString('utf8')],
    ['source-manifest', inputs.sourceManifest],
    ...inputs.sourceFiles.map((file): [string, string] => [file.block, file.content]),
    ['packed-manifest', Buffer.from(packedManifest).toString('utf8')],
    ['digest-text', digest.text],
    ['digest-sha256', line(digest.sha256)],
    ['signature-message', message],
    ['signature-value', line(signatureValue)],
    ['trailer', signedText.slice(trailerAt)],
    ['signed-manifest', signedText],
    ['container-digest', line(signed.containerDigest.slice('sha256:'.length))],
    ['container-ranges', sealed.ranges],
  ])

  // docs/revocation.md: the certificate superseded, then the publisher key revoked for key-compromise.
  const fingerprint = publicKeyFingerprint(publisherPublic)
  const first = createRevocationList({
    rootKeyId: inputs.rootKeyId,
    rootPrivateKey: rootSeed,
    entries: [{kind: 'certificate', value: inputs.certificateId, reason: 'superseded', revokedAt: inputs.firstList.revokedAt}],
    now: new Date(inputs.firstList.issuedAt),
    nextUpdate: inputs.firstList.nextUpdate,
  })
  const second = revoke(first, {kind: 'key', value: fingerprint, reason: 'key-compromise'}, rootSeed, {now: new Date(inputs.secondList.issuedAt)})
  const revocationBlocks: ExampleBlocks = new Map([
    ['publisher-key-fingerprint', line(fingerprint)],
    ['artifact-digest', line(`sha256:${digest.sha256}`)],
    ['list-1-json', Buffer.from(first.json).toString('utf8')],
    ['list-1-sig', line(first.sig)],
    ['list-2-json', Buffer.from(second.json).toString('utf8')],
    ['list-2-sig', line(second.sig)],
  ])
  return {
    blocks,
    revocationBlocks,
    revocationLists: [{json: first.json, sig: first.sig}, {json: second.json, sig: second.sig}],
    rootSeed,
    publisherSeed,
    trustStore,
    certificate: {json: certificateJson, sig: certificateSig},
    signedAt: new Date(inputs.signedAt),
    writeSource,
  }
}

const blockPattern = /<!-- example:([a-z0-9-]+) -->\n```[a-z]*\n([\s\S]*?)```\n<!-- \/example:\1 -->/g

/** The content of every `<!-- example:NAME -->` fenced block of a document, by name. */
export function readDocumentBlocks(document: string): ExampleBlocks {
  const blocks: ExampleBlocks = new Map()
  for (const match of document.matchAll(blockPattern)) blocks.set(match[1] as string, match[2] as string)
  return blocks
}

/** The document with each named block's content replaced; throws when a block is missing. */
export function replaceDocumentBlocks(document: string, blocks: ExampleBlocks, name = 'the document'): string {
  const seen = new Set<string>()
  const updated = document.replace(blockPattern, (whole, name: string, _content: string) => {
    const value = blocks.get(name)
    if (value === undefined) return whole
    seen.add(name)
    const fence = whole.slice(whole.indexOf('```'), whole.indexOf('\n', whole.indexOf('```')))
    return `<!-- example:${name} -->\n${fence}\n${value}\`\`\`\n<!-- /example:${name} -->`
  })
  const missing = [...blocks.keys()].filter((name) => !seen.has(name))
  if (missing.length > 0) throw new Error(`${name} has no block for: ${missing.join(', ')}.`)
  return updated
}

/** A document of docs/ (`signing.md`, `revocation.md`), found from this file whether it runs from scripts/ or dist/scripts/. */
export function docPath(name: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (let i = 0; i < 4; i++) {
    const candidate = path.join(dir, 'docs', name)
    if (existsSync(candidate)) return candidate
    dir = path.dirname(dir)
  }
  throw new Error(`docs/${name} not found above this script.`)
}

/** docs/signing.md (see {@link docPath}). */
export function signingDocPath(): string {
  return docPath('signing.md')
}

async function main(): Promise<void> {
  const example = await buildWorkedExample()
  const documents: [string, ExampleBlocks][] = [
    ['signing.md', example.blocks],
    ['revocation.md', example.revocationBlocks],
  ]
  for (const [name, blocks] of documents) {
    if (process.argv.includes('--write')) {
      const file = docPath(name)
      await writeFile(file, replaceDocumentBlocks(await readFile(file, 'utf8'), blocks, `docs/${name}`))
      process.stderr.write(`Updated ${blocks.size} blocks in ${file}.\n`)
      continue
    }
    process.stdout.write(`docs/${name}:\n\n`)
    for (const [block, value] of blocks) process.stdout.write(`<!-- example:${block} -->\n\`\`\`\n${value}\`\`\`\n<!-- /example:${block} -->\n\n`)
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`)
    process.exitCode = 1
  })
}
