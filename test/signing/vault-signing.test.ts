import assert from 'node:assert/strict'
import {copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {parseSignatureMessage, signatureMessage} from '../../src/artifact/digest.js'
import {certificateMessage, parseCertificate} from '../../src/pki/certificate.js'
import {issueCertificateFiles, type IssueCertificateFilesOptions, prepareCertificateFiles} from '../../src/pki/certificate-files.js'
import {verifyStrict} from '../../src/pki/ed25519.js'
import {signerFromCommand} from '../../src/pki/signer.js'
import {prepareArtifactSignature, signArtifact} from '../../src/signing/sign-artifact.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {flipByte, writeArtifact} from './artifacts.js'
import {opensslKey, type OpensslKey, opensslSign, opensslSigner, opensslSignerCommand, signingRefusal as refusal} from './openssl.js'
import {createPki, packageCertificate, samplePlugin, testNow, type TestPki, validFrom, validTo} from './pki.js'

let dir: string
let pki: TestPki
let vaultKey: OpensslKey
let otherKey: OpensslKey
let certificate: {json: Uint8Array; sig: string}
let otherCertificate: {json: Uint8Array; sig: string}
let unsigned: string
let otherUnsigned: string


before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-vault-'))
  pki = createPki()
  vaultKey = opensslKey(dir, 'vault')
  otherKey = opensslKey(dir, 'other')
  // Issued for keys the project knows only by their public half.
  certificate = packageCertificate(pki, vaultKey.publicKey)
  otherCertificate = packageCertificate(pki, otherKey.publicKey)
  const {manifest, payload} = samplePlugin()
  unsigned = await writeArtifact(path.join(dir, 'unsigned.svcPlugin'), {manifest, entries: payload})
  const other = samplePlugin({extraManifest: {description: 'Another build of the same plugin.'}})
  otherUnsigned = await writeArtifact(path.join(dir, 'other.svcPlugin'), {manifest: other.manifest, entries: other.payload})
})
after(async () => {
  await rm(dir, {recursive: true, force: true})
})

let counter = 0
const fresh = (name: string): string => path.join(dir, `${name}-${counter++}`)

/** Prepares the statement of `artifact` under `cert` and returns its bytes. */
async function prepare(artifact = unsigned, cert = certificate): Promise<Uint8Array> {
  const prepared = await prepareArtifactSignature({artifact, certificate: cert, now: testNow, output: fresh('statement')})
  return new Uint8Array(await readFile(prepared.output))
}

/** The files in `dir` named after `output`, itself or a temporary file beside it: what a refused run would have left behind. */
async function leftovers(output: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => name === path.basename(output) || name.startsWith(`.${path.basename(output)}.`))
}

