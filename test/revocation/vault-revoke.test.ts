import assert from 'node:assert/strict'
import {mkdir, readdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {base64Line} from '../../src/pki/base64.js'
import {SigningError} from '../../src/pki/errors.js'
import type {KeySource, SigningKeySource} from '../../src/pki/signing-key.js'
import type {Signer} from '../../src/pki/signer.js'
import {readRevocationList} from '../../src/revocation/files.js'
import {revocationListMessage, verifyRevocationList} from '../../src/revocation/list.js'
import {prepareRevocationInFile, revokeInFile, type RevocationInFileOptions} from '../../src/revocation/update.js'
import {tempDir} from '../helpers/cli.js'
import {opensslKey, type OpensslKey, opensslSign, opensslSigner, opensslSignerCommand, signingRefusal as refusal} from '../signing/openssl.js'
import {testNow} from '../signing/pki.js'

// cert revoke with a root key held by OpenSSL, as a key in a vault: the project knows only its public half.

const rootKeyId = 'root_vault'
const later = new Date(testNow.getTime() + 60_000)
const digest = (character: string): string => `sha256:${character.repeat(64)}`

let dir: string
let cleanup: () => Promise<void>
let rootKey: OpensslKey
let otherKey: OpensslKey
let trust: {roots: {rootKeyId: string; publicKey: string}[]}
let counter = 0

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-vault-revoke-'))
  rootKey = opensslKey(dir, 'root')
  otherKey = opensslKey(dir, 'other')
  await writeFile(path.join(dir, 'root.pub'), base64Line(rootKey.publicKey))
  trust = {roots: [{rootKeyId, publicKey: Buffer.from(rootKey.publicKey).toString('base64')}]}
})
after(async () => cleanup())

/** A fresh folder for one case; with `existing`, it already holds a list of sequence 1 signed by the root. */
async function caseFolder(existing: boolean): Promise<string> {
  const folder = path.join(dir, `case-${counter++}`)
  await mkdir(folder)
  if (existing) await revokeInFile({...revocation(folder, digest('0')), signer: opensslSigner(rootKey), rootKeyId})
  return folder
}

/** The options of revoking `target` (an artifact digest) in the list of `folder` at the test time. */
function revocation(folder: string, target: string, now = testNow): RevocationInFileOptions {
  return {listFile: path.join(folder, 'revocations.json'), rootPublicKey: rootKey.publicKey, rootKeyId, artifactDigest: target, reason: 'malicious', now}
}

/** Every file of `folder` and its bytes (the statement and signature files aside): what a refusal must leave as it was. */
async function snapshot(folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const name of (await readdir(folder)).sort()) if (!name.startsWith('prepared')) files[name] = (await readFile(path.join(folder, name))).toString('base64')
  return files
}

const flip = (signature: Uint8Array): Uint8Array => Uint8Array.from(signature, (byte, index) => (index === 0 ? byte ^ 1 : byte))

const routes = ['signer', 'command', 'prepared'] as const
const faults = ['none', 'other-key', 'flipped-bit', 'other-statement', 'changed-meanwhile', 'failing'] as const
type Route = (typeof routes)[number]
type Fault = (typeof faults)[number]
// A signer signs the list as it is when it runs, so a list changed before it runs is simply extended; a
// prepared statement is the list as it was, and no longer fits.
const expected: Record<Route, Record<Fault, string>> = {
  signer: {none: 'none', 'other-key': 'signature-invalid', 'flipped-bit': 'signature-invalid', 'other-statement': 'signature-invalid', 'changed-meanwhile': 'none', failing: 'signer-failed'},
  command: {none: 'none', 'other-key': 'signature-invalid', 'flipped-bit': 'signature-invalid', 'other-statement': 'signature-invalid', 'changed-meanwhile': 'none', failing: 'signer-failed'},
  prepared: {none: 'none', 'other-key': 'signature-invalid', 'flipped-bit': 'signature-invalid', 'other-statement': 'statement-mismatch', 'changed-meanwhile': 'statement-mismatch', failing: 'signature-unreadable'},
}

/** A signer with `fault`, as a function (route signer) or a shell command (route command). */
function faultySigner(route: 'signer' | 'command', fault: Fault): SigningKeySource {
  const key = fault === 'other-key' ? otherKey : rootKey
  if (route === 'command') {
    const command = opensslSignerCommand(key)
    if (fault === 'failing') return {key: {signerCommand: 'echo the vault is locked >&2; exit 3'}}
    if (fault === 'flipped-bit') return {key: {signerCommand: `${command} | node -e 'const b = require("fs").readFileSync(0); b[0] ^= 1; process.stdout.write(b)'`}}
    if (fault === 'other-statement') return {key: {signerCommand: `echo other > "$SVC_PLUGIN_MESSAGE_FILE.other"; openssl pkeyutl -sign -rawin -inkey '${key.pem}' -in "$SVC_PLUGIN_MESSAGE_FILE.other"`}}
    return {key: {signerCommand: command}}
  }
  const signer: Signer = async (message) => {
    if (fault === 'failing') throw new SigningError('signer-failed', 'The vault is locked.')
    if (fault === 'other-statement') return opensslSign(key, Buffer.from('other bytes'))
    const signature = opensslSign(key, message)
    return fault === 'flipped-bit' ? flip(signature) : signature
  }
  return {signer}
}

