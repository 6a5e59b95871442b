import assert from 'node:assert/strict'
import {readFile, stat, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {runCli, runCliJson, tempDir} from '../helpers/cli.js'
import {type Artifact, writeArtifact} from '../signing/artifacts.js'
import {samplePlugin} from '../signing/pki.js'

let dir: string
let cleanup: () => Promise<void>
let unsigned: string
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-signing-'))
  const {manifest, payload} = samplePlugin()
  const artifact: Artifact = {manifest, entries: payload}
  unsigned = await writeArtifact(path.join(dir, 'weather-1.4.2.svcPlugin'), artifact)
})
after(async () => {
  await cleanup()
})

const at = (...parts: string[]): string => path.join(dir, ...parts)

describe('svc-plugin keygen', () => {
  it('writes <name>.key with mode 0600 and <name>.pub, and says where (exit 0)', async () => {
    const result = await runCli(['keygen', '--output', at('keys'), '--name', 'publisher'])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, `Wrote ${at('keys', 'publisher.key')} (private, keep it secret) and ${at('keys', 'publisher.pub')} (public).\n`)
    assert.equal((await stat(at('keys', 'publisher.key'))).mode & 0o777, 0o600)
    assert.match(await readFile(at('keys', 'publisher.pub'), 'utf8'), /^[A-Za-z0-9+/]{43}=\n$/)
  })

  it('never overwrites: a second run exits 2 with output-exists and keeps the key', async () => {
    const before = await readFile(at('keys', 'publisher.key'))
    const result = await runCli(['keygen', '--output', at('keys'), '--name', 'publisher'])
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error output-exists: /)
    assert.deepEqual(await readFile(at('keys', 'publisher.key')), before)
  })

  it('prints the files and the public key with --json', async () => {
    const result = await runCliJson(['keygen', '--output', at('keys'), '--name', 'json'])
    assert.equal(result.status, 0)
    assert.deepEqual(Object.keys(result.json), ['privateKeyFile', 'publicKeyFile', 'publicKey'])
    assert.equal(`${result.json.publicKey}\n`, await readFile(at('keys', 'json.pub'), 'utf8'))
  })
})

