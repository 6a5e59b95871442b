import assert from 'node:assert/strict'
import {cp, mkdir, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {writeArchive} from '../../../src/archive/writer.js'
import {artifactRevocationDigest} from '../../../src/revocation/target.js'
import {isSvcPluginError} from '../../../src/errors.js'
import {setMutationHook} from '../../../src/fs/mutations.js'
import {activate} from '../../../src/install/activate.js'
import {install} from '../../../src/install/install.js'
import type {InstallOptions} from '../../../src/install/types.js'
import {verifyInstalled} from '../../../src/install/verify-installed.js'
import {createRevocationList, type RevocationRequest, type VerifiedRevocationList} from '../../../src/revocation/list.js'
import {createRoot, type TrustStore} from '../../../src/pki/trust.js'
import {createSigner, testNow, writeArtifact, type TestSigner} from './artifacts.js'

// A data root, two trusted roots each with its lists, a revoked publisher certificate X and an artifact
// revoked by digest, and an install that ends in each way an install can end. The model of what the data
// root must have recorded predicts every outcome: see runSteps.

/** The plugin whose version 1.0.0 (signed by the certificate X) is installed, inactive, in the template. */
export const alpha = 'com.example.alpha'

/** Every list a step can be given: two roots' genuine lists in their order, a stale one, a forged one. */
export const listNames = ['A1', 'A2', 'A3-stale', 'B1', 'B2', 'forged'] as const
/** One list a step can be given. */
export type ListName = (typeof listNames)[number]

/** Each way an install can end, by the code it ends with (`ok`: installed). */
export const installOutcomes = [
  'ok',
  'revocable',
  'invalid-argument',
  'trust-store-invalid',
  'file-not-found',
  'not-an-artifact',
  'archive-malformed',
  'archive-unsupported',
  'limit-exceeded',
  'unsafe-entry',
  'artifact-digest-mismatch',
  'manifest-missing',
  'manifest-invalid',
  'incompatible',
  'id-mismatch',
  'version-mismatch',
  'entrypoint-missing',
  'lock-timeout',
  'unsafe-data-root',
  'already-installed',
  'io-error',
  'hash-mismatch',
  'unsigned-not-permitted',
  'signature-invalid',
  'signature-untrusted',
  'publisher-changed',
  'trust-downgrade',
] as const
/** One way an install can end; `revocable` installs a version signed by X, which ends in `signature-revoked` once X is revoked. */
export type InstallOutcome = (typeof installOutcomes)[number]

/** The checks that something revoked is refused: an install, the launch gate, an activation of a version signed by X. */
export const probes = ['install', 'launch', 'activate'] as const
/** One probe. */
export type Probe = (typeof probes)[number]

/** One step: an operation on the data root, given a list or none. */
export type Step = {list: ListName | null; outcome: InstallOutcome} | {list: ListName | null; probe: Probe}

/** Everything the steps use: the trust store, the lists, the artifacts of each outcome, the template data root. */
export interface RevocationWorld {
  trust: TrustStore
  lists: Record<ListName, VerifiedRevocationList>
  artifacts: Record<string, string>
  /** The data root every sequence starts from (copied): alpha 1.0.0 by X inactive, alpha 2.0.0 by Y active. */
  template: string
  dir: string
}

const day = 24 * 60 * 60 * 1000
const hostOptions = {hostRid: 'linux-x64', now: testNow, retain: 10}

/** Builds the world under `dir`. */
export async function prepareRevocationWorld(dir: string): Promise<RevocationWorld> {
  const x = createSigner({rootKeyId: 'root_alpha'})
  const y = createSigner({sameRootAs: x})
  const impostor = createSigner({sameRootAs: x, subject: {kind: 'creator', id: 'org.impostor', name: 'Impostor'}})
  const stranger = createSigner({rootKeyId: 'root_stranger'})
  const beta = createRoot('root_beta')
  const trust: TrustStore = {roots: [...x.trust.roots, ...beta.trustStore.roots]}
  const artifact = (name: string, spec: Parameters<typeof writeArtifact>[1]) => writeArtifact(path.join(dir, 'artifacts', `${name}.svcPlugin`), spec)
  const artifacts: Record<string, string> = {
    xOld: await artifact('x-old', {id: alpha, version: '1.0.0', signer: x}),
    yActive: await artifact('y-active', {id: alpha, version: '2.0.0', signer: y}),
    probe: await artifact('probe', {id: 'com.example.probe', version: '1.0.0', signer: x}),
    // Revoked by root B by its digest (whoever signed it), not by its certificate.
    digestRevoked: await artifact('digest-revoked', {id: 'com.example.digest', version: '1.0.0', signer: y}),
  }
  const revokeX: RevocationRequest = {kind: 'certificate', value: x.certificateId, reason: 'key-compromise'}
  const revokeDigest: RevocationRequest = {kind: 'artifact', value: await artifactRevocationDigest(artifacts['digestRevoked'] as string), reason: 'malicious'}
  const list = (root: {rootKeyId: string; keyPair: {privateKey: Uint8Array}}, sequence: number, entries: RevocationRequest[], issued = new Date(testNow.getTime() - day)) =>
    createRevocationList({rootKeyId: root.rootKeyId, rootPrivateKey: root.keyPair.privateKey, sequence, entries, now: issued})
  const lists: Record<ListName, VerifiedRevocationList> = {
    A1: list(x.root, 1, []),
    A2: list(x.root, 2, [revokeX]),
    // Issued long ago: past its nextUpdate, genuine all the same.
    'A3-stale': list(x.root, 3, [revokeX], new Date(testNow.getTime() - 30 * day)),
    B1: list(beta, 1, []),
    B2: list(beta, 2, [revokeDigest]),
    forged: list(stranger.root, 9, [revokeX]),
  }
  await prepareOutcomeArtifacts(dir, artifacts, {y, impostor, stranger})
  const template = path.join(dir, 'template')
  await install(artifacts['xOld'] as string, {dataRoot: template, trust, ...hostOptions})
  await install(artifacts['yActive'] as string, {dataRoot: template, trust, ...hostOptions})
  await install(artifacts['digestRevoked'] as string, {dataRoot: template, trust, ...hostOptions})
  await mkdir(path.join(template, 'plugins', 'com.example.locked', '.lock'), {recursive: true})
  await writeFile(path.join(template, 'plugins', 'com.example.locked', '.lock', 'owner-0123456789abcdef01234567.json'), JSON.stringify({pid: process.pid, host: (await import('node:os')).hostname(), token: '0123456789abcdef01234567'}))
  await symlink(path.join(dir, 'elsewhere'), path.join(template, 'plugins', 'com.example.linked'))
  return {trust, lists, artifacts, template, dir}
}

/** Writes the artifact each outcome installs. */
async function prepareOutcomeArtifacts(dir: string, artifacts: Record<string, string>, signers: {y: TestSigner; impostor: TestSigner; stranger: TestSigner}): Promise<void> {
  const file = (name: string) => path.join(dir, 'artifacts', `${name}.svcPlugin`)
  const artifact = async (name: string, spec: Parameters<typeof writeArtifact>[1]) => (artifacts[name] = await writeArtifact(file(name), spec))
  await artifact('beta', {id: 'com.example.beta'})
  await artifact('locked', {id: 'com.example.locked'})
  await artifact('linked', {id: 'com.example.linked'})
  await artifact('betaSigned', {id: 'com.example.beta', signer: signers.y})
  await artifact('hashMismatch', {id: 'com.example.beta', files: [{path: 'assets/readme.txt', size: 1, sha256: `sha256:${'0'.repeat(64)}`}]})
  await artifact('forged', {id: 'com.example.beta', signer: signers.y, forge: {corrupt: true}})
  await artifact('untrusted', {id: 'com.example.beta', signer: signers.stranger})
  await artifact('impostor', {id: alpha, version: '3.0.0', signer: signers.impostor, manifest: {publisher: {name: 'Impostor', id: 'org.impostor'}}})
  await artifact('downgrade', {id: alpha, version: '3.0.0'})
  await artifact('invalidManifest', {id: 'com.example.beta', manifest: {version: 'one'}})
  await artifact('incompatible', {id: 'com.example.beta', manifest: {manifestVersion: 2}})
  await artifact('hollow', {id: 'com.example.beta', payload: {'assets/readme.txt': 'only this'}})
  // An entry that asks for the setuid bit (the writer never makes one, so its attributes are patched).
  await artifact('setuid', {id: 'com.example.beta'})
  await patchHeaders(artifacts['setuid'] as string, 'assets/readme.txt', (bytes, central) => bytes.writeUInt32LE(((0o100000 | 0o4755) << 16) >>> 0, central + 38))
  // A CRC-32 that is not the entry's: found while inflating, after the lock was taken.
  await artifact('liar', {id: 'com.example.beta'})
  await patchHeaders(artifacts['liar'] as string, 'assets/readme.txt', (bytes, central, local) => {
    bytes.writeUInt32LE((bytes.readUInt32LE(central + 16) ^ 1) >>> 0, central + 16)
    bytes.writeUInt32LE((bytes.readUInt32LE(local + 14) ^ 1) >>> 0, local + 14)
  })
  // Compression method 12 (bzip2), which no artifact uses.
  await artifact('unsupported', {id: 'com.example.beta'})
  await patchHeaders(artifacts['unsupported'] as string, 'assets/readme.txt', (bytes, central, local) => {
    bytes.writeUInt16LE(12, central + 10)
    bytes.writeUInt16LE(12, local + 8)
  })
  await writeFile(file('text'), 'not a zip at all')
  artifacts['text'] = file('text')
  await writeArchive(file('no-manifest'), [{name: 'readme.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('hello')}}])
  artifacts['noManifest'] = file('no-manifest')
}

/** Changes an entry's central record and local header (offsets of their signatures) with `patch`. */
async function patchHeaders(file: string, entryName: string, patch: (bytes: Buffer, central: number, local: number) => void): Promise<void> {
  const bytes = await readFile(file)
  const end = bytes.length - 22
  for (let at = bytes.readUInt32LE(end + 16); bytes.readUInt32LE(at) === 0x02014b50; ) {
    const nameLength = bytes.readUInt16LE(at + 28)
    if (bytes.toString('utf8', at + 46, at + 46 + nameLength) === entryName) patch(bytes, at, bytes.readUInt32LE(at + 42))
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32)
  }
  await writeFile(file, bytes)
}

/** Runs one install that ends as `outcome` would (given `list`), and returns its code, `ok` when it installed. */
async function runOutcome(world: RevocationWorld, dataRoot: string, outcome: InstallOutcome, revocations: VerifiedRevocationList | undefined): Promise<string> {
  const a = world.artifacts
  const base: InstallOptions = {dataRoot, trust: world.trust, revocations, ...hostOptions}
  const unsigned = {...base, allowUnsigned: true, force: true}
  const attempts: Record<InstallOutcome, () => Promise<unknown>> = {
    ok: () => install(a['betaSigned'] as string, {...base, force: true}),
    revocable: () => install(a['xOld'] as string, {...base, force: true, activate: false}),
    'invalid-argument': () => install(a['beta'] as string, {...unsigned, retain: -1}),
    'trust-store-invalid': () => install(a['beta'] as string, {...unsigned, trust: {roots: 'none'} as unknown as TrustStore}),
    'file-not-found': () => install(path.join(world.dir, 'missing.svcPlugin'), unsigned),
    'not-an-artifact': () => install(a['text'] as string, unsigned),
    'archive-malformed': () => install(a['liar'] as string, unsigned),
    'archive-unsupported': () => install(a['unsupported'] as string, unsigned),
    'limit-exceeded': () => install(a['beta'] as string, {...unsigned, limits: {maxEntries: 1}}),
    'unsafe-entry': () => install(a['setuid'] as string, unsigned),
    'artifact-digest-mismatch': () => install(a['beta'] as string, {...unsigned, expectSha256: '0'.repeat(64)}),
    'manifest-missing': () => install(a['noManifest'] as string, unsigned),
    'manifest-invalid': () => install(a['invalidManifest'] as string, unsigned),
    incompatible: () => install(a['incompatible'] as string, unsigned),
    'id-mismatch': () => install(a['beta'] as string, {...unsigned, expectId: 'com.example.gamma'}),
    'version-mismatch': () => install(a['beta'] as string, {...unsigned, expectVersion: '9.9.9'}),
    'entrypoint-missing': () => install(a['hollow'] as string, unsigned),
    'lock-timeout': () => install(a['locked'] as string, {...unsigned, lockTimeoutMs: 0}),
    'unsafe-data-root': () => install(a['linked'] as string, unsigned),
    'already-installed': () => install(a['yActive'] as string, base),
    'io-error': () => failingWrites(() => install(a['beta'] as string, unsigned)),
    'hash-mismatch': () => install(a['hashMismatch'] as string, unsigned),
    'unsigned-not-permitted': () => install(a['beta'] as string, {...base, force: true}),
    'signature-invalid': () => install(a['forged'] as string, {...base, force: true}),
    'signature-untrusted': () => install(a['untrusted'] as string, {...base, force: true}),
    'publisher-changed': () => install(a['impostor'] as string, base),
    'trust-downgrade': () => install(a['downgrade'] as string, {...base, allowUnsigned: true}),
  }
  return codeOf(attempts[outcome])
}

/** Runs `work` with every write into a staged tree failing with EIO, as a failing disk would. */
async function failingWrites(work: () => Promise<unknown>): Promise<unknown> {
  setMutationHook((mutation) => {
    if (mutation.kind === 'write' && mutation.path.includes(`${path.sep}content${path.sep}`)) throw Object.assign(new Error('EIO: i/o error, write'), {code: 'EIO', syscall: 'write', path: mutation.path})
  })
  try {
    return await work()
  } finally {
    setMutationHook(null)
  }
}

async function codeOf(attempt: () => Promise<unknown>): Promise<string> {
  try {
    await attempt()
    return 'ok'
  } catch (error) {
    if (!isSvcPluginError(error)) throw error
    return error.code
  }
}

/** Runs one probe (given `revocations`, or none) and returns its code: `ok`, or why it refused. */
async function runProbe(world: RevocationWorld, dataRoot: string, probe: Probe, revocations: VerifiedRevocationList | undefined): Promise<string> {
  const options = {trust: world.trust, revocations, now: testNow, hostRid: 'linux-x64'}
  switch (probe) {
    case 'install':
      return codeOf(() => install(world.artifacts['probe'] as string, {dataRoot, ...options, force: true}))
    case 'activate': {
      const code = await codeOf(() => activate(dataRoot, alpha, '1.0.0', options))
      if (code === 'ok') await activate(dataRoot, alpha, '2.0.0')
      return code
    }
    default: {
      // The launch gate over X's version and the version revoked by its digest (the given list first).
      const codes: string[] = []
      for (const [id, version] of [[alpha, '1.0.0'], ['com.example.digest', '1.0.0']] as const) {
        const code = await codeOf(async () => {
          const result = await verifyInstalled(dataRoot, id, {...options, version})
          codes.push(result.valid ? 'ok' : result.problems.map((problem) => problem.code).join(','))
        })
        if (code !== 'ok') return code
      }
      return codes.join(' ')
    }
  }
}

/** What the data root must have recorded: the highest sequence of each root's lists, 0 for none. */
export interface RevocationModel {
  A: number
  B: number
}

/**
 * The code a list given to an operation ends it with before anything else (null: the operation goes on),
 * and the model updated: a list whose signature verifies is recorded when it is newer than the root's
 * record, whatever else the operation does (a stale list too: its revocations are facts); an older one is
 * a rollback.
 */
export function judgeList(model: RevocationModel, list: ListName | null): string | null {
  if (list === null) return null
  if (list === 'forged') return 'revocation-list-invalid'
  const root = list.startsWith('A') ? 'A' : 'B'
  const sequence = Number(list.slice(1, 2))
  if (sequence < model[root]) return 'revocation-list-rollback'
  model[root] = Math.max(model[root], sequence)
  return list === 'A3-stale' ? 'revocation-list-stale' : null
}

/** The code a step must end with under the model (updated by the step's list). */
export function expectedCode(model: RevocationModel, step: Step): string {
  if ('outcome' in step && step.outcome === 'trust-store-invalid') return 'trust-store-invalid'
  const refused = judgeList(model, step.list)
  if (refused !== null) return refused
  const revokedX = model.A >= 2
  if ('probe' in step) {
    if (step.probe !== 'launch') return revokedX ? 'signature-revoked' : 'ok'
    return `${revokedX ? 'revoked' : 'ok'} ${model.B >= 2 ? 'revoked' : 'ok'}`
  }
  if (step.outcome === 'revocable') return revokedX ? 'signature-revoked' : 'ok'
  return step.outcome
}

/**
 * Runs `steps` on a fresh copy of the template at `dataRoot`, asserting that each ends with the code the
 * model predicts. Invariant: once the data root has recorded a revocation (a list that verified, given
 * to any operation, however that operation ended), every later install, activation and launch check
 * refuses what it revokes, whatever list (or none) it is given.
 */
export async function runSteps(world: RevocationWorld, dataRoot: string, steps: readonly Step[]): Promise<void> {
  await rm(dataRoot, {recursive: true, force: true})
  await cp(world.template, dataRoot, {recursive: true, verbatimSymlinks: true})
  const model: RevocationModel = {A: 0, B: 0}
  for (const [index, step] of steps.entries()) {
    const expected = expectedCode(model, step)
    const revocations = step.list === null ? undefined : world.lists[step.list]
    const actual = 'probe' in step ? await runProbe(world, dataRoot, step.probe, revocations) : await runOutcome(world, dataRoot, step.outcome, revocations)
    assert.equal(actual, expected, `step ${index + 1} of ${JSON.stringify(steps)}`)
  }
}
