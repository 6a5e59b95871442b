import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {install} from '../../src/install/install.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {verifyUpload} from '../../src/store/verify-upload.js'
import {tempDir} from '../helpers/cli.js'
import {writeContainerSigned} from './artifacts.js'
import {createPki, samplePlugin, testNow, validTo} from './pki.js'

/**
 * Runs `body` with a clock that cannot be read: `new Date()` and `Date.now()` are recorded and throw,
 * while `new Date(value)`, `Date.parse` and `instanceof Date` work as ever. Returns the reads (none is the
 * point: a library that swallowed the throw would still leave its read here).
 */
async function withoutClock(body: () => Promise<void>): Promise<string[]> {
  const RealDate = globalThis.Date
  const reads: string[] = []
  const read = (what: string): Error => {
    const error = new Error(`the clock was read: ${what}`)
    reads.push(error.stack ?? what)
    return error
  }
  class ClocklessDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) throw read('new Date()')
      super(...(args as [string | number]))
    }
    static override now(): number {
      throw read('Date.now()')
    }
    static override [Symbol.hasInstance](value: unknown): boolean {
      return value instanceof RealDate
    }
  }
  globalThis.Date = ClocklessDate as DateConstructor
  try {
    await body()
  } finally {
    globalThis.Date = RealDate
  }
  return reads
}

const hourBefore = new Date(testNow.getTime() - 60 * 60 * 1000)
/** Half a year after the certificate's notAfter (and long after the revocation list's nextUpdate). */
const longAfter = new Date(new Date(validTo).getTime() + 180 * 24 * 60 * 60 * 1000)

describe('one reference time: install, verifyArtifact, verifyInstalled and verifyUpload judge at the given now and never read the clock', () => {
  const pki = createPki()
  // Listed the day before testNow: fresh at testNow, stale half a year after validTo.
  const revocations = createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, sequence: 1, now: new Date('2030-05-31T12:00:00Z')})
  const account = {name: 'Example Labs', id: 'com.example'}
  let dir: string
  let cleanup: () => Promise<void>
  let artifact: string
  let roots = 0
  const dataRoot = () => path.join(dir, `data-${++roots}`)
  before(async () => {
    ;({dir, cleanup} = await tempDir('svc-plugin-reference-time-'))
    // Signed at testNow, in 2030: a verifier that read this machine's clock instead would find it signed in the future.
    const {manifest, payload} = samplePlugin()
    artifact = (await writeContainerSigned(path.join(dir, 'weather.svcPlugin'), {manifest, entries: payload}, {privateKey: pki.signer.privateKey, certificate: pki.certificate, now: testNow})).output
  })
  after(async () => cleanup())

  it('verifyArtifact: Trusted at testNow with the list, signed-in-future an hour before, revocation-list-stale long after', async () => {
    const reads = await withoutClock(async () => {
      assert.equal((await verifyArtifact(artifact, {trust: pki.trust, now: testNow, revocations})).verdict, 'Trusted')
      const early = await verifyArtifact(artifact, {trust: pki.trust, now: hourBefore})
      assert.deepEqual([early.verdict, early.problems.map((problem) => problem.code)], ['CertificateNotValidAtSignature', ['signed-in-future']])
      await assert.rejects(verifyArtifact(artifact, {trust: pki.trust, now: longAfter, revocations}), {code: 'revocation-list-stale'})
      // The certificate is judged at the signing time, which lies inside its validity, whatever now is.
      assert.equal((await verifyArtifact(artifact, {trust: pki.trust, now: longAfter})).verdict, 'Trusted')
    })
    assert.deepEqual(reads, [])
  })

  it('verifyUpload: accepted at testNow with the list, signed-in-future an hour before, revocation-list-stale long after', async () => {
    const reads = await withoutClock(async () => {
      const accepted = await verifyUpload(artifact, {account, trust: pki.trust, now: testNow, revocations})
      assert.equal(accepted.verdict, 'Trusted')
      assert.ok(!accepted.problems.some((problem) => problem.code === 'signed-in-future' || problem.code.startsWith('revocation-')), JSON.stringify(accepted.problems))
      const early = await verifyUpload(artifact, {account, trust: pki.trust, now: hourBefore})
      assert.equal(early.verdict, 'CertificateNotValidAtSignature')
      assert.equal(early.accepted, false)
      assert.ok(early.problems.some((problem) => problem.code === 'signed-in-future' && problem.severity === 'error'), JSON.stringify(early.problems))
      const late = await verifyUpload(artifact, {account, trust: pki.trust, now: longAfter, revocations})
      assert.ok(late.problems.some((problem) => problem.code === 'revocation-list-stale' && problem.severity === 'error'), JSON.stringify(late.problems))
    })
    assert.deepEqual(reads, [])
  })

  it('install: Trusted at testNow with the list; signature-untrusted (CertificateNotValidAtSignature) an hour before; revocation-list-stale long after', async () => {
    const reads = await withoutClock(async () => {
      const installed = await install(artifact, {dataRoot: dataRoot(), hostRid: 'linux-x64', trust: pki.trust, now: testNow, revocations})
      assert.equal(installed.verdict, 'Trusted')
      await assert.rejects(install(artifact, {dataRoot: dataRoot(), hostRid: 'linux-x64', trust: pki.trust, now: hourBefore}), (error: Error & {code?: string; details?: Record<string, unknown>}) => {
        assert.deepEqual([error.code, error.details?.verdict], ['signature-untrusted', 'CertificateNotValidAtSignature'])
        return true
      })
      await assert.rejects(install(artifact, {dataRoot: dataRoot(), hostRid: 'linux-x64', trust: pki.trust, now: longAfter, revocations}), {code: 'revocation-list-stale'})
    })
    assert.deepEqual(reads, [])
  })

  it('verifyInstalled: valid at testNow with the list; signed-in-future an hour before; revocation-list-stale long after', async () => {
    const root = dataRoot()
    const id = 'com.example.weather-station'
    const reads = await withoutClock(async () => {
      await install(artifact, {dataRoot: root, hostRid: 'linux-x64', trust: pki.trust, now: testNow})
      const valid = await verifyInstalled(root, id, {hostRid: 'linux-x64', trust: pki.trust, now: testNow, revocations})
      assert.deepEqual([valid.valid, valid.verdict, valid.problems], [true, 'Trusted', []])
      const early = await verifyInstalled(root, id, {hostRid: 'linux-x64', trust: pki.trust, now: hourBefore})
      assert.equal(early.valid, false)
      assert.equal(early.verdict, 'CertificateNotValidAtSignature')
      assert.ok(early.problems.some((problem) => problem.code === 'signed-in-future'), JSON.stringify(early.problems))
      await assert.rejects(verifyInstalled(root, id, {hostRid: 'linux-x64', trust: pki.trust, now: longAfter, revocations}), {code: 'revocation-list-stale'})
    })
    assert.deepEqual(reads, [])
  })
})
