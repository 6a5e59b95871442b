import assert from 'node:assert/strict'
import {writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {createRevocationList} from '../../src/revocation/list.js'
import {createRoot} from '../../src/pki/trust.js'
import {renderUploadText} from '../../src/store/render.js'
import type {UploadReport} from '../../src/store/report.js'
import {verifyUpload, type VerifyUploadOptions} from '../../src/store/verify-upload.js'
import {tempDir} from '../helpers/cli.js'
import {flipByte, withEntry} from '../signing/artifacts.js'
import {createPki, fieldsOf, testNow} from '../signing/pki.js'
import {account, signedUpload, unsignedUpload, writeArtifact, writeSignedUpload} from './uploads.js'

const pki = createPki()
let dir: string
let cleanup: () => Promise<void>
let accepted: string
let counter = 0
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-store-'))
  accepted = await writeSignedUpload(path.join(dir, 'accepted.svcPlugin'), pki)
})
after(async () => cleanup())

const judge = (file: string, options: Partial<VerifyUploadOptions> = {}): Promise<UploadReport> => verifyUpload(file, {account, trust: pki.trust, now: testNow, ...options})
const write = async (artifact: Parameters<typeof writeArtifact>[1]): Promise<string> => writeArtifact(path.join(dir, `upload-${++counter}.svcPlugin`), artifact)
const writeSigned = (options: Parameters<typeof writeSignedUpload>[2]): Promise<string> => writeSignedUpload(path.join(dir, `upload-${++counter}.svcPlugin`), pki, options)
const codes = (report: UploadReport): string[] => report.problems.map((problem) => problem.code)

