import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {access, readdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {issueCertificate} from '../../src/pki/certificate.js'
import {spawnCli, tempDir} from '../helpers/cli.js'
import {writeArtifact} from '../signing/artifacts.js'
import {opensslKey, type OpensslKey, opensslSignerCommand} from '../signing/openssl.js'
import {createPki, samplePlugin} from '../signing/pki.js'

// Real processes, where the process is the point: the command line run as a user runs it, OpenSSL signing
// with a key svc-plugin never sees, the exit status and the files left as the shell finds them.

let dir: string
let cleanup: () => Promise<void>
let unsigned: string
let vaultKey: OpensslKey
let otherKey: OpensslKey
const at = (...parts: string[]): string => path.join(dir, ...parts)
let chain: string[]

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-vault-'))
  const pki = createPki()
  vaultKey = opensslKey(dir, 'vault')
  otherKey = opensslKey(dir, 'other')
  const now = new Date()
  const issued = issueCertificate({
    subject: {kind: 'creator', id: 'com.example', name: 'Example Labs'},
    subjectPublicKey: vaultKey.publicKey,
    keyUsage: 'package',
    notBefore: new Date(now.getTime() - 86_400_000),
    notAfter: new Date(now.getTime() + 30 * 86_400_000),
    signerPrivateKey: pki.root.privateKey,
    rootKeyId: pki.rootKeyId,
  })
  await writeFile(at('certificate.json'), issued.certificateJson)
  await writeFile(at('certificate.sig'), `${issued.certificateSig}\n`)
  await writeFile(at('trust.json'), JSON.stringify(pki.trust))
  const {manifest, payload} = samplePlugin()
  unsigned = await writeArtifact(at('weather.svcPlugin'), {manifest, entries: payload})
  chain = ['--certificate', at('certificate.json'), '--certificate-signature', at('certificate.sig')]
})
after(async () => {
  await cleanup()
})

const exists = (file: string): Promise<boolean> =>
  access(file).then(
    () => true,
    () => false,
  )
const opensslSignFile = (key: OpensslKey, input: string, output: string): void => {
  execFileSync('openssl', ['pkeyutl', '-sign', '-rawin', '-inkey', key.pem, '-in', input, '-out', output])
}

describe('svc-plugin sign with a key that never leaves its vault (real processes)', () => {
  it('--prepare, openssl signs the statement, --prepared with --signature completes it, and verify trusts the result', async () => {
    const prepared = await spawnCli(['sign', unsigned, ...chain, '--prepare', at('weather.statement')])
    assert.equal(prepared.status, 0, prepared.stderr)
    assert.match(prepared.stdout, /^Prepared the statement to sign for .* with certificate cert_[0-9a-f]{32} at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: .*weather\.statement\.\n$/)
    assert.match(await readFile(at('weather.statement'), 'utf8'), /^svc-plugin-signature\/1\nalgorithm ed25519\nkey-id cert_[0-9a-f]{32}\nsigned-at \S+\nartifact-digest sha256:[0-9a-f]{64}\n$/)
    opensslSignFile(vaultKey, at('weather.statement'), at('weather.sig'))
    const completed = await spawnCli(['sign', unsigned, ...chain, '--prepared', at('weather.statement'), '--signature', at('weather.sig'), '--output', at('prepared.svcPlugin')])
    assert.equal(completed.status, 0, completed.stderr)
    const verified = await spawnCli(['verify', at('prepared.svcPlugin'), '--trust', at('trust.json')])
    assert.equal(verified.status, 0, verified.stdout + verified.stderr)
  })

  it('--signer-command "openssl pkeyutl …" signs through the shell, and verify trusts the result', async () => {
    const signed = await spawnCli(['sign', unsigned, ...chain, '--signer-command', opensslSignerCommand(vaultKey), '--output', at('command.svcPlugin')])
    assert.equal(signed.status, 0, signed.stderr)
    const verified = await spawnCli(['verify', at('command.svcPlugin'), '--trust', at('trust.json')])
    assert.equal(verified.status, 0, verified.stdout + verified.stderr)
  })

  it('a signature by another key: exit 1, signature-invalid, no output file and nothing beside it', async () => {
    await spawnCli(['sign', unsigned, ...chain, '--prepare', at('wrong.statement')])
    opensslSignFile(otherKey, at('wrong.statement'), at('wrong.sig'))
    const result = await spawnCli(['sign', unsigned, ...chain, '--prepared', at('wrong.statement'), '--signature', at('wrong.sig'), '--output', at('wrong.svcPlugin')])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error signature-invalid: /)
    assert.equal(await exists(at('wrong.svcPlugin')), false)
    assert.deepEqual((await readdir(dir)).filter((name) => name.includes('wrong.svcPlugin')), [])
  })

  it('a failing signing command: exit 1, signer-failed naming what it wrote, no output file', async () => {
    const result = await spawnCli(['sign', unsigned, ...chain, '--signer-command', 'echo the vault is locked >&2; exit 3', '--output', at('failed.svcPlugin')])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error signer-failed: The signing command .* exited with status 3\. It wrote: "the vault is locked"\./)
    assert.equal(await exists(at('failed.svcPlugin')), false)
  })

  it('two routes at once, or none: exit 2, invalid-signer naming the routes', async () => {
    const both = await spawnCli(['sign', unsigned, ...chain, '--private-key', at('vault.pem'), '--signer-command', 'true', '--output', at('both.svcPlugin')])
    assert.equal(both.status, 2)
    assert.match(both.stderr, /^error invalid-signer: Give exactly one of --private-key, --signer-command, --prepare, --prepared with --signature \(2 were given\)\./)
    const none = await spawnCli(['sign', unsigned, ...chain, '--output', at('none.svcPlugin')])
    assert.equal(none.status, 2)
    assert.match(none.stderr, /^error invalid-signer: Give exactly one of /)
  })
})

