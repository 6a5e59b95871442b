import {readFile} from 'node:fs/promises'
import {openArtifact} from '../../src/artifact/open.js'
import {sign} from '../../src/pki/ed25519.js'
import type {KeyPair} from '../../src/pki/keys.js'
import {encodeBase64} from '../../src/pki/base64.js'
import {type Countersignature, countersignatureStatement, type CountersignatureStatement, type CountersignedSubject, renderCountersignature} from '../../src/signing/countersignature.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {countersignUpload, type CountersignUploadOptions} from '../../src/store/countersign.js'
import {createPki, issueFor, type TestPki, testNow} from '../signing/pki.js'
import {account, writeSignedUpload} from './uploads.js'

/** A store's `registry` certificate (subject `service` store.example) issued by the test root, and its key. */
export interface RegistryCredentials {
  keyPair: KeyPair
  files: {json: Uint8Array; sig: string}
}

/** A registry certificate under `pki`'s root, valid through 2030 unless overridden. */
export function registryOf(pki: TestPki, overrides: {notBefore?: string; notAfter?: string} = {}): RegistryCredentials {
  return issueFor(pki.root.privateKey, pki.rootKeyId, {usage: 'registry', id: 'store.example', ...overrides})
}

/** The options of `countersignUpload` for the test account, trust store, clock and registry certificate. */
export function countersignOptions(pki: TestPki, registry: RegistryCredentials, extra: object = {}): CountersignUploadOptions {
  return {account, trust: pki.trust, now: testNow, certificate: registry.files, privateKey: registry.keyPair.privateKey, ...extra} as CountersignUploadOptions
}

/** What a host checks a countersignature of `file` against: its file SHA-256, its canonical digest and publisher signature. */
export async function subjectOf(file: string, pki: TestPki): Promise<CountersignedSubject> {
  const result = await verifyArtifact(file, {trust: pki.trust, now: testNow})
  const opened = await openArtifact(file, {fileDigest: true})
  await opened.close()
  return {fileSha256: opened.fileSha256 as string, artifactDigest: (result.artifactDigest as string).slice('sha256:'.length), publisherSignature: result.signatureValue as string}
}

/** A countersignature made by hand, with any statement: what a store (or a thief of its key) could sign. */
export function craftCountersignature(registry: RegistryCredentials, statement: CountersignatureStatement): Uint8Array {
  const signature = encodeBase64(sign(countersignatureStatement(statement), registry.keyPair.privateKey))
  const countersignature: Countersignature = {...statement, signature, certificate: registry.files.json, certificateSignature: registry.files.sig}
  return renderCountersignature(countersignature)
}

/** Two signed uploads (1.4.2 and 1.5.0) in `dir`, the first countersigned by a registry certificate of the same root. */
export async function countersignedPair(dir: string): Promise<{pki: TestPki; registry: RegistryCredentials; a: string; b: string; countersig: Uint8Array}> {
  const pki = createPki()
  const registry = registryOf(pki)
  const a = await writeSignedUpload(`${dir}/a.svcPlugin`, pki)
  const b = await writeSignedUpload(`${dir}/b.svcPlugin`, pki, {manifest: {version: '1.5.0'}})
  const written = await countersignUpload(a, countersignOptions(pki, registry))
  return {pki, registry, a, b, countersig: new Uint8Array(await readFile(written.output))}
}