describe('verifyUpload', () => {
  it('accepts a signed, publishable upload from its publisher with a new version', async () => {
    const report = await judge(accepted, {publishedVersions: ['1.0.0', '1.4.1', '1.4.2-beta.1']})
    assert.deepEqual(report, {
      accepted: true,
      id: 'com.example.weather-station',
      version: '1.4.2',
      problems: [],
      verdict: 'Trusted',
      certificateId: fieldsOf(pki.certificate).certificateId,
    })
    assert.equal(renderUploadText(report), 'accepted com.example.weather-station 1.4.2\n')
  })

  it('places a secret at the file and line that hold it, in the report and its text', async () => {
    const token = Buffer.from('const a = 1\n\nconst token = "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"\n')
    const report = await judge(await write(withEntry(unsignedUpload(), 'config/app.js', () => token)))
    const secret = report.problems.find((problem) => problem.code === 'secret-detected')
    assert.deepEqual(secret && {file: secret.file, line: secret.line, pointer: secret.pointer}, {file: 'config/app.js', line: 3, pointer: undefined})
    assert.match(renderUploadText(report), /^error secret-detected: .* \(in config\/app\.js:3\)$/m)
  })

  it('refuses a signature that does not chain to the trust store (certificate-untrusted, UntrustedRoot)', async () => {
    const report = await judge(accepted, {trust: createRoot('root_test').trustStore})
    assert.equal(report.accepted, false)
    assert.equal(report.verdict, 'UntrustedRoot')
    assert.deepEqual(codes(report), ['certificate-untrusted'])
  })

  it('refuses an unsigned upload (signature-missing, Unsigned)', async () => {
    const report = await judge(await write(unsignedUpload()))
    assert.equal(report.verdict, 'Unsigned')
    assert.deepEqual(codes(report), ['signature-missing'])
    assert.equal(report.certificateId, null)
  })

  it('refuses a missing publication field (publication-metadata-missing at the root)', async () => {
    const report = await judge(await writeSigned({manifest: {license: undefined}}))
    assert.equal(report.verdict, 'Trusted')
    assert.deepEqual(report.problems.map(({code, severity, pointer}) => [code, severity, pointer]), [['publication-metadata-missing', 'error', '']])
    assert.match(report.problems[0]?.message ?? '', /^license is missing/)
  })

  it('refuses a package without the executable of one declared RID (entrypoint-not-packed)', async () => {
    const report = await judge(await writeSigned({omit: ['runtimes/win-x64/WeatherStation.exe']}))
    assert.equal(report.verdict, 'Trusted')
    assert.deepEqual(report.problems.map(({code, pointer}) => [code, pointer]), [['entrypoint-not-packed', '/entrypoints/win-x64/executable']])
  })

  it("refuses a publisher name that is not the account's (publisher-mismatch at /publisher/name)", async () => {
    const report = await judge(accepted, {account: {name: 'Other Labs', id: 'com.example'}})
    assert.deepEqual(report.problems.map(({code, pointer}) => [code, pointer]), [['publisher-mismatch', '/publisher/name']])
    assert.equal(report.problems[0]?.message, 'publisher.name is "Example Labs", but the uploading account is "Other Labs".')
  })

  it("refuses a publisher id that is not the account's (publisher-mismatch at /publisher/id)", async () => {
    const report = await judge(accepted, {account: {name: 'Example Labs', id: 'org.other'}})
    assert.deepEqual(report.problems.map(({code, pointer}) => [code, pointer]), [['publisher-mismatch', '/publisher/id']])
  })

  it('refuses a publisher id when the account has none', async () => {
    const report = await judge(accepted, {account: {name: 'Example Labs'}})
    assert.deepEqual(codes(report), ['publisher-mismatch'])
    assert.match(report.problems[0]?.message ?? '', /has no publisher id/)
  })

  describe('version-not-newer', () => {
    it('refuses a version already published', async () => {
      const report = await judge(accepted, {publishedVersions: ['1.4.2']})
      assert.deepEqual(report.problems.map(({code, pointer}) => [code, pointer]), [['version-not-newer', '/version']])
      assert.match(report.problems[0]?.message ?? '', /already published/)
    })

    it('refuses a version below a published one, naming the highest', async () => {
      const report = await judge(accepted, {publishedVersions: ['1.0.0', '2.0.0', '1.5.0']})
      assert.equal(report.problems[0]?.message, 'version 1.4.2 is not greater than the published 2.0.0; upload a greater version.')
    })

    it('throws invalid-argument for a published version that is not SemVer', async () => {
      await assert.rejects(judge(accepted, {publishedVersions: ['v1.0']}), {code: 'invalid-argument'})
    })
  })

  it('refuses a revoked signer (revoked, Revoked)', async () => {
    const revocations = createRevocationList({
      rootKeyId: pki.rootKeyId,
      rootPrivateKey: pki.root.privateKey,
      now: testNow,
      entries: [{kind: 'certificate', value: fieldsOf(pki.certificate).certificateId as string, reason: 'key-compromise'}],
    })
    const report = await judge(accepted, {revocations})
    assert.equal(report.verdict, 'Revoked')
    assert.deepEqual(codes(report), ['revoked'])
  })

  it('reports an unusable revocation list as a problem and still judges the signature without it', async () => {
    const list = createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, now: new Date('2030-01-01T00:00:00Z')})
    const stale = await judge(accepted, {revocations: list})
    assert.deepEqual([stale.accepted, stale.verdict, codes(stale)], [false, 'Trusted', ['revocation-list-stale']])
    const allowed = await judge(accepted, {revocations: list, allowStaleRevocations: true})
    assert.deepEqual([allowed.accepted, allowed.problems.map(({code, severity}) => [code, severity])], [true, [['revocation-list-stale', 'warning']]])
    const invalid = await judge(accepted, {revocations: {json: flipByte(list.json, 5), sig: list.sig}})
    assert.deepEqual([invalid.accepted, codes(invalid)], [false, ['revocation-list-invalid']])
  })

  it('refuses an upload signed without a container digest (container-unsigned), and accepts it with that warning when the requirement is turned off', async () => {
    const unsealed = await write(await signedUpload(pki))
    const required = await judge(unsealed)
    assert.deepEqual([required.accepted, required.verdict, required.problems.map(({code, severity}) => [code, severity])], [false, 'SignatureInvalid', [['container-unsigned', 'error']]])
    const allowed = await judge(unsealed, {requireContainerSignature: false})
    assert.deepEqual([allowed.accepted, allowed.verdict, allowed.problems.map(({code, severity}) => [code, severity])], [true, 'Trusted', [['container-unsigned', 'warning']]])
  })

  it('reports a changed payload byte once (the validator) with the ContentMismatch verdict', async () => {
    const tampered = withEntry(await signedUpload(pki), 'assets/icon.png', (bytes) => flipByte(bytes as Uint8Array, 4))
    const report = await judge(await write(tampered))
    assert.equal(report.verdict, 'ContentMismatch')
    assert.deepEqual(codes(report), ['file-digest-mismatch'])
  })

  it('reports every problem of an upload at once', async () => {
    const upload = unsignedUpload({omit: ['runtimes/win-x64/WeatherStation.exe'], manifest: {license: undefined, repository: undefined}})
    const report = await judge(await write(upload), {account: {name: 'Other Labs', id: 'org.other'}, publishedVersions: ['1.5.0']})
    assert.equal(report.accepted, false)
    assert.equal(report.verdict, 'Unsigned')
    assert.deepEqual(codes(report).sort(), [
      'entrypoint-not-packed',
      'publication-metadata-missing',
      'publication-metadata-missing',
      'publisher-mismatch',
      'publisher-mismatch',
      'signature-missing',
      'version-not-newer',
    ])
    const text = renderUploadText(report)
    assert.match(text, /^error publication-metadata-missing: license is missing.* \[\/\]$/m)
    assert.match(text, /^error entrypoint-not-packed: .* \[\/entrypoints\/win-x64\/executable\]$/m)
    assert.match(text, /\nrefused com\.example\.weather-station 1\.4\.2: 7 problems\n$/)
  })

  it('reports an artifact the strict reader refuses as its one problem', async () => {
    const file = path.join(dir, 'not-a-zip.svcPlugin')
    await writeFile(file, 'plain text')
    const report = await judge(file)
    assert.deepEqual([report.accepted, report.verdict, report.id], [false, 'Malformed', null])
    assert.equal(report.problems.length, 1)
    assert.equal(report.problems[0]?.code, 'package-unreadable')
    assert.equal(report.problems[0]?.archiveCode, 'not-an-artifact')
  })

  it('throws invalid-argument for a blank account name', async () => {
    await assert.rejects(judge(accepted, {account: {name: ' '}}), {code: 'invalid-argument'})
  })
})
