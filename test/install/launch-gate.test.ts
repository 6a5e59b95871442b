import assert from 'node:assert/strict'
import {cp, readdir, rm, unlink} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'
import {install} from '../../src/install/install.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {validateArtifact} from '../../src/artifact/validate-artifact.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {issueCertificate} from '../../src/pki/certificate.js'
import {generateKeyPair} from '../../src/pki/ed25519.js'
import {createSigner, testNow, type TestSigner} from './helpers/artifacts.js'
import {inWorkspace, installError, versionsOf} from './helpers/workspace.js'

const id = 'com.example.alpha'
const trusted = (dataRoot: string, signer: TestSigner) => ({dataRoot, hostRid: 'linux-x64', trust: signer.trust, now: testNow})

/** A second package certificate under `signer`'s root, for `subject` (another publisher, or the same one re-issued). */
function sameRootSigner(signer: TestSigner, subject: {kind: 'creator' | 'organization'; id: string; name: string}): TestSigner {
  const keyPair = generateKeyPair()
  const issued = issueCertificate({
    subject,
    subjectPublicKey: keyPair.publicKey,
    keyUsage: 'package',
    notBefore: new Date(testNow.getTime() - 86_400_000),
    notAfter: new Date(testNow.getTime() + 86_400_000 * 30),
    signerPrivateKey: signer.root.keyPair.privateKey,
    rootKeyId: signer.root.rootKeyId,
    now: testNow,
  })
  return {...signer, keyPair, certificate: {json: issued.certificateJson, sig: issued.certificateSig}, certificateId: issued.certificate.certificateId}
}

/** Replaces an installed version's files with the files of another artifact, as an attacker with write access to the data root would. */
async function replaceVersionFiles(dataRoot: string, version: string, from: string): Promise<void> {
  const target = path.join(dataRoot, 'plugins', id, 'versions', version)
  await rm(target, {recursive: true})
  await cp(from, target, {recursive: true})
}

describe('the launch gate is as strict as the install gate', () => {
  it('refuses a version whose files now verify under another publisher\'s certificate: certificate-changed', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('genuine', {signer}), trusted(ws.dataRoot, signer))
      // The same plugin id, signed by another publisher the same root certifies, extracted over the genuine files.
      const impostor = sameRootSigner(signer, {kind: 'creator', id: 'org.impostor', name: 'Impostor'})
      const other = path.join(ws.dir, 'other-data')
      await install(await ws.artifact('impostor', {signer: impostor, manifest: {publisher: {name: 'Impostor', id: 'org.impostor'}}}), trusted(other, impostor))
      await replaceVersionFiles(ws.dataRoot, '1.0.0', path.join(other, 'plugins', id, 'versions', '1.0.0'))
      const result = await verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, hostRid: 'linux-x64'})
      assert.equal(result.verdict, 'Trusted')
      assert.equal(result.valid, false)
      assert.deepEqual(result.problems.map((problem) => problem.code), ['certificate-changed'])
    })
  })

  it('accepts files signed by a re-issued certificate of the same publisher under the same root', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('genuine', {signer}), trusted(ws.dataRoot, signer))
      const reissued = sameRootSigner(signer, {kind: 'creator', id: 'com.example', name: 'Example Labs'})
      const other = path.join(ws.dir, 'other-data')
      await install(await ws.artifact('reissued', {signer: reissued}), trusted(other, reissued))
      await replaceVersionFiles(ws.dataRoot, '1.0.0', path.join(other, 'plugins', id, 'versions', '1.0.0'))
      const result = await verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, hostRid: 'linux-x64'})
      assert.deepEqual(result.problems, [])
      assert.equal(result.valid, true)
    })
  })

  it('refuses a version that verifies Trusted but has no trust record: trust-record-missing', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      await install(await ws.artifact('genuine', {signer}), trusted(ws.dataRoot, signer))
      await unlink(path.join(ws.dataRoot, 'plugins', id, 'trust.json'))
      const result = await verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, hostRid: 'linux-x64'})
      assert.equal(result.verdict, 'Trusted')
      assert.deepEqual(result.problems.map((problem) => problem.code), ['trust-record-missing'])
    })
  })

  it('reports a host executable that has gone missing since install: entrypoint-missing', async () => {
    await inWorkspace(async (ws) => {
      await install(await ws.artifact('unsigned', {files: 'none'}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true})
      await unlink(path.join(ws.dataRoot, 'plugins', id, 'versions', '1.0.0', 'runtimes', 'linux-x64', 'alpha'))
      const result = await verifyInstalled(ws.dataRoot, id, {hostRid: 'linux-x64'})
      assert.deepEqual(result.problems.map((problem) => [problem.code, problem.path]), [['entrypoint-missing', 'runtimes/linux-x64/alpha']])
    })
  })
})

