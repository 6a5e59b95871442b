import assert from 'node:assert/strict'
import {copyFile, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {base64Line} from '../../src/pki/base64.js'
import {repoRoot, spawnCli, tempDir} from '../helpers/cli.js'
import {issueFor, type TestPki} from '../signing/pki.js'
import {livePki, writeSignedUpload} from '../store/uploads.js'

// Real processes: the exit status a host's shell sees, and a signing command run by the store.

let dir: string
let cleanup: () => Promise<void>
let pki: TestPki
const at = (...parts: string[]): string => path.join(dir, ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-countersign-'))
  pki = livePki()
  await writeFile(at('trust.json'), `${JSON.stringify(pki.trust, null, 2)}\n`)
  const store = issueFor(pki.root.privateKey, pki.rootKeyId, {usage: 'registry', id: 'store.example', notBefore: '2020-01-01T00:00:00Z', notAfter: '2099-01-01T00:00:00Z'})
  await writeFile(at('store.key'), base64Line(store.keyPair.privateKey))
  await writeFile(at('certificate.json'), store.files.json)
  await writeFile(at('certificate.sig'), base64Line(Buffer.from(store.files.sig, 'base64')))
  // The store's key stays behind a command: the statement on its standard input, the signature on its standard output.
  const ed25519 = path.join(repoRoot, 'dist', 'src', 'pki', 'ed25519.js')
  await writeFile(
    at('vault.mjs'),
    `import {readFileSync} from 'node:fs'\nimport {sign} from ${JSON.stringify(ed25519)}\nconst key = Buffer.from(readFileSync(${JSON.stringify(at('store.key'))}, 'utf8').trim(), 'base64')\nprocess.stdout.write(Buffer.from(sign(readFileSync(0), key)).toString('base64') + '\\n')\n`,
  )
  await writeSignedUpload(at('genuine.svcPlugin'), pki, {now: new Date()})
  // A thief of the publisher's key signs a version of their own; the store never sees it.
  await writeSignedUpload(at('stolen.svcPlugin'), pki, {now: new Date(), manifest: {version: '9.9.9'}, extraFiles: new Map([['payload.bin', new Uint8Array([0xde, 0xad])]])})
})
after(async () => cleanup())

const storeFlags = () => ['--account-name', 'Example Labs', '--account-id', 'com.example', '--trust', at('trust.json'), '--certificate', at('certificate.json'), '--certificate-signature', at('certificate.sig')]
const hostFlags = () => ['--trust', at('trust.json'), '--require-store-signature']

describe('svc-plugin store countersign, and a host that requires it (real processes)', () => {
  it('countersigns an accepted upload through a signing command, beside the artifact (exit 0)', async () => {
    const result = await spawnCli(['store', 'countersign', at('genuine.svcPlugin'), ...storeFlags(), '--signer-command', `"${process.execPath}" "${at('vault.mjs')}"`])
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^Countersigned .*genuine\.svcPlugin -> .*genuine\.svcPlugin\.countersig with registry certificate cert_[0-9a-f]{32} at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.\n$/)
    assert.match(await readFile(at('genuine.svcPlugin.countersig'), 'utf8'), /^\{"format":"svc-plugin-countersignature\/1",/)
    const verified = await spawnCli(['verify', at('genuine.svcPlugin'), ...hostFlags()])
    assert.equal(verified.status, 0, verified.stdout + verified.stderr)
    assert.match(verified.stdout, /countersigned by store store\.example/)
  })

  it('refuses an artifact signed with a stolen publisher key but never accepted by the store (exit 1)', async () => {
    const verified = await spawnCli(['verify', at('stolen.svcPlugin'), ...hostFlags()])
    assert.equal(verified.status, 1)
    assert.match(verified.stdout, /^invalid: store-signature-missing: /)
    const installed = await spawnCli(['install', at('stolen.svcPlugin'), '--data-root', at('host'), '--rid', 'linux-x64', ...hostFlags()])
    assert.equal(installed.status, 1)
    assert.match(installed.stderr, /^error store-signature-missing: /)
    // The genuine upload's countersignature laid beside it does not vouch for it either.
    await copyFile(at('genuine.svcPlugin.countersig'), at('stolen.svcPlugin.countersig'))
    const borrowed = await spawnCli(['install', at('stolen.svcPlugin'), '--data-root', at('host'), '--rid', 'linux-x64', ...hostFlags()])
    assert.equal(borrowed.status, 1)
    assert.match(borrowed.stderr, /^error store-signature-invalid: .*for another artifact file/)
  })

  it('refuses to countersign with a package certificate (certificate-wrong-purpose, exit 1) and an upload it does not accept (upload-refused, exit 1)', async () => {
    await writeFile(at('publisher.key'), base64Line(pki.signer.privateKey))
    await writeFile(at('package.json'), pki.certificate.json)
    await writeFile(at('package.sig'), base64Line(Buffer.from(pki.certificate.sig, 'base64')))
    const flags = ['--account-name', 'Example Labs', '--trust', at('trust.json'), '--private-key', at('publisher.key'), '--certificate', at('package.json'), '--certificate-signature', at('package.sig'), '--output', at('x.countersig')]
    const wrong = await spawnCli(['store', 'countersign', at('genuine.svcPlugin'), ...flags])
    assert.equal(wrong.status, 1)
    assert.match(wrong.stderr, /^error certificate-wrong-purpose: /)
    const refused = await spawnCli(['store', 'countersign', at('stolen.svcPlugin'), ...storeFlags().slice(0, 2), ...storeFlags().slice(4), '--private-key', at('store.key'), '--output', at('y.countersig')])
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /^error upload-refused: .*publisher-mismatch/)
  })
})
