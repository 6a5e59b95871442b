import assert from 'node:assert/strict'
import {before, describe, it} from 'node:test'
import {verdictOf} from '../../src/signing/result.js'
import {verifyContents} from '../../src/signing/verify.js'
import {contentsOf} from './artifacts.js'
import {tamperCases, tamperContext, type TamperContext} from './tamper-cases.js'
import {testNow} from './pki.js'

describe('verifyContents over in-memory contents: the tamper suite', () => {
  let context: TamperContext
  before(async () => {
    context = await tamperContext()
  })
  for (const tamper of tamperCases) {
    it(`${tamper.name} → ${tamper.expect}`, async () => {
      const artifact = await tamper.build(context)
      const result = await verifyContents(contentsOf(artifact), {trust: tamper.trust?.(context) ?? context.pki.trust, now: tamper.now ?? testNow})
      if (tamper.expect === 'valid') {
        assert.deepEqual(result.problems, [])
        assert.equal(result.verdict, 'Trusted')
        assert.equal(result.valid, true)
      } else {
        assert.deepEqual(result.problems.map((p) => p.code), [tamper.expect], result.problems[0]?.message)
        assert.equal(result.verdict, verdictOf[tamper.expect])
        assert.equal(result.valid, false)
      }
    })
  }
})

describe('verifyContents as the installer calls it', () => {
  let context: TamperContext
  before(async () => {
    context = await tamperContext()
  })

  it('reports a certificate file too large to be read as certificate-unreadable', async () => {
    const contents = contentsOf(context.signed)
    const signingFiles = new Map([...contents.signingFiles, ['certificate.json', null]])
    const result = await verifyContents({...contents, signingFiles}, {trust: context.pki.trust, now: testNow})
    assert.deepEqual(result.problems.map((p) => p.code), ['certificate-unreadable'])
    assert.match(result.problems[0]?.message ?? '', /certificate\.json is \S+ MiB; a certificate file is at most 0\.0625 MiB/)
  })

  it('throws trust-store-invalid for a trust store of the wrong shape', async () => {
    await assert.rejects(verifyContents(contentsOf(context.signed), {trust: {roots: [{rootKeyId: 'nope', publicKey: ''}]}, now: testNow}), {code: 'trust-store-invalid'})
  })
})
