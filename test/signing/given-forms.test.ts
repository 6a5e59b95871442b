import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {CertificateFiles} from '../../src/pki/certificate.js'
import {writeKeyPair} from '../../src/pki/keys.js'
import {writeRevocationList} from '../../src/revocation/files.js'
import {createRevocationList, type RevocationList} from '../../src/revocation/list.js'
import {signArtifact, type SignArtifactOptions} from '../../src/signing/sign-artifact.js'
import {verifyArtifact, type VerifyArtifactOptions} from '../../src/signing/verify-artifact.js'
import {verifyUpload, type VerifyUploadOptions} from '../../src/store/verify-upload.js'
import {tempDir} from '../helpers/cli.js'
import {rejectionOf} from '../helpers/promises.js'
import {account, writeSignedUpload} from '../store/uploads.js'
import {writeArtifact} from './artifacts.js'
import {createPki, issueFor, samplePlugin, testNow} from './pki.js'

/**
 * Each input a signing or a verification needs is given to ONE function, as its value or as its files.
 * Over every combination of forms: the value and the files of the same input give the same outcome, byte
 * for byte; an input given in both forms, in neither (when it is required) or by one of its two files only
 * is refused with its code before anything is read or written.
 */

let dir: string
let cleanup: () => Promise<void>
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-forms-'))
})
after(async () => cleanup())

/** How one input is given: as its value, as its files, both, neither, or the first of its two files only. */
const forms = ['value', 'files', 'both', 'neither', 'part'] as const
type Form = (typeof forms)[number]

/** The members of `value`'s form `form`, with `files` the names and paths of its files. */
function given<V>(form: Form, valueName: string, value: V, files: [string, string][]): Record<string, unknown> {
  const asValue = {[valueName]: value}
  const asFiles = Object.fromEntries(files)
  if (form === 'value') return asValue
  if (form === 'files') return asFiles
  if (form === 'both') return {...asValue, ...asFiles}
  if (form === 'part') return Object.fromEntries(files.slice(0, 1))
  return {}
}

/** Writes a certificate as `<name>.json` and `<name>.sig` (one line of base64), as `certificates issue` does. */
async function writeCertificate(name: string, certificate: CertificateFiles): Promise<[string, string]> {
  const json = path.join(dir, `${name}.json`)
  const sig = path.join(dir, `${name}.sig`)
  await writeFile(json, certificate.json)
  await writeFile(sig, `${certificate.sig}\n`)
  return [json, sig]
}

describe('signArtifact takes the key and each certificate as bytes or as files', () => {
  it('signs the same bytes from either form of each, and refuses every other combination with invalid-signer, writing nothing', async () => {
    const pki = createPki()
    const issuer = issueFor(pki.root.privateKey, pki.rootKeyId, {kind: 'issuer', usage: 'issuer'})
    const leaf = issueFor(issuer.keyPair.privateKey, pki.rootKeyId, {issuerCertificate: issuer.files.json})
    const {manifest, payload} = samplePlugin()
    const artifact = await writeArtifact(path.join(dir, 'unsigned.svcPlugin'), {manifest, entries: payload})
    const {privateKeyFile} = await writeKeyPair(dir, 'leaf', leaf.keyPair)
    const [certificateFile, certificateSignatureFile] = await writeCertificate('certificate', leaf.files)
    const [issuerCertificateFile, issuerSignatureFile] = await writeCertificate('issuer', issuer.files)

    let reference: Buffer | undefined
    let count = 0
    for (const keyForm of forms.filter((form) => form !== 'part')) {
      for (const certificateForm of forms) {
        for (const issuerForm of forms) {
          const output = path.join(dir, `signed-${count++}.svcPlugin`)
          const options = {
            artifact,
            output,
            now: testNow,
            ...given(keyForm, 'privateKey', leaf.keyPair.privateKey, [['privateKeyFile', privateKeyFile]]),
            ...given(certificateForm, 'certificate', leaf.files, [['certificateFile', certificateFile], ['certificateSignatureFile', certificateSignatureFile]]),
            ...given(issuerForm, 'issuer', issuer.files, [['issuerCertificateFile', issuerCertificateFile], ['issuerSignatureFile', issuerSignatureFile]]),
          } as SignArtifactOptions
          const malformed = [keyForm, certificateForm, issuerForm].some((form) => form === 'both' || form === 'part') || keyForm === 'neither' || certificateForm === 'neither'
          const label = `key ${keyForm}, certificate ${certificateForm}, issuer ${issuerForm}`
          if (malformed) {
            assert.equal((await rejectionOf(signArtifact(options))).code, 'invalid-signer', label)
            assert.equal(existsSync(output), false, label)
          } else if (issuerForm === 'neither') {
            // A certificate issued by an issuer needs its issuer: the signer's own check, not the options'.
            assert.equal((await rejectionOf(signArtifact(options))).code, 'certificate-issuer-missing', label)
            assert.equal(existsSync(output), false, label)
          } else {
            await signArtifact(options)
            const bytes = await readFile(output)
            reference ??= bytes
            assert.ok(bytes.equals(reference), label)
          }
        }
      }
    }
    assert.equal(count, 4 * 5 * 5)
  })
})