describe('svc-plugin cert root and cert issue with a root key that never leaves its vault (real processes)', () => {
  it('cert root --root-public-key writes root.pub and trust.json and no private key; cert issue --signer-command signs a certificate sign and verify accept', async () => {
    const rootKey = opensslKey(dir, 'offline-root')
    const rootPub = at('offline-root.pub')
    await writeFile(rootPub, `${Buffer.from(rootKey.publicKey).toString('base64')}\n`)
    const root = await spawnCli(['cert', 'root', '--output', at('offline'), '--root-key-id', 'root_offline', '--root-public-key', rootPub])
    assert.equal(root.status, 0, root.stderr)
    assert.deepEqual((await readdir(at('offline'))).sort(), ['root.pub', 'trust.json'])
    assert.deepEqual(JSON.parse(await readFile(at('offline', 'trust.json'), 'utf8')), {roots: [{rootKeyId: 'root_offline', publicKey: Buffer.from(rootKey.publicKey).toString('base64')}]})
    const vaultPub = at('vault.pub')
    await writeFile(vaultPub, `${Buffer.from(vaultKey.publicKey).toString('base64')}\n`)
    const notAfter = new Date(Date.now() + 30 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, 'Z')
    const subject = ['--subject-public-key', vaultPub, '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', notAfter, '--root-key-id', 'root_offline']
    const issued = await spawnCli(['cert', 'issue', ...subject, '--signer-command', opensslSignerCommand(rootKey), '--root-public-key', rootPub, '--output', at('offline-cert')])
    assert.equal(issued.status, 0, issued.stderr)
    const offlineChain = ['--certificate', at('offline-cert', 'certificate.json'), '--certificate-signature', at('offline-cert', 'certificate.sig')]
    const signed = await spawnCli(['sign', unsigned, ...offlineChain, '--signer-command', opensslSignerCommand(vaultKey), '--output', at('offline.svcPlugin')])
    assert.equal(signed.status, 0, signed.stderr)
    const verified = await spawnCli(['verify', at('offline.svcPlugin'), '--trust', at('offline', 'trust.json')])
    assert.equal(verified.status, 0, verified.stdout + verified.stderr)
    // Signed by another key than the root the trust store names: refused before anything is written.
    const wrong = await spawnCli(['cert', 'issue', ...subject, '--signer-command', opensslSignerCommand(otherKey), '--root-public-key', rootPub, '--output', at('wrong-cert')])
    assert.equal(wrong.status, 1)
    assert.match(wrong.stderr, /^error signature-invalid: /)
    assert.equal(await exists(at('wrong-cert')), false)
  })
})

