import assert from 'node:assert/strict'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {verdictOf} from '../../src/signing/result.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {writeArtifact} from './artifacts.js'
import {testNow} from './pki.js'
import {tamperCases, tamperContext, type TamperContext} from './tamper-cases.js'

let dir: string
let context: TamperContext
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-verify-'))
  context = await tamperContext()
})
after(async () => {
  await rm(dir, {recursive: true, force: true})
})

describe('verifyArtifact over .svcPlugin files rebuilt with the archive writer: the tamper suite', () => {
  tamperCases.forEach((tamper, index) => {
    it(`${tamper.name} → ${tamper.expect}`, async () => {
      const file = await writeArtifact(path.join(dir, `case-${index}.svcPlugin`), await tamper.build(context))
      const result = await verifyArtifact(file, {trust: tamper.trust?.(context) ?? context.pki.trust, now: tamper.now ?? testNow})
      if (tamper.expect === 'valid') {
        assert.deepEqual(result.problems, [])
        assert.equal(result.verdict, 'Trusted')
      } else {
        assert.deepEqual(result.problems.map((p) => p.code), [tamper.expect], result.problems[0]?.message)
        assert.equal(result.verdict, verdictOf[tamper.expect])
      }
    })
  })
})

describe('verifyArtifact on files that are not artifacts', () => {
  it('reports a file that is not a ZIP as package-unreadable (not-an-artifact), verdict Malformed', async () => {
    const file = path.join(dir, 'not-a-zip.svcPlugin')
    await writeFile(file, 'this is not a zip archive\n')
    const result = await verifyArtifact(file, {trust: context.pki.trust, now: testNow})
    assert.deepEqual(result.problems.map((p) => [p.code, p.archiveCode]), [['package-unreadable', 'not-an-artifact']])
    assert.equal(result.verdict, 'Malformed')
    assert.match(result.problems[0]?.message ?? '', /not-an-artifact/)
  })

  it('reports a missing file as package-unreadable (file-not-found)', async () => {
    const result = await verifyArtifact(path.join(dir, 'absent.svcPlugin'), {trust: context.pki.trust, now: testNow})
    assert.deepEqual(result.problems.map((p) => [p.code, p.archiveCode]), [['package-unreadable', 'file-not-found']])
  })

  it('reports a manifest over the limit as manifest-too-large', async () => {
    const file = await writeArtifact(path.join(dir, 'big-manifest.svcPlugin'), context.signed)
    const result = await verifyArtifact(file, {trust: context.pki.trust, now: testNow, limits: {maxManifestBytes: 100}})
    assert.deepEqual(result.problems.map((p) => p.code), ['manifest-too-large'])
  })

  it('returns the certificate, its id and the signing time of a valid artifact', async () => {
    const file = await writeArtifact(path.join(dir, 'valid.svcPlugin'), context.signed)
    const result = await verifyArtifact(file, {trust: context.pki.trust, now: testNow})
    assert.equal(result.valid, true)
    assert.equal(result.certificate?.subject.id, 'com.example')
    assert.equal(result.certificateId, result.certificate?.certificateId)
    assert.equal(result.issuerCertificateId, null)
    assert.equal(result.signedAt, '2030-06-01T12:00:00Z')
  })
})
