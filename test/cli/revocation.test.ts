import assert from 'node:assert/strict'
import {readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {base64Line} from '../../src/pki/base64.js'
import {generateKeyPair} from '../../src/pki/ed25519.js'
import {writeRevocationList} from '../../src/revocation/files.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {runCli, runCliJson, tempDir} from '../helpers/cli.js'
import {flipByte, writeContainerSigned} from '../signing/artifacts.js'
import {fieldsOf, samplePlugin, type TestPki} from '../signing/pki.js'
import {livePki} from '../store/uploads.js'

let dir: string
let cleanup: () => Promise<void>
let pki: TestPki
let certificateId: string
const at = (...parts: string[]): string => path.join(dir, ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-revocation-'))
  pki = livePki()
  certificateId = fieldsOf(pki.certificate).certificateId as string
  await writeFile(at('root.key'), base64Line(pki.root.privateKey))
  await writeFile(at('trust.json'), `${JSON.stringify(pki.trust, null, 2)}\n`)
  await writeFile(at('certificate.json'), pki.certificate.json)
  await writeFile(at('other.pub'), base64Line(generateKeyPair().publicKey))
  const {manifest, payload} = samplePlugin()
  await writeContainerSigned(at('signed.svcPlugin'), {manifest, entries: payload}, {privateKey: pki.signer.privateKey, certificate: pki.certificate, now: new Date()})
})
after(async () => cleanup())

