import {signContents} from '../../src/signing/sign.js'
import {type Artifact, unsignedContents, writeArtifact, writeContainerSigned} from '../signing/artifacts.js'
import {createRoot} from '../../src/pki/trust.js'
import {issueFor, sha256Of, type TestPki, testNow} from '../signing/pki.js'

/** The uploading account that matches the test PKI's certificate and the plugin's publisher. */
export const account = {name: 'Example Labs', id: 'com.example'}

/** Everything the publishable plugin carries, by path. */
function payloadFiles(): Map<string, Uint8Array> {
  return new Map<string, Uint8Array>([
    ['assets/icon.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4])],
    ['runtimes/linux-x64/weather-station', new Uint8Array(Buffer.from('#!binary linux\n'))],
    ['runtimes/win-x64/WeatherStation.exe', new Uint8Array(Buffer.from('MZ windows binary'))],
  ])
}

/**
 * A plugin with every publication field, packed: `files[]` lists exactly the payload (after `omit`), so it
 * can be signed whatever is left out or added (`extraFiles`); `manifest` overrides or adds top-level members
 * (`undefined` removes one).
 */
export function publishablePlugin(options: {omit?: string[]; manifest?: Record<string, unknown>; extraFiles?: ReadonlyMap<string, Uint8Array>} = {}): {manifest: Uint8Array; payload: Map<string, Uint8Array>} {
  const payload = payloadFiles()
  for (const name of options.omit ?? []) payload.delete(name)
  for (const [name, bytes] of options.extraFiles ?? []) payload.set(name, bytes)
  const files = [...payload]
    .map(([path, bytes]) => ({path, sha256: sha256Of(bytes), size: bytes.length}))
    .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
  const manifest: Record<string, unknown> = {
    manifestVersion: 1,
    id: 'com.example.weather-station',
    name: 'Weather Station',
    version: '1.4.2',
    description: 'Shows the weather from a local station.',
    icon: 'assets/icon.png',
    publisher: {name: 'Example Labs', id: 'com.example'},
    license: 'MIT',
    repository: 'https://github.com/example/weather-station',
    compatibility: {svc: '>=1.0.0'},
    entrypoints: {
      'linux-x64': {executable: 'runtimes/linux-x64/weather-station'},
      'win-x64': {executable: 'runtimes/win-x64/WeatherStation.exe'},
    },
    ...options.manifest,
    files,
  }
  for (const [key, value] of Object.entries(manifest)) if (value === undefined) delete manifest[key]
  return {manifest: new Uint8Array(Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)), payload}
}

/** The publishable plugin signed by `signArtifact` (container included) into `file`, at the test clock (or `now`). */
export async function writeSignedUpload(file: string, pki: TestPki, options: Parameters<typeof publishablePlugin>[0] & {now?: Date} = {}): Promise<string> {
  const signed = await writeContainerSigned(file, unsignedUpload(options), {privateKey: pki.signer.privateKey, certificate: pki.certificate, now: options.now ?? testNow})
  return signed.output
}

/** The publishable plugin signed in memory, without a container digest (as signers before container digests did). */
export async function signedUpload(pki: TestPki, options: Parameters<typeof publishablePlugin>[0] & {now?: Date} = {}): Promise<Artifact> {
  const {manifest, payload} = publishablePlugin(options)
  const signed = signContents(unsignedContents(manifest, payload), {privateKey: pki.signer.privateKey, certificate: pki.certificate, now: options.now ?? testNow})
  return {manifest: signed.manifest, entries: new Map([...payload, ...signed.chainEntries])}
}

/** The publishable plugin, packed but not signed. */
export function unsignedUpload(options: Parameters<typeof publishablePlugin>[0] = {}): Artifact {
  const {manifest, payload} = publishablePlugin(options)
  return {manifest, entries: payload}
}

/**
 * A root and a `creator` package certificate for `com.example` valid from 2020 to 2099: for command-line
 * tests, where the verifier's clock is the real one.
 */
export function livePki(rootKeyId = 'root_clitest'): TestPki {
  const {keyPair: root, trustStore: trust} = createRoot(rootKeyId)
  const {keyPair: signer, files: certificate} = issueFor(root.privateKey, rootKeyId, {notBefore: '2020-01-01T00:00:00Z', notAfter: '2099-01-01T00:00:00Z'})
  return {rootKeyId, root, trust, signer, certificate}
}

export {writeArtifact}