describe('verifyArtifact and verifyUpload take the trust store and the revocation list as values or as files', () => {
  let trustFile: string
  let revocationsFile: string
  let list: RevocationList
  let pki: ReturnType<typeof createPki>
  let signed: string
  before(async () => {
    pki = createPki({rootKeyId: 'root_forms'})
    signed = await writeSignedUpload(path.join(dir, 'upload.svcPlugin'), pki, {now: testNow})
    trustFile = path.join(dir, 'trust.json')
    await writeFile(trustFile, JSON.stringify(pki.trust))
    const {json, sig} = createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, now: testNow, sequence: 7})
    list = {json, sig}
    revocationsFile = path.join(dir, 'revocations.json')
    await writeRevocationList(list, revocationsFile)
  })

  /** Every combination of a form of the trust store with a form of the revocation list ('part' is not one: each is one file). */
  const combinations = forms.filter((form) => form !== 'part').flatMap((trustForm) => forms.filter((form) => form !== 'part').map((listForm) => [trustForm, listForm] as const))

  /** What a verification gives (its result, or the code it throws) for each combination, keyed by the forms. */
  async function outcomes(run: (sources: Record<string, unknown>) => Promise<unknown>): Promise<Map<string, unknown>> {
    const results = new Map<string, unknown>()
    for (const [trustForm, listForm] of combinations) {
      const sources = {...given(trustForm, 'trust', pki.trust, [['trustFile', trustFile]]), ...given(listForm, 'revocations', list, [['revocationsFile', revocationsFile]])}
      results.set(`${trustForm}/${listForm}`, await run(sources).catch((error: {code: string}) => ({thrown: error.code})))
    }
    return results
  }

  /** The outcome expected of each combination: the same as the value forms', or the code of the form given wrongly. */
  function expected(results: Map<string, unknown>): Map<string, unknown> {
    return new Map(
      combinations.map(([trustForm, listForm]) => {
        const key = `${trustForm}/${listForm}`
        if (trustForm === 'both' || trustForm === 'neither') return [key, {thrown: 'trust-store-invalid'}]
        if (listForm === 'both') return [key, {thrown: 'revocation-list-invalid'}]
        return [key, results.get(`value/${listForm === 'files' ? 'value' : listForm}`)]
      }),
    )
  }

  it('verifyArtifact: the same verdict from either form, and a typed refusal of both or neither', async () => {
    const results = await outcomes((sources) => verifyArtifact(signed, {now: testNow, ...sources} as VerifyArtifactOptions))
    assert.equal((results.get('value/value') as {verdict: string}).verdict, 'Trusted')
    assert.equal((results.get('value/value') as {revocations: {sequence: number}}).revocations.sequence, 7)
    assert.deepEqual(results, expected(results))
  })

  it('verifyUpload: the same report from either form, and a typed refusal of both or neither', async () => {
    const results = await outcomes((sources) => verifyUpload(signed, {account, now: testNow, ...sources} as VerifyUploadOptions))
    assert.equal((results.get('value/value') as {accepted: boolean}).accepted, true)
    assert.deepEqual(results, expected(results))
  })
})