const revoke = (...args: string[]) => runCli(['cert', 'revoke', '--list', at('revocations.json'), '--root-key', at('root.key'), ...args])
const verify = (...args: string[]) => runCli(['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), ...args])

describe('svc-plugin cert revoke', () => {
  it('needs --root-key-id to create the list (exit 2, invalid-root-key-id) and writes nothing', async () => {
    const result = await revoke('--certificate-id', `cert_${'1'.repeat(32)}`, '--reason', 'superseded')
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error invalid-root-key-id: /)
    await assert.rejects(readFile(at('revocations.json')), {code: 'ENOENT'})
  })

  it('creates the list with sequence 1 and says what it revoked (exit 0)', async () => {
    const result = await revoke('--root-key-id', 'root_clitest', '--certificate-id', `cert_${'1'.repeat(32)}`, '--reason', 'superseded', '--revoked-at', '2024-01-01T00:00:00Z')
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, `Revoked certificate cert_${'1'.repeat(32)} (sequence 1).\n`)
    const list = JSON.parse(await readFile(at('revocations.json'), 'utf8'))
    assert.equal(list.sequence, 1)
    assert.deepEqual(list.entries, [{kind: 'certificate', value: `cert_${'1'.repeat(32)}`, revokedAt: '2024-01-01T00:00:00Z', reason: 'superseded'}])
    assert.match(await readFile(at('revocations.sig'), 'utf8'), /^[A-Za-z0-9+/]{86}==\n$/)
  })

  it('appends a public key and increments the sequence', async () => {
    const result = await revoke('--public-key', at('other.pub'), '--reason', 'key-compromise')
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^Revoked key sha256:[0-9a-f]{64} \(sequence 2\)\.\n$/)
  })

  it('prints the result with --json', async () => {
    const result = await runCliJson(['cert', 'revoke', '--list', at('revocations.json'), '--root-key', at('root.key'), '--artifact-digest', `sha256:${'a'.repeat(64)}`, '--reason', 'malicious', '--next-update', '2099-01-01T00:00:00Z'])
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual([result.json.created, result.json.sequence, result.json.entry.kind, result.json.list.nextUpdate], [false, 3, 'artifact', '2099-01-01T00:00:00Z'])
  })

  it('refuses a target already revoked (exit 1, already-revoked) and keeps the list', async () => {
    const before = await readFile(at('revocations.json'))
    const result = await revoke('--artifact-digest', `sha256:${'a'.repeat(64)}`, '--reason', 'unspecified')
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error already-revoked: /)
    assert.deepEqual(await readFile(at('revocations.json')), before)
  })

  it('exits 2 for no target, two targets, a malformed id, a bad time or an unknown reason', async () => {
    for (const args of [
      ['--reason', 'superseded'],
      ['--certificate-id', `cert_${'2'.repeat(32)}`, '--artifact-digest', `sha256:${'2'.repeat(64)}`, '--reason', 'superseded'],
      ['--certificate-id', 'cert_nope', '--reason', 'superseded'],
      ['--certificate-id', `cert_${'2'.repeat(32)}`, '--reason', 'superseded', '--revoked-at', 'yesterday'],
      ['--certificate-id', `cert_${'2'.repeat(32)}`, '--reason', 'lost-it'],
    ]) {
      const result = await revoke(...args)
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`)
    }
  })

  it('exits 3 when the root key file cannot be read', async () => {
    const result = runCli(['cert', 'revoke', '--list', at('revocations.json'), '--root-key', at('missing.key'), '--certificate-id', `cert_${'2'.repeat(32)}`, '--reason', 'superseded'])
    const {status, stderr} = await result
    assert.equal(status, 3)
    assert.match(stderr, /^error key-unreadable: /)
  })
})

describe('svc-plugin verify --revocations', () => {
  it('is valid while nothing of the artifact is revoked (exit 0)', async () => {
    const result = await verify('--revocations', at('revocations.json'))
    assert.equal(result.status, 0, result.stdout + result.stderr)
    assert.equal(result.stdout, `valid, signed by certificate ${certificateId}\n`)
  })

  it('is invalid once the signing certificate is revoked for key-compromise (exit 1, invalid: revoked: …)', async () => {
    const revoked = await revoke('--certificate', at('certificate.json'), '--reason', 'key-compromise')
    assert.equal(revoked.status, 0, revoked.stderr)
    const result = await verify('--revocations', at('revocations.json'))
    assert.equal(result.status, 1)
    assert.match(result.stdout, new RegExp(`^invalid: revoked: The certificate ${certificateId} is revoked for key-compromise`))
    const json = await runCliJson(['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('revocations.json')])
    assert.equal(json.json.verdict, 'Revoked')
    assert.equal(json.json.revocations.sequence, 4)
    assert.equal(json.json.problems[0].revocation.reason, 'key-compromise')
  })

  it('refuses a list that does not verify (exit 1, revocation-list-invalid)', async () => {
    const json = await readFile(at('revocations.json'))
    await writeFile(at('tampered.json'), flipByte(json, json.indexOf('"sequence"') + 12))
    await writeFile(at('tampered.sig'), await readFile(at('revocations.sig')))
    const result = await verify('--revocations', at('tampered.json'))
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error revocation-list-invalid: /)
  })

  it('refuses a stale list (exit 1) unless --allow-stale-revocations, which warns', async () => {
    const stale = createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, now: new Date('2024-01-01T00:00:00Z')})
    await writeRevocationList(stale, at('stale.json'))
    const refused = await verify('--revocations', at('stale.json'))
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /^error revocation-list-stale: /)
    const allowed = await verify('--revocations', at('stale.json'), '--allow-stale-revocations')
    assert.equal(allowed.status, 0, allowed.stderr)
    assert.match(allowed.stderr, /^warning revocation-list-stale: /)
  })

  it('exits 3 when the list cannot be read', async () => {
    await rm(at('stale.sig'))
    const result = await verify('--revocations', at('stale.json'))
    assert.equal(result.status, 3)
    assert.match(result.stderr, /^error revocation-list-unreadable: /)
  })
})

describe('svc-plugin install --revocations', () => {
  it('refuses an artifact whose certificate the list revokes (exit 1, signature-revoked)', async () => {
    const result = await runCli(['install', at('signed.svcPlugin'), '--data-root', at('data'), '--rid', 'linux-x64', '--trust', at('trust.json'), '--revocations', at('revocations.json')])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error signature-revoked: .*Revoked \(revoked: /)
  })
})