describe('rollback protection that cannot be dodged', () => {
  const lists = (signer: TestSigner) => {
    const issuedAt = new Date(testNow.getTime() - 3_600_000)
    const one = createRevocationList({rootKeyId: signer.root.rootKeyId, rootPrivateKey: signer.root.keyPair.privateKey, sequence: 1, now: issuedAt})
    const two = createRevocationList({
      rootKeyId: signer.root.rootKeyId,
      rootPrivateKey: signer.root.keyPair.privateKey,
      sequence: 2,
      now: issuedAt,
      entries: [{kind: 'certificate', value: signer.certificateId, reason: 'key-compromise'}],
    })
    return {one, two}
  }

  it('remembers a list that verifies even when the install it came with is refused, so the older list is refused next', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const {one, two} = lists(signer)
      const artifact = await ws.artifact('signed', {signer})
      await assert.rejects(install(artifact, {...trusted(ws.dataRoot, signer), revocations: two}), installError('signature-revoked'))
      await assert.rejects(install(artifact, {...trusted(ws.dataRoot, signer), revocations: one}), {code: 'revocation-list-rollback'})
      assert.deepEqual(await versionsOf(ws.dataRoot, id), [])
    })
  })

  it('applies the same rollback check before a launch, and remembers the list it was shown', async () => {
    await inWorkspace(async (ws) => {
      const signer = createSigner()
      const {one, two} = lists(signer)
      await install(await ws.artifact('signed', {signer}), {...trusted(ws.dataRoot, signer), revocations: one})
      const revoked = await verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, revocations: two, hostRid: 'linux-x64'})
      assert.deepEqual(revoked.problems.map((problem) => problem.code), ['revoked'])
      await assert.rejects(verifyInstalled(ws.dataRoot, id, {trust: signer.trust, now: testNow, revocations: one, hostRid: 'linux-x64'}), {code: 'revocation-list-rollback'})
    })
  })
})

describe('certificate files are not a hiding place in an unsigned artifact', () => {
  it('refuses to install an unsigned artifact carrying certificate.json that files[] does not list: hash-mismatch (undeclared-file)', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('smuggler', {extraEntries: {'certificate.json': '{"payload": "unchecked"}', 'issuer.sig': 'x'}})
      await assert.rejects(install(artifact, {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true}), (error: Error & {code?: string; details?: {problems?: Array<{code: string; path: string}>}}) => {
        assert.equal(error.code, 'hash-mismatch')
        assert.deepEqual(error.details?.problems?.map((problem) => [problem.code, problem.path]), [
          ['undeclared-file', 'certificate.json'],
          ['undeclared-file', 'issuer.sig'],
        ])
        return true
      })
      assert.deepEqual(await readdir(ws.dataRoot).catch(() => []), ['plugins'])
      assert.deepEqual(await versionsOf(ws.dataRoot, id), [])
    })
  })

  it('reports them as undeclared files when the unsigned artifact is validated', async () => {
    await inWorkspace(async (ws) => {
      const artifact = await ws.artifact('smuggler', {extraEntries: {'certificate.sig': 'x'}})
      const report = await validateArtifact(artifact)
      assert.deepEqual(report.problems.filter((problem) => problem.severity === 'error').map((problem) => [problem.code, problem.pointer]), [['undeclared-file', '/files']])
    })
  })
})
