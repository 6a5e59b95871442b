import {createHash} from 'node:crypto'
import {certificateMessage, issueCertificate, type IssueCertificateOptions, type KeyUsage, type SubjectKind} from '../../src/pki/certificate.js'
import {generateKeyPair, sign} from '../../src/pki/ed25519.js'
import type {KeyPair} from '../../src/pki/keys.js'
import {createRoot} from '../../src/pki/trust.js'
import type {TrustStore} from '../../src/pki/trust.js'

/** The clock every signing test runs at, unless a case says otherwise. */
export const testNow = new Date('2030-06-01T12:00:00Z')
export const validFrom = '2030-01-01T00:00:00Z'
export const validTo = '2031-01-01T00:00:00Z'

/** A root, its trust store, and a package certificate issued directly by it. */
export interface TestPki {
  rootKeyId: string
  root: KeyPair
  trust: TrustStore
  signer: KeyPair
  certificate: {json: Uint8Array; sig: string}
}

/** A `creator` package certificate for `com.example`, valid through 2030, issued by `root` for `subjectPublicKey`. */
export function packageCertificate(root: {rootKeyId: string; root: {privateKey: Uint8Array}}, subjectPublicKey: Uint8Array): {json: Uint8Array; sig: string} {
  const issued = issueCertificate({
    subject: {kind: 'creator', id: 'com.example', name: 'Example Labs'},
    subjectPublicKey,
    keyUsage: 'package',
    notBefore: validFrom,
    notAfter: validTo,
    signerPrivateKey: root.root.privateKey,
    rootKeyId: root.rootKeyId,
    now: testNow,
  })
  return {json: issued.certificateJson, sig: issued.certificateSig}
}

/** A fresh root and a `creator` package certificate for `com.example` valid through 2030. */
export function createPki(options: {rootKeyId?: string} = {}): TestPki {
  const {rootKeyId, keyPair: root, trustStore: trust} = createRoot(options.rootKeyId ?? 'root_test')
  const signer = generateKeyPair()
  return {rootKeyId, root, trust, signer, certificate: packageCertificate({rootKeyId, root}, signer.publicKey)}
}

/** Issues a certificate for a fresh key under `signerPrivateKey`, with overridable fields. */
export function issueFor(
  signerPrivateKey: Uint8Array,
  rootKeyId: string,
  overrides: Partial<Omit<IssueCertificateOptions, 'subject'>> & {kind?: SubjectKind; id?: string; usage?: KeyUsage} = {},
): {keyPair: KeyPair; files: {json: Uint8Array; sig: string}} {
  const keyPair = generateKeyPair()
  const issued = issueCertificate({
    subject: {kind: overrides.kind ?? ({package: 'creator', registry: 'service', issuer: 'issuer'} as const)[overrides.usage ?? 'package'], id: overrides.id ?? 'com.example', name: 'Example Labs'},
    subjectPublicKey: overrides.subjectPublicKey ?? keyPair.publicKey,
    keyUsage: overrides.usage ?? 'package',
    notBefore: overrides.notBefore ?? validFrom,
    notAfter: overrides.notAfter ?? validTo,
    signerPrivateKey,
    rootKeyId,
    issuerCertificate: overrides.issuerCertificate,
    now: testNow,
  })
  return {keyPair, files: {json: issued.certificateJson, sig: issued.certificateSig}}
}

/** `sha256:` + hex of `bytes`, the digest format of files[] and of the archive reader. */
export function sha256Of(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

/** A small plugin: its payload files and a packed manifest with a complete files[]. */
export function samplePlugin(options: {publisherId?: string | null; extraManifest?: Record<string, unknown>} = {}): {manifest: Uint8Array; payload: Map<string, Uint8Array>} {
  const payload = new Map<string, Uint8Array>([
    ['assets/icon.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4])],
    ['runtimes/linux-x64/weather-station', new Uint8Array(Buffer.from('#!binary linux\n'))],
    ['runtimes/win-x64/WeatherStation.exe', new Uint8Array(Buffer.from('MZ windows binary'))],
    ['Localization/Strings.resx', new Uint8Array(Buffer.from('<root/>\n'))],
  ])
  const publisher = options.publisherId === null ? {name: 'Example Labs'} : {name: 'Example Labs', id: options.publisherId ?? 'com.example'}
  const files = [...payload]
    .map(([path, bytes]) => ({path, sha256: sha256Of(bytes), size: bytes.length}))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
  const manifest = {
    manifestVersion: 1,
    id: 'com.example.weather-station',
    name: 'Weather Station',
    version: '1.4.2',
    publisher,
    entrypoints: {
      'linux-x64': {executable: 'runtimes/linux-x64/weather-station'},
      'win-x64': {executable: 'runtimes/win-x64/WeatherStation.exe'},
    },
    ...options.extraManifest,
    files,
  }
  return {manifest: new Uint8Array(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)), payload}
}

/** Size and digest of every payload file, as the archive reader reports them. */
export function digestsOf(files: ReadonlyMap<string, Uint8Array>): Map<string, {size: number; sha256: string}> {
  return new Map([...files].map(([name, bytes]) => [name, {size: bytes.length, sha256: sha256Of(bytes)}]))
}

/**
 * Writes certificate JSON with any fields (valid or not) and signs it with `signerPrivateKey`, the
 * way a careless or hostile issuer could: the library's issuer refuses such certificates.
 */
export function craftCertificate(fields: Record<string, unknown>, signerPrivateKey: Uint8Array): {json: Uint8Array; sig: string} {
  const json = new Uint8Array(Buffer.from(`${JSON.stringify(fields, null, 2)}\n`))
  return {json, sig: Buffer.from(sign(certificateMessage(json), signerPrivateKey)).toString('base64')}
}

/** The fields of a parsed certificate, for crafting variants of it. */
export function fieldsOf(files: {json: Uint8Array}): Record<string, unknown> {
  return JSON.parse(Buffer.from(files.json).toString('utf8')) as Record<string, unknown>
}