/** Prepares the revocation of `target` in `folder`, and the statement and signature files with `fault` that complete it. */
async function preparedKey(folder: string, fault: Fault, target: string): Promise<{key: KeySource; statement: Uint8Array}> {
  const statementFile = path.join(folder, 'prepared.statement')
  const signatureFile = path.join(folder, 'prepared.sig')
  const preparedTarget = fault === 'other-statement' ? digest('e') : target
  await prepareRevocationInFile({...revocation(folder, preparedTarget), output: statementFile})
  const statement = new Uint8Array(await readFile(statementFile))
  const signature = opensslSign(fault === 'other-key' ? otherKey : rootKey, statement)
  await writeFile(signatureFile, fault === 'failing' ? 'not a signature\n' : base64Line(fault === 'flipped-bit' ? flip(signature) : signature))
  return {key: {preparedFile: statementFile, signatureFile}, statement}
}

describe('cert revoke with a root key that never leaves its vault (library)', () => {
  it('over every route, every fault and a missing or existing list: the fault\'s own code with the list left as it was, or the list verifies and holds the revocation', async () => {
    for (const existing of [false, true]) {
      for (const route of routes) {
        for (const fault of faults) {
          const folder = await caseFolder(existing)
          const target = digest('a')
          const prepared = route === 'prepared' ? await preparedKey(folder, fault, target) : null
          if (fault === 'changed-meanwhile') await revokeInFile({...revocation(folder, digest('c')), signer: opensslSigner(rootKey)})
          const before = await snapshot(folder)
          const key = prepared === null ? faultySigner(route as 'signer' | 'command', fault) : {key: prepared.key}
          // Completing gives the same options again at a later time: the statement's issue time decides.
          const outcome = await refusal(revokeInFile({...revocation(folder, target, later), ...key}))
          const label = `${existing ? 'existing' : 'missing'} list, ${route}, ${fault}`
          assert.equal(outcome, expected[route][fault], label)
          if (outcome !== 'none') {
            assert.deepEqual(await snapshot(folder), before, label)
            continue
          }
          const list = verifyRevocationList(await readRevocationList(path.join(folder, 'revocations.json')), trust, {now: later})
          const sequence = (existing ? 1 : 0) + (fault === 'changed-meanwhile' ? 1 : 0) + 1
          assert.equal(list.content.sequence, sequence, label)
          assert.ok(list.content.entries.some((entry) => entry.value === target && entry.reason === 'malicious'), label)
          // Completion writes exactly the list that was prepared: the statement is its domain line and these bytes.
          if (prepared !== null) assert.deepEqual(Buffer.from(revocationListMessage(list.json)), Buffer.from(prepared.statement), label)
          else assert.equal(list.content.issuedAt, '2030-06-01T12:01:00Z', label)
        }
      }
    }
  })

  it('prepare on one machine, complete on another: the same list and signature as the signer route at the statement\'s time', async () => {
    const here = await caseFolder(true)
    const {key} = await preparedKey(here, 'none', digest('b'))
    const elsewhere = path.join(dir, `elsewhere-${counter++}`)
    await mkdir(elsewhere)
    for (const name of ['revocations.json', 'revocations.sig']) await writeFile(path.join(elsewhere, name), await readFile(path.join(here, name)))
    const statement = path.join(elsewhere, 'moved.statement')
    const signature = path.join(elsewhere, 'moved.sig')
    await writeFile(statement, await readFile((key as {preparedFile: string}).preparedFile))
    await writeFile(signature, await readFile((key as {signatureFile: string}).signatureFile))
    await rm(path.join(here, 'prepared.statement'))
    await revokeInFile({...revocation(elsewhere, digest('b'), later), rootPublicKey: undefined, rootPublicKeyFile: path.join(dir, 'root.pub'), key: {preparedFile: statement, signatureFile: signature}})
    await revokeInFile({...revocation(here, digest('b')), signer: opensslSigner(rootKey)})
    for (const name of ['revocations.json', 'revocations.sig']) assert.deepEqual(await readFile(path.join(elsewhere, name)), await readFile(path.join(here, name)), name)
  })

  it('refuses a statement that is not a list (statement-malformed), a key held elsewhere without the root public key and a prepare of an existing list without it (invalid-signer)', async () => {
    const folder = await caseFolder(true)
    const before = await snapshot(folder)
    const garbage = new Uint8Array(Buffer.from('svc-plugin-revocations/1\nnot a list\n'))
    const prepared = {statement: garbage, signature: opensslSign(rootKey, garbage)}
    assert.equal(await refusal(revokeInFile({...revocation(folder, digest('d')), prepared})), 'statement-malformed')
    assert.equal(await refusal(revokeInFile({...revocation(folder, digest('d')), rootPublicKey: undefined, signer: opensslSigner(rootKey)})), 'invalid-signer')
    assert.equal(await refusal(prepareRevocationInFile({...revocation(folder, digest('d')), rootPublicKey: undefined, output: path.join(folder, 'prepared.none')})), 'invalid-signer')
    assert.equal(await refusal(revokeInFile({...revocation(folder, digest('d')), signer: opensslSigner(rootKey), key: {signerCommand: opensslSignerCommand(rootKey)}})), 'invalid-signer')
    assert.deepEqual(await snapshot(folder), before)
    assert.deepEqual((await readdir(folder)).filter((name) => name.startsWith('prepared')), [])
  })
})