describe('signing with a key that never leaves its vault (library)', () => {
  it('prepare writes exactly the signed statement: the certificate id, the signing time, and the artifact digest the completed artifact carries', async () => {
    const statement = await prepare()
    const fields = parseSignatureMessage(statement)
    assert.ok(fields !== null)
    assert.equal(fields.keyId, parseCertificate(certificate.json).certificateId)
    assert.equal(fields.signedAt, '2030-06-01T12:00:00Z')
    assert.equal(Buffer.from(statement).toString('utf8'), signatureMessage(fields))
    const output = fresh('signed')
    await signArtifact({artifact: unsigned, certificate, prepared: {statement, signature: opensslSign(vaultKey, statement)}, output})
    const verified = await verifyArtifact(output, {trust: pki.trust, now: testNow, requireContainerSignature: true})
    assert.equal(verified.verdict, 'Trusted')
    assert.equal(verified.artifactDigest, `sha256:${fields.artifactDigestHex}`)
  })

  it('prepare on one machine, complete on another: the same container as the signer route signing the same statement directly', async () => {
    const statement = await prepare()
    // "Another machine": another copy of the artifact, in another folder, completed later.
    const elsewhere = fresh('elsewhere')
    await mkdir(elsewhere)
    const copy = path.join(elsewhere, 'copy.svcPlugin')
    await copyFile(unsigned, copy)
    const completed = fresh('completed')
    await signArtifact({artifact: copy, certificate, prepared: {statement, signature: opensslSign(vaultKey, statement)}, output: completed})
    const direct = fresh('direct')
    await signArtifact({artifact: unsigned, certificate, signer: opensslSigner(vaultKey), now: testNow, output: direct})
    assert.deepEqual(await readFile(completed), await readFile(direct))
  })

  it('signs through a command run by the shell (OpenSSL), and the result verifies', async () => {
    const output = fresh('command')
    const result = await signArtifact({artifact: unsigned, certificate, signer: signerFromCommand(opensslSignerCommand(vaultKey)), now: testNow, output})
    assert.equal(result.signedAt, '2030-06-01T12:00:00Z')
    assert.equal((await verifyArtifact(output, {trust: pki.trust, now: testNow, requireContainerSignature: true})).verdict, 'Trusted')
  })

  it('refuses a statement that is not one (statement-malformed) and one of another key (statement-mismatch) before writing anything', async () => {
    const statement = await prepare()
    const signature = opensslSign(vaultKey, statement)
    const garbage = new Uint8Array(Buffer.from('not a statement\n'))
    const output = fresh('malformed')
    assert.equal(await refusal(signArtifact({artifact: unsigned, certificate, prepared: {statement: garbage, signature}, output})), 'statement-malformed')
    assert.equal(await refusal(signArtifact({artifact: unsigned, certificate: otherCertificate, prepared: {statement, signature}, output})), 'statement-mismatch')
    assert.deepEqual(await leftovers(output), [])
  })

  it('refuses two keys at once (invalid-signer) and no key at all (invalid-signer)', async () => {
    const output = fresh('two')
    assert.equal(await refusal(signArtifact({artifact: unsigned, certificate, signer: opensslSigner(vaultKey), privateKey: pki.signer.privateKey, output})), 'invalid-signer')
    assert.equal(await refusal(signArtifact({artifact: unsigned, certificate, output})), 'invalid-signer')
    assert.deepEqual(await leftovers(output), [])
  })

  // Every route, with every way the signature can be wrong: the outcome is the code that names the fault,
  // and a refused run leaves nothing (no output, no temporary file); a right one gives the one container.
  const routes = ['signer', 'command', 'prepared'] as const
  const faults = ['none', 'other-key', 'other-bytes', 'flipped-bit', 'other-statement', 'failing'] as const
  type Route = (typeof routes)[number]
  type Fault = (typeof faults)[number]
  const expected: Record<Route, Record<Fault, string>> = {
    signer: {none: 'none', 'other-key': 'signature-invalid', 'other-bytes': 'signature-invalid', 'flipped-bit': 'signature-invalid', 'other-statement': 'signature-invalid', failing: 'signer-failed'},
    command: {none: 'none', 'other-key': 'signature-invalid', 'other-bytes': 'signature-invalid', 'flipped-bit': 'signature-invalid', 'other-statement': 'signature-invalid', failing: 'signer-failed'},
    // A prepared statement that is not this artifact's is refused before its signature is looked at.
    prepared: {none: 'none', 'other-key': 'signature-invalid', 'other-bytes': 'signature-invalid', 'flipped-bit': 'signature-invalid', 'other-statement': 'statement-mismatch', failing: 'signature-unreadable'},
  }

  it('over every route and every fault: the fault\'s own code and nothing written, or the same signed bytes', async () => {
    const statement = await prepare()
    const otherStatement = await prepare(otherUnsigned)
    const reference = fresh('reference')
    await signArtifact({artifact: unsigned, certificate, signer: opensslSigner(vaultKey), now: testNow, output: reference})
    const referenceBytes = await readFile(reference)
    /** The signature the vault hands back for `message` under `fault`. */
    const signatureFor = (fault: Fault, message: Uint8Array): Uint8Array => {
      if (fault === 'other-key') return opensslSign(otherKey, message)
      if (fault === 'other-bytes') return opensslSign(vaultKey, new Uint8Array(Buffer.concat([message, Buffer.from('x')])))
      if (fault === 'other-statement') return opensslSign(vaultKey, otherStatement)
      const signature = opensslSign(vaultKey, message)
      return fault === 'flipped-bit' ? flipByte(signature, 40) : signature
    }
    const run = async (route: Route, fault: Fault, output: string): Promise<unknown> => {
      if (route === 'prepared') {
        const prepared = fault === 'other-statement' ? otherStatement : statement
        if (fault === 'failing') return signArtifact({artifact: unsigned, output, key: {preparedFile: await writeTemporary(prepared), signatureFile: await writeTemporary(new Uint8Array(63))}, ...await certificateFiles()})
        return signArtifact({artifact: unsigned, certificate, prepared: {statement: prepared, signature: signatureFor(fault === 'other-statement' ? 'none' : fault, prepared)}, output})
      }
      if (route === 'signer') {
        const signer = fault === 'failing' ? signerFromCommand('echo vault locked >&2; exit 3') : async (message: Uint8Array) => signatureFor(fault, message)
        return signArtifact({artifact: unsigned, certificate, signer, now: testNow, output})
      }
      if (fault === 'none') return signArtifact({artifact: unsigned, certificate, signer: signerFromCommand(opensslSignerCommand(vaultKey)), now: testNow, output})
      // A real process that reads the message and prints the signature the fault calls for, as base64.
      const command = fault === 'failing' ? 'cat > /dev/null; exit 7' : `cat > /dev/null; echo ${Buffer.from(signatureFor(fault, await prepare())).toString('base64')}`
      return signArtifact({artifact: unsigned, certificate, signer: signerFromCommand(command), now: testNow, output})
    }
    const cases = routes.flatMap((route) => faults.map((fault) => [route, fault] as const))
    // Every case once, in an order fast-check shuffles: no case depends on what ran before it.
    await fc.assert(
      fc.asyncProperty(fc.shuffledSubarray(cases, {minLength: cases.length, maxLength: cases.length}), async (order) => {
        for (const [route, fault] of order) {
          const output = fresh('case')
          const outcome = await refusal(run(route, fault, output))
          assert.equal(outcome, expected[route][fault], `${route} ${fault}`)
          if (outcome === 'none') assert.deepEqual(await readFile(output), referenceBytes)
          else assert.deepEqual(await leftovers(output), [])
        }
      }),
      {numRuns: 1, seed: 20301201},
    )
  })
})

