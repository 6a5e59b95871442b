import assert from 'node:assert/strict'
import {readFileSync, readdirSync} from 'node:fs'
import {cp, mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {Ajv2020} from 'ajv/dist/2020.js'

import {repoRoot, runCli} from '../helpers/cli.js'
import {makeWorkspace, must, type Workspace} from '../helpers/workspace.js'
import {packRids} from '../merge/fixtures.js'

/** Every schema of docs/json, by file name without `.schema.json`. */
const schemaDir = path.join(repoRoot, 'docs', 'json')
const ajv = new Ajv2020({strict: true, allowUnionTypes: true, allErrors: true})
const names = readdirSync(schemaDir)
  .filter((file) => file.endsWith('.schema.json'))
  .map((file) => {
    ajv.addSchema(JSON.parse(readFileSync(path.join(schemaDir, file), 'utf8')))
    return file.slice(0, -'.schema.json'.length)
  })

/** Runs a command with --json and checks its stdout against docs/json/<schema>.schema.json; returns the document. */
async function checkShape(schema: string, args: string[], status: number): Promise<Record<string, unknown>> {
  const result = await runCli([...args, '--json'])
  assert.equal(result.status, status, `svc-plugin ${args.join(' ')}: ${result.stderr}`)
  const document = JSON.parse(result.stdout) as Record<string, unknown>
  const validate = ajv.getSchema(`https://unpkg.com/svc-plugin/docs/json/${schema}.schema.json`)
  assert.ok(validate, `docs/json/${schema}.schema.json`)
  assert.ok(validate(document), `svc-plugin ${args.join(' ')} --json does not match ${schema}.schema.json: ${ajv.errorsText(validate.errors)}\n${result.stdout}`)
  return document
}

let ws: Workspace
let out: string
before(async () => {
  ws = await makeWorkspace('svc-plugin-json-shapes-')
  out = path.join(ws.dir, 'out')
  await mkdir(out)
})
after(async () => {
  await ws.cleanup()
})

describe('every --json result matches its documented schema', () => {
  it('has one schema per command that prints a result, the shared parts and the error shape', () => {
    const documented = ['activate', 'cert-issue', 'cert-revoke', 'cert-root', 'common', 'error', 'init', 'inspect', 'install', 'keygen', 'list', 'merge', 'pack', 'pack-reproduce', 'sign', 'store-verify', 'uninstall', 'validate', 'verify']
    assert.deepEqual(names.sort(), documented)
  })

  it('pack, inspect and merge', async () => {
    await checkShape('pack', ['pack', ws.source, '--output', path.join(out, 'p.svcPlugin'), '--show-digest'], 0)
    const dry = await checkShape('pack', ['pack', ws.source, '--dry-run'], 0)
    await checkShape('pack-reproduce', ['pack', ws.source, '--reproduce', path.join(out, 'p.svcPlugin')], 0)
    const edited = path.join(out, 'edited')
    await cp(ws.source, edited, {recursive: true})
    await writeFile(path.join(edited, 'added.txt'), 'added\n')
    const rebuilt = await checkShape('pack-reproduce', ['pack', edited, '--reproduce', path.join(out, 'p.svcPlugin')], 1)
    assert.deepEqual(rebuilt.difference, {kind: 'missing-entry', entry: 'added.txt'})
    assert.ok(Array.isArray(dry.files))
    await checkShape('inspect', ['inspect', ws.artifact, '--show-digest'], 0)
    await checkShape('inspect', ['inspect', ws.source], 0)
    const compared = await checkShape('inspect', ['inspect', ws.artifact, '--compare', ws.source], 0)
    assert.deepEqual(Object.keys(compared.comparison as object), ['subject', 'id', 'version', 'changes'])
    const rids = path.join(out, 'rids')
    await mkdir(rids)
    await checkShape('merge', ['merge', await packRids(rids, ['win-x64']), await packRids(rids, ['linux-x64']), '--output', path.join(out, 'm.svcPlugin')], 0)
  })

  it('keygen, cert root, cert issue, cert revoke and sign', async () => {
    await checkShape('keygen', ['keygen', '--output', path.join(out, 'keys')], 0)
    await checkShape('cert-root', ['cert', 'root', '--output', path.join(out, 'pki')], 0)
    await checkShape('cert-issue', ['cert', 'issue', '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--subject-public-key', ws.publicKey, '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z', '--output', path.join(out, 'cert')], 0)
    await checkShape('sign', ['sign', ws.artifact, '--private-key', ws.privateKey, '--certificate', ws.certificate, '--certificate-signature', ws.certificateSignature, '--output', path.join(out, 's.svcPlugin')], 0)
    await checkShape('cert-revoke', ['cert', 'revoke', '--list', path.join(out, 'revocations.json'), '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--certificate-id', 'cert_00000000000000000000000000000000', '--reason', 'superseded'], 0)
  })

  it('verify and store verify, accepted and refused', async () => {
    await must(['cert', 'revoke', '--list', path.join(out, 'verify-revocations.json'), '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--certificate-id', 'cert_00000000000000000000000000000000', '--reason', 'superseded'])
    const valid = await checkShape('verify', ['verify', ws.signed, '--trust', ws.trust, '--revocations', path.join(out, 'verify-revocations.json')], 0)
    assert.equal(valid.verdict, 'Trusted')
    const unsigned = await checkShape('verify', ['verify', ws.artifact, '--trust', ws.trust], 1)
    assert.deepEqual(unsigned.problems, [{code: 'signature-missing', severity: 'error', message: (unsigned.problems as {message: string}[])[0]!.message}])
    await checkShape('store-verify', ['store', 'verify', ws.signed, '--trust', ws.trust, '--account-name', 'Example Labs', '--account-id', 'com.example'], 0)
    const refused = await checkShape('store-verify', ['store', 'verify', ws.artifact, '--trust', ws.trust, '--account-name', 'Other'], 1)
    assert.equal(refused.id, ws.id)
  })

  it('install, list, activate, verify --installed and uninstall', async () => {
    const root = path.join(out, 'data')
    const installed = await checkShape('install', ['install', ws.artifact, '--data-root', root, '--allow-unsigned'], 0)
    assert.ok((installed.warnings as {severity: string}[]).every((warning) => warning.severity === 'warning'))
    const again = await checkShape('install', ['install', ws.artifact, '--data-root', root, '--allow-unsigned', '--force'], 0)
    assert.deepEqual(Object.keys(again.changes as object), ['permissions', 'dependencies', 'runtimes'])
    await checkShape('list', ['list', '--data-root', root], 0)
    await checkShape('activate', ['activate', ws.id, ws.version, '--data-root', root], 0)
    await checkShape('verify', ['verify', '--installed', ws.id, '--data-root', root, '--trust', ws.trust], 0)
    await writeFile(path.join(root, 'plugins', ws.id, 'versions', ws.version, 'assets', 'added.txt'), 'added\n')
    const changed = await checkShape('verify', ['verify', '--installed', ws.id, '--data-root', root, '--trust', ws.trust], 1)
    assert.deepEqual((changed.problems as {code: string; file: string}[]).map(({code, file}) => [code, file]), [['undeclared-file', 'assets/added.txt']])
    await checkShape('uninstall', ['uninstall', ws.id, '--data-root', root], 0)
  })

  it('validate (its shape is documented beside the others)', async () => {
    await checkShape('validate', ['validate', ws.source], 0)
    await checkShape('validate', ['validate', path.join(repoRoot, 'fixtures', 'broken-plugin')], 1)
  })

  it('init', async () => {
    await checkShape('init', ['init', path.join(out, 'new-plugin')], 0)
  })

  it('every failure, a usage error or a refusal, is the error shape', async () => {
    await checkShape('error', ['validate', '--bogus'], 2)
    await checkShape('error', ['frobnicate'], 2)
    await checkShape('error', ['install', ws.artifact, '--data-root', path.join(out, 'refused')], 1)
    await checkShape('error', ['inspect', path.join(out, 'missing.svcPlugin')], 3)
    await checkShape('error', ['uninstall', 'com.example.nothing', '--data-root', path.join(out, 'refused')], 1)
    await checkShape('error', ['init', path.join(out, 'new-plugin')], 2)
    await must(['keygen', '--output', path.join(out, 'twice')])
    await checkShape('error', ['keygen', '--output', path.join(out, 'twice')], 2)
    const refusals: [string, string[], number][] = [
      ['activate', ['activate', ws.id, ws.version, '--data-root', path.join(out, 'refused')], 1],
      ['list', ['list'], 2],
      ['merge', ['merge', ws.artifact, '--output', path.join(out, 'one.svcPlugin')], 2],
      ['sign', ['sign', ws.artifact, '--private-key', ws.privateKey, '--certificate', ws.certificate, '--certificate-signature', ws.certificateSignature, '--output', ws.signed], 2],
      ['cert root', ['cert', 'root', '--output', ws.pki], 2],
      ['cert issue', ['cert', 'issue', '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--subject-public-key', ws.publicKey, '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'X', '--not-after', 'someday', '--output', path.join(out, 'c')], 2],
      ['cert revoke', ['cert', 'revoke', '--list', path.join(out, 'r.json'), '--root-key', path.join(out, 'missing.key'), '--root-key-id', ws.rootKeyId, '--certificate-id', 'cert_00000000000000000000000000000000', '--reason', 'superseded'], 3],
      ['verify', ['verify', ws.signed, '--trust', path.join(out, 'missing-trust.json')], 3],
      ['store verify', ['store', 'verify', ws.signed, '--trust', path.join(out, 'missing-trust.json'), '--account-name', 'X'], 3],
    ]
    for (const [command, args, status] of refusals) {
      const document = await checkShape('error', args, status)
      assert.ok(typeof (document.error as {code?: unknown}).code === 'string', command)
    }
    const secret = path.join(out, 'with-secret')
    await mkdir(secret)
    await writeFile(path.join(secret, 'manifest.json'), readFileSync(path.join(ws.source, 'manifest.json')))
    await writeFile(path.join(secret, '.env'), 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n')
    const refusal = await checkShape('error', ['pack', secret, '--output', path.join(out, 'secret.svcPlugin')], 1)
    assert.equal((refusal.error as {code: string}).code, 'secret-detected')
  })
})
