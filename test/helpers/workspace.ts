import assert from 'node:assert/strict'
import {readFile} from 'node:fs/promises'
import path from 'node:path'

import {fixturesDir, runCli, tempDir} from './cli.js'

/** Files made by the real commands, for tests that run every command once. */
export interface Workspace {
  dir: string
  cleanup: () => Promise<void>
  /** The example plugin folder. */
  source: string
  /** The example plugin packed (unsigned). */
  artifact: string
  /** The same artifact signed with a package certificate under `trust`. */
  signed: string
  /** cert root's output folder (root.key, root.pub, trust.json). */
  pki: string
  trust: string
  rootKeyId: string
  /** keygen's key pair. */
  privateKey: string
  publicKey: string
  /** cert issue's output folder (certificate.json, certificate.sig). */
  certificate: string
  certificateSignature: string
  id: string
  version: string
}

/** Runs a preparatory command that must succeed. */
export async function must(args: string[]): Promise<void> {
  const result = await runCli(args)
  assert.equal(result.status, 0, `svc-plugin ${args.join(' ')}: ${result.stderr}`)
}

/** Packs, keys, certifies and signs the example plugin with the real commands, in a fresh folder. */
export async function makeWorkspace(prefix: string): Promise<Workspace> {
  const {dir, cleanup} = await tempDir(prefix)
  const source = path.join(fixturesDir, 'example-plugin')
  const artifact = path.join(dir, 'weather.svcPlugin')
  const signed = path.join(dir, 'weather-signed.svcPlugin')
  const pki = path.join(dir, 'pki')
  const keys = path.join(dir, 'keys')
  const cert = path.join(dir, 'cert')
  await must(['pack', source, '--output', artifact, '--quiet'])
  await must(['cert', 'root', '--output', pki, '--root-key-id', 'root_example'])
  await must(['keygen', '--output', keys])
  await must(['cert', 'issue', '--root-key', path.join(pki, 'root.key'), '--root-key-id', 'root_example', '--subject-public-key', path.join(keys, 'signing.pub'), '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z', '--output', cert])
  await must(['sign', artifact, '--private-key', path.join(keys, 'signing.key'), '--certificate', path.join(cert, 'certificate.json'), '--certificate-signature', path.join(cert, 'certificate.sig'), '--output', signed])
  const manifest = JSON.parse(await readFile(path.join(source, 'manifest.json'), 'utf8')) as {id: string; version: string}
  return {
    dir,
    cleanup,
    source,
    artifact,
    signed,
    pki,
    trust: path.join(pki, 'trust.json'),
    rootKeyId: 'root_example',
    privateKey: path.join(keys, 'signing.key'),
    publicKey: path.join(keys, 'signing.pub'),
    certificate: path.join(cert, 'certificate.json'),
    certificateSignature: path.join(cert, 'certificate.sig'),
    id: manifest.id,
    version: manifest.version,
  }
}
