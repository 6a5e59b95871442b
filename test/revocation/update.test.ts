import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {readFile, readdir, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {base64Line} from '../../src/pki/base64.js'
import {readRevocationList} from '../../src/revocation/files.js'
import {publicKeyFingerprint, verifyRevocationList} from '../../src/revocation/list.js'
import {artifactRevocationDigest} from '../../src/revocation/target.js'
import {revokeInFile} from '../../src/revocation/update.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {tempDir} from '../helpers/cli.js'
import {signedSample, writeArtifact} from '../signing/artifacts.js'
import {createPki, fieldsOf, samplePlugin, testNow} from '../signing/pki.js'

describe('revokeInFile', () => {
  const pki = createPki()
  let dir: string
  let cleanup: () => Promise<void>
  const at = (name: string): string => path.join(dir, name)
  before(async () => {
    ;({dir, cleanup} = await tempDir('svc-plugin-revoke-in-file-'))
    await writeFile(at('root.key'), base64Line(pki.root.privateKey))
    await writeFile(at('signer.pub'), base64Line(pki.signer.publicKey))
    await writeFile(at('certificate.json'), pki.certificate.json)
    await writeArtifact(at('signed.svcPlugin'), await signedSample(pki))
    const {manifest, payload} = samplePlugin()
    await writeArtifact(at('unsigned.svcPlugin'), {manifest, entries: payload})
  })
  after(async () => cleanup())

  const base = () => ({listFile: at('revocations.json'), privateKeyFile: at('root.key'), now: testNow})

  it('needs the root key id to create a list (invalid-root-key-id), and writes nothing without it', async () => {
    await assert.rejects(revokeInFile({...base(), certificateId: `cert_${'1'.repeat(32)}`, reason: 'superseded'}), {code: 'invalid-root-key-id'})
    assert.deepEqual(await readdir(dir), ['certificate.json', 'root.key', 'signed.svcPlugin', 'signer.pub', 'unsigned.svcPlugin'])
  })

  it('never creates a list over a signature file that is already there: output-exists, both files as they were', async () => {
    await writeFile(at('other.sig'), 'precious\n')
    await assert.rejects(revokeInFile({...base(), listFile: at('other.json'), rootKeyId: pki.rootKeyId, certificateId: `cert_${'1'.repeat(32)}`, reason: 'superseded'}), {code: 'output-exists'})
    assert.equal(await readFile(at('other.sig'), 'utf8'), 'precious\n')
    assert.equal(existsSync(at('other.json')), false)
    await rm(at('other.sig'))
  })

  it('creates the list with sequence 1 from a certificate file', async () => {
    const result = await revokeInFile({...base(), rootKeyId: pki.rootKeyId, certificateFile: at('certificate.json'), reason: 'superseded', revokedAt: '2030-05-01T00:00:00Z'})
    assert.equal(result.created, true)
    assert.equal(result.sequence, 1)
    assert.deepEqual(result.entry, {kind: 'certificate', value: fieldsOf(pki.certificate).certificateId, revokedAt: '2030-05-01T00:00:00Z', reason: 'superseded'})
    assert.equal(result.sigFile, at('revocations.sig'))
    const verified = verifyRevocationList(await readRevocationList(at('revocations.json')), pki.trust, {now: testNow})
    assert.equal(verified.content.entries.length, 1)
  })

  it('appends a public key by fingerprint with sequence 2', async () => {
    const result = await revokeInFile({...base(), publicKeyFile: at('signer.pub'), reason: 'key-compromise'})
    assert.equal(result.created, false)
    assert.equal(result.sequence, 2)
    assert.deepEqual(result.entry, {kind: 'key', value: publicKeyFingerprint(pki.signer.publicKey), revokedAt: '2030-06-01T12:00:00Z', reason: 'key-compromise'})
  })

  it('appends a signed artifact by its canonical digest, the one verification checks', async () => {
    const digest = await artifactRevocationDigest(at('signed.svcPlugin'))
    const result = await revokeInFile({...base(), artifactFile: at('signed.svcPlugin'), reason: 'malicious'})
    assert.deepEqual([result.entry.kind, result.entry.value, result.sequence], ['artifact', digest, 3])
    const list = await readRevocationList(at('revocations.json'))
    // The artifact entry decides before the key entry would: both revoke it.
    const verification = await verifyArtifact(at('signed.svcPlugin'), {trust: pki.trust, now: testNow, revocations: list})
    assert.equal(verification.verdict, 'Revoked')
    assert.match(verification.problems[0]?.message ?? '', new RegExp(`^The artifact ${digest}`))
  })

  it('refuses an unsigned artifact with invalid-revocation', async () => {
    await assert.rejects(revokeInFile({...base(), artifactFile: at('unsigned.svcPlugin'), reason: 'malicious'}), {code: 'invalid-revocation'})
  })

  it('refuses two targets, or none, with invalid-revocation', async () => {
    await assert.rejects(revokeInFile({...base(), certificateId: `cert_${'2'.repeat(32)}`, artifactDigest: `sha256:${'2'.repeat(64)}`, reason: 'superseded'}), {code: 'invalid-revocation'})
    await assert.rejects(revokeInFile({...base(), reason: 'superseded'}), {code: 'invalid-revocation'})
  })

  it("refuses a root key id that is not the list's", async () => {
    await assert.rejects(revokeInFile({...base(), rootKeyId: 'root_else', certificateId: `cert_${'3'.repeat(32)}`, reason: 'superseded'}), {code: 'invalid-root-key-id'})
    assert.equal(verifyRevocationList(await readRevocationList(at('revocations.json')), pki.trust, {now: testNow}).content.sequence, 3)
  })

  it('refuses a list whose lock is a symbolic link or a FIFO at once: write-failed (lock-unusable), nothing written', {timeout: 10_000, skip: process.platform === 'win32'}, async () => {
    for (const [name, make] of [
      ['linked.json', (lock: string) => symlink(dir, lock)],
      ['fifo.json', async (lock: string) => void execFileSync('mkfifo', [lock])],
    ] as const) {
      const listFile = at(name)
      await make(`${listFile}.lock`)
      await assert.rejects(revokeInFile({...base(), listFile, rootKeyId: pki.rootKeyId, certificateId: `cert_${'1'.repeat(32)}`, reason: 'superseded', lockTimeoutMs: 600_000}), (error: Error & {code?: string; details?: Record<string, unknown>}) => {
        assert.equal(error.code, 'write-failed')
        assert.deepEqual(error.details, {path: listFile, reason: 'lock-unusable'})
        assert.match(error.message, /is never a lock; remove it/)
        return true
      })
      assert.equal(existsSync(listFile), false)
      await rm(`${listFile}.lock`)
    }
  })

  it('leaves no temporary or lock file behind', async () => {
    assert.deepEqual((await readdir(dir)).filter((name) => name.startsWith('.') || name.endsWith('.lock')), [])
  })
})