describe('svc-plugin cert root, cert issue, sign, verify', () => {
  it('creates a root and its trust store', async () => {
    const result = await runCliJson(['cert', 'root', '--output', at('pki'), '--root-key-id', 'root_clitest'])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.json.rootKeyId, 'root_clitest')
    const trust = JSON.parse(await readFile(at('pki', 'trust.json'), 'utf8'))
    assert.deepEqual(trust, {roots: [{rootKeyId: 'root_clitest', publicKey: result.json.publicKey}]})
    assert.equal((await stat(at('pki', 'root.key'))).mode & 0o777, 0o600)
  })

  it('issues a package certificate for the keygen key', async () => {
    const result = await runCli([
      'cert', 'issue',
      '--root-key', at('pki', 'root.key'),
      '--root-key-id', 'root_clitest',
      '--subject-public-key', at('keys', 'publisher.pub'),
      '--subject-kind', 'creator',
      '--subject-id', 'com.example',
      '--subject-name', 'Example Labs',
      '--not-before', '2020-01-01T00:00:00Z',
      '--not-after', '2099-01-01T00:00:00Z',
      '--output', at('cert'),
    ])
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^Issued cert_[0-9a-f]{32} \(package\) for creator com\.example, valid 2020-01-01T00:00:00Z to 2099-01-01T00:00:00Z: /)
    const certificate = JSON.parse(await readFile(at('cert', 'certificate.json'), 'utf8'))
    assert.equal(certificate.rootKeyId, 'root_clitest')
    assert.match(await readFile(at('cert', 'certificate.sig'), 'utf8'), /^[A-Za-z0-9+/]{86}==\n$/)
  })

  it('refuses to issue with both --root-key and --issuer-key (exit 2)', async () => {
    const result = await runCli([
      'cert', 'issue', '--root-key', at('pki', 'root.key'), '--issuer-key', at('keys', 'json.key'),
      '--issuer-certificate', at('cert', 'certificate.json'), '--issuer-signature', at('cert', 'certificate.sig'),
      '--subject-public-key', at('keys', 'json.pub'), '--subject-kind', 'creator', '--subject-id', 'x', '--subject-name', 'y',
      '--not-after', '2099-01-01T00:00:00Z', '--output', at('cert-both'),
    ])
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error invalid-signer: /)
  })

  for (const [usage, kind] of [['registry', 'organization'], ['package', 'service'], ['issuer', 'creator']] as const) {
    it(`refuses to issue --usage ${usage} for --subject-kind ${kind}: exit 2, invalid-key-usage, nothing written`, async () => {
      const output = at(`cert-${usage}-${kind}`)
      const result = await runCliJson([
        'cert', 'issue', '--root-key', at('pki', 'root.key'), '--root-key-id', 'root_clitest', '--usage', usage,
        '--subject-public-key', at('keys', 'json.pub'), '--subject-kind', kind, '--subject-id', 'com.example', '--subject-name', 'Example Labs',
        '--not-after', '2099-01-01T00:00:00Z', '--output', output,
      ])
      assert.equal(result.status, 2)
      assert.equal(result.json.error.code, 'invalid-key-usage')
      await assert.rejects(stat(output), {code: 'ENOENT'})
    })
  }

  it('signs the artifact and verifies it: exit 0 and the exact line', async () => {
    const sign = await runCli([
      'sign', unsigned,
      '--private-key', at('keys', 'publisher.key'),
      '--certificate', at('cert', 'certificate.json'),
      '--certificate-signature', at('cert', 'certificate.sig'),
      '--output', at('signed.svcPlugin'),
    ])
    assert.equal(sign.status, 0, sign.stderr)
    const certificateId = JSON.parse(await readFile(at('cert', 'certificate.json'), 'utf8')).certificateId as string
    assert.match(sign.stdout, new RegExp(`^Signed .* -> .*signed\\.svcPlugin with certificate ${certificateId} at \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\.\\n$`))
    const verify = await runCli(['verify', at('signed.svcPlugin'), '--trust', at('pki', 'trust.json')])
    assert.equal(verify.status, 0, verify.stderr)
    assert.equal(verify.stdout, `valid, signed by certificate ${certificateId}\n`)
  })

  it('prints the verification result with --json', async () => {
    const result = await runCliJson(['verify', at('signed.svcPlugin'), '--trust', at('pki', 'trust.json')])
    assert.equal(result.status, 0)
    assert.deepEqual(Object.keys(result.json), ['path', 'valid', 'verdict', 'certificateId', 'issuerCertificateId', 'signedAt', 'problems', 'warnings'])
    assert.equal(result.json.verdict, 'Trusted')
    assert.deepEqual(result.json.problems, [])
  })

  it('refuses to sign over an existing output (exit 2)', async () => {
    const result = await runCli([
      'sign', unsigned, '--private-key', at('keys', 'publisher.key'), '--certificate', at('cert', 'certificate.json'),
      '--certificate-signature', at('cert', 'certificate.sig'), '--output', at('signed.svcPlugin'),
    ])
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error output-exists: /)
  })

  it('refuses to sign with another key (exit 1, key-mismatch)', async () => {
    const result = await runCli([
      'sign', unsigned, '--private-key', at('keys', 'json.key'), '--certificate', at('cert', 'certificate.json'),
      '--certificate-signature', at('cert', 'certificate.sig'), '--output', at('wrong-key.svcPlugin'),
    ])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error key-mismatch: /)
  })

  it('reports a tampered artifact: exit 1 and the code', async () => {
    const {openArchive} = await import('../../src/archive/reader.js')
    const archive = await openArchive(at('signed.svcPlugin'))
    const entries = new Map<string, Uint8Array>()
    let manifest: Uint8Array | null = null
    for (const entry of archive.entries) {
      const data = await archive.readEntry(entry)
      if (entry.name === 'manifest.json') manifest = data
      else entries.set(entry.name, data)
    }
    await archive.close()
    const icon = entries.get('assets/icon.png') as Uint8Array
    entries.set('assets/icon.png', new Uint8Array([...icon.subarray(0, -1), (icon.at(-1) as number) ^ 1]))
    await writeArtifact(at('tampered.svcPlugin'), {manifest, entries})
    const result = await runCli(['verify', at('tampered.svcPlugin'), '--trust', at('pki', 'trust.json')])
    assert.equal(result.status, 1)
    assert.match(result.stdout, /^invalid: file-digest-mismatch: files\[1\] "assets\/icon.png" is listed with sha256:[0-9a-f]{64} but its bytes hash to sha256:[0-9a-f]{64}\.\n$/)
    const json = await runCliJson(['verify', at('tampered.svcPlugin'), '--trust', at('pki', 'trust.json')])
    assert.equal(json.status, 1)
    assert.equal(json.json.verdict, 'ContentMismatch')
    assert.deepEqual(json.json.problems.map((p: {code: string}) => p.code), ['file-digest-mismatch'])
  })

  it('reports an unsigned artifact as invalid: signature-missing (exit 1)', async () => {
    const result = await runCli(['verify', unsigned, '--trust', at('pki', 'trust.json')])
    assert.equal(result.status, 1)
    assert.match(result.stdout, /^invalid: signature-missing: /)
  })

  it('reports a file that is not a ZIP as unreadable (exit 3)', async () => {
    await writeFile(at('not-a-zip.svcPlugin'), 'plain text\n')
    const result = await runCli(['verify', at('not-a-zip.svcPlugin'), '--trust', at('pki', 'trust.json')])
    assert.equal(result.status, 3)
    assert.match(result.stdout, /^invalid: package-unreadable: .*not-an-artifact/)
  })

  it('reports a missing artifact (exit 3) and a missing trust store (exit 3)', async () => {
    assert.equal((await runCli(['verify', at('absent.svcPlugin'), '--trust', at('pki', 'trust.json')])).status, 3)
    const noTrust = await runCli(['verify', at('signed.svcPlugin'), '--trust', at('absent.json')])
    assert.equal(noTrust.status, 3)
    assert.match(noTrust.stderr, /^error trust-store-unreadable: /)
  })

  it('issues an issuer certificate, a certificate under it, and signs with the chain', async () => {
    await runCli(['keygen', '--output', at('keys'), '--name', 'issuer'])
    const common = ['--subject-name', 'Example Issuing', '--not-before', '2020-01-01T00:00:00Z', '--not-after', '2098-01-01T00:00:00Z']
    const issuer = await runCli([
      'cert', 'issue', '--root-key', at('pki', 'root.key'), '--root-key-id', 'root_clitest', '--usage', 'issuer',
      '--subject-public-key', at('keys', 'issuer.pub'), '--subject-kind', 'issuer', '--subject-id', 'com.example.issuing', ...common, '--output', at('issuer'),
    ])
    assert.equal(issuer.status, 0, issuer.stderr)
    assert.match(issuer.stdout, /\(issuer\).*issuer\.json, .*issuer\.sig\.\n$/)
    const leaf = await runCli([
      'cert', 'issue', '--issuer-key', at('keys', 'issuer.key'), '--issuer-certificate', at('issuer', 'issuer.json'), '--issuer-signature', at('issuer', 'issuer.sig'),
      '--subject-public-key', at('keys', 'json.pub'), '--subject-kind', 'organization', '--subject-id', 'com.example', ...common, '--output', at('leaf'),
    ])
    assert.equal(leaf.status, 0, leaf.stderr)
    assert.deepEqual(await readFile(at('leaf', 'issuer.json')), await readFile(at('issuer', 'issuer.json')))
    const sign = await runCli([
      'sign', unsigned, '--private-key', at('keys', 'json.key'), '--certificate', at('leaf', 'certificate.json'), '--certificate-signature', at('leaf', 'certificate.sig'),
      '--issuer-certificate', at('leaf', 'issuer.json'), '--issuer-signature', at('leaf', 'issuer.sig'), '--output', at('chained.svcPlugin'),
    ])
    assert.equal(sign.status, 0, sign.stderr)
    const verify = await runCliJson(['verify', at('chained.svcPlugin'), '--trust', at('pki', 'trust.json')])
    assert.equal(verify.status, 0)
    assert.equal(verify.json.issuerCertificateId, JSON.parse(await readFile(at('issuer', 'issuer.json'), 'utf8')).certificateId)
  })

  it('needs --trust (exit 2)', async () => {
    assert.equal((await runCli(['verify', at('signed.svcPlugin')])).status, 2)
  })
})