/** Writes `bytes` to a fresh file in the test folder. */
async function writeTemporary(bytes: Uint8Array): Promise<string> {
  const file = fresh('input')
  await writeFile(file, bytes)
  return file
}

/** The vault certificate as files, the way the command line passes it. */
async function certificateFiles(): Promise<{certificateFile: string; certificateSignatureFile: string}> {
  return {certificateFile: await writeTemporary(certificate.json), certificateSignatureFile: await writeTemporary(new Uint8Array(Buffer.from(`${certificate.sig}\n`)))}
}

describe('issuing a certificate with a root key that never leaves its vault (library)', () => {
  let rootKey: OpensslKey
  let rootPublicKeyFile: string
  let subjectPublicKeyFile: string
  const options = (output: string, extra: Partial<IssueCertificateFilesOptions> = {}): IssueCertificateFilesOptions => ({
    subject: {kind: 'creator', id: 'com.example', name: 'Example Labs'},
    subjectPublicKeyFile,
    keyUsage: 'package',
    notBefore: validFrom,
    notAfter: validTo,
    rootKeyId: 'root_vault',
    rootPublicKeyFile,
    now: testNow,
    output,
    ...extra,
  })
  before(async () => {
    rootKey = opensslKey(dir, 'vault-root')
    rootPublicKeyFile = await writeTemporary(new Uint8Array(Buffer.from(`${Buffer.from(rootKey.publicKey).toString('base64')}\n`)))
    subjectPublicKeyFile = await writeTemporary(new Uint8Array(Buffer.from(`${Buffer.from(vaultKey.publicKey).toString('base64')}\n`)))
  })

  it('a signing command (OpenSSL) issues a certificate whose signature verifies under the root key', async () => {
    const issued = await issueCertificateFiles(options(fresh('issued'), {key: {signerCommand: opensslSignerCommand(rootKey)}}))
    const json = await readFile(issued.certificateFile)
    const signature = Buffer.from((await readFile(issued.signatureFile, 'utf8')).trim(), 'base64')
    assert.equal(verifyStrict(signature, certificateMessage(json), rootKey.publicKey), true)
    assert.equal(issued.certificate.issuedAt, '2030-06-01T12:00:00Z')
  })

  it('prepare writes the statement (domain line and the certificate), complete with the same options gives that certificate', async () => {
    const prepared = await prepareCertificateFiles(options(fresh('certificate-statement')))
    const statement = new Uint8Array(await readFile(prepared.output))
    assert.equal(Buffer.from(statement).toString('utf8').split('\n')[0], 'svc-plugin-certificate/1')
    const signatureFile = await writeTemporary(opensslSign(rootKey, statement))
    const issued = await issueCertificateFiles(options(fresh('completed'), {key: {preparedFile: prepared.output, signatureFile}, now: new Date('2030-07-01T00:00:00Z')}))
    assert.deepEqual(certificateMessage(await readFile(issued.certificateFile)), Buffer.from(statement))
    assert.equal(issued.certificate.certificateId, prepared.certificate.certificateId)
  })

  it('refuses a signature by another key (signature-invalid), a statement of another certificate (statement-mismatch) and a vault key without the root public key (invalid-signer), writing nothing', async () => {
    const prepared = await prepareCertificateFiles(options(fresh('certificate-statement')))
    const statement = new Uint8Array(await readFile(prepared.output))
    const output = fresh('refused')
    const wrong = await writeTemporary(opensslSign(otherKey, statement))
    assert.equal(await refusal(issueCertificateFiles(options(output, {key: {preparedFile: prepared.output, signatureFile: wrong}}))), 'signature-invalid')
    const right = await writeTemporary(opensslSign(rootKey, statement))
    const other = options(output, {key: {preparedFile: prepared.output, signatureFile: right}, subject: {kind: 'creator', id: 'com.example.other', name: 'Example Labs'}})
    assert.equal(await refusal(issueCertificateFiles(other)), 'statement-mismatch')
    assert.equal(await refusal(issueCertificateFiles(options(output, {key: {signerCommand: opensslSignerCommand(rootKey)}, rootPublicKeyFile: undefined}))), 'invalid-signer')
    assert.deepEqual(await leftovers(output), [])
  })
})