describe('svc-plugin cert revoke with a root key that never leaves its vault (real processes)', () => {
  it('--prepare, openssl signs the statement file, --prepared with --signature writes exactly the prepared list, and verify --revocations applies it', async () => {
    const revoker = opensslKey(dir, 'revoker')
    const revokerPub = at('revoker.pub')
    await writeFile(revokerPub, `${Buffer.from(revoker.publicKey).toString('base64')}\n`)
    const trust = JSON.parse(await readFile(at('trust.json'), 'utf8')) as {roots: unknown[]}
    await writeFile(at('trust-revoker.json'), JSON.stringify({roots: [...trust.roots, {rootKeyId: 'root_revoker', publicKey: Buffer.from(revoker.publicKey).toString('base64')}]}))
    const signed = await spawnCli(['sign', unsigned, ...chain, '--signer-command', opensslSignerCommand(vaultKey), '--output', at('listed.svcPlugin')])
    assert.equal(signed.status, 0, signed.stderr)
    const list = at('lists', 'revocations.json')
    const first = ['cert', 'revoke', '--list', list, '--root-public-key', revokerPub, '--root-key-id', 'root_revoker', '--artifact-digest', `sha256:${'a'.repeat(64)}`, '--reason', 'malicious']
    const prepared = await spawnCli([...first, '--prepare', at('revoke.statement')])
    assert.equal(prepared.status, 0, prepared.stderr)
    assert.match(prepared.stdout, /^Prepared the statement to sign for sequence 1 \(revoking artifact sha256:a{64}, issued at \S+\): .*revoke\.statement\.\n$/)
    assert.equal(await exists(list), false)
    opensslSignFile(revoker, at('revoke.statement'), at('revoke.sig'))
    // A signature by another key: exit 1, signature-invalid, no list written.
    opensslSignFile(otherKey, at('revoke.statement'), at('revoke-other.sig'))
    const wrong = await spawnCli([...first, '--prepared', at('revoke.statement'), '--signature', at('revoke-other.sig')])
    assert.equal(wrong.status, 1)
    assert.match(wrong.stderr, /^error signature-invalid: /)
    assert.equal(await exists(list), false)
    const completed = await spawnCli([...first, '--prepared', at('revoke.statement'), '--signature', at('revoke.sig')])
    assert.equal(completed.status, 0, completed.stderr)
    assert.equal(completed.stdout, `Revoked artifact sha256:${'a'.repeat(64)} (sequence 1).\n`)
    const statement = await readFile(at('revoke.statement'))
    assert.deepEqual(Buffer.concat([Buffer.from('svc-plugin-revocations/1\n'), await readFile(list)]), statement)
    const applied = await spawnCli(['verify', at('listed.svcPlugin'), '--trust', at('trust-revoker.json'), '--revocations', list, '--json'])
    assert.equal(applied.status, 0, applied.stdout + applied.stderr)
    assert.equal((JSON.parse(applied.stdout) as {revocations: {rootKeyId: string; sequence: number}}).revocations.sequence, 1)
    // The same statement again no longer fits the list (it is at sequence 1 now): statement-mismatch, the list unchanged.
    const again = await spawnCli([...first, '--prepared', at('revoke.statement'), '--signature', at('revoke.sig')])
    assert.equal(again.status, 1)
    assert.match(again.stderr, /^error statement-mismatch: /)
    assert.deepEqual(Buffer.concat([Buffer.from('svc-plugin-revocations/1\n'), await readFile(list)]), statement)
    // --signer-command revokes the artifact itself; verify then refuses it.
    const revoked = await spawnCli(['cert', 'revoke', '--list', list, '--root-public-key', revokerPub, '--artifact', at('listed.svcPlugin'), '--reason', 'malicious', '--signer-command', opensslSignerCommand(revoker)])
    assert.equal(revoked.status, 0, revoked.stderr)
    const refused = await spawnCli(['verify', at('listed.svcPlugin'), '--trust', at('trust-revoker.json'), '--revocations', list])
    assert.equal(refused.status, 1)
    assert.match(refused.stdout, /^invalid: revoked: /)
  })
})
