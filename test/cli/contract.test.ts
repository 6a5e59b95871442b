import assert from 'node:assert/strict'
import {mkdir} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {exitOnFailure} from '../../commands/failure.js'
import {io} from '../../commands/io.js'
import {suggestCommand} from '../../commands/unknown-command.js'
import {runCli, runCliJson, spawnCli} from '../helpers/cli.js'
import {makeWorkspace, must, type Workspace} from '../helpers/workspace.js'
import {packRids} from '../merge/fixtures.js'

let ws: Workspace
before(async () => {
  ws = await makeWorkspace('svc-plugin-contract-')
})
after(async () => {
  await ws.cleanup()
})

let roots = 0
function dataRoot(): string {
  return path.join(ws.dir, `data-${++roots}`)
}

describe('an unknown command', () => {
  it('is unknown-command on stderr with the one close command suggested, exit 2, nothing on stdout', async () => {
    const result = await spawnCli(['valdate', 'plugin'])
    assert.equal(result.status, 2)
    assert.equal(result.stdout, '')
    assert.equal(result.stderr, 'error unknown-command: "valdate" is not a svc-plugin command. Did you mean "validate"? See: svc-plugin --help\n')
  })

  it('prints the JSON error shape on stdout with --json, topic commands suggested by their words', async () => {
    const result = await spawnCli(['cert', 'roo', '--output', 'x', '--json'])
    assert.equal(result.status, 2)
    assert.deepEqual(JSON.parse(result.stdout), {
      error: {code: 'unknown-command', command: 'cert roo', suggestion: 'cert root', message: '"cert roo" is not a svc-plugin command. Did you mean "cert root"? See: svc-plugin --help'},
    })
  })

  it('suggests nothing when no command is close or two are equally close', () => {
    const commands = ['validate', 'verify', 'cert root', 'cert issue', 'store verify', 'list', 'sign']
    assert.equal(suggestCommand(['cret', 'root'], commands), 'cert root')
    assert.equal(suggestCommand(['lsit'], commands), 'list')
    assert.equal(suggestCommand(['store', 'verfy'], commands), 'store verify')
    assert.equal(suggestCommand(['frobnicate'], commands), undefined)
    assert.equal(suggestCommand(['sig'], [...commands, 'sigh']), undefined)
  })
})

describe('help and version', () => {
  it('help <command>, -h and --help print the same help on stdout, exit 0', async () => {
    const [viaHelp, viaShort, viaLong] = await Promise.all([spawnCli(['help', 'validate']), spawnCli(['validate', '-h']), spawnCli(['validate', '--help'])])
    for (const result of [viaHelp, viaShort, viaLong]) {
      assert.equal(result.status, 0, result.stderr)
      assert.match(result.stdout, /^USAGE\n {2}\$ svc-plugin validate /m)
    }
    assert.equal(viaHelp.stdout, viaLong.stdout)
    assert.equal(viaShort.stdout, viaLong.stdout)
  })

  it('help of a topic command takes its words; help of an unknown one is unknown-command, exit 2', async () => {
    const topic = await spawnCli(['help', 'cert', 'root'])
    assert.equal(topic.status, 0, topic.stderr)
    assert.match(topic.stdout, /\$ svc-plugin cert root /)
    const unknown = await spawnCli(['help', 'instal'])
    assert.equal(unknown.status, 2)
    assert.match(unknown.stderr, /^error unknown-command: "instal" is not a svc-plugin command\. Did you mean "install"\?/)
  })

  it('--version prints the version; no arguments prints the command list, exit 0', async () => {
    const version = await spawnCli(['--version'])
    assert.equal(version.status, 0)
    assert.match(version.stdout, /^svc-plugin\/0\.1\.0 /)
    const bare = await spawnCli([])
    assert.equal(bare.status, 0)
    assert.match(bare.stdout, /^COMMANDS\n/m)
    for (const command of ['validate', 'pack', 'install', 'init', 'help']) assert.match(bare.stdout, new RegExp(`^ {2}${command} `, 'm'))
  })
})

describe('usage errors with --json', () => {
  const cases = [
    ['an unknown flag', ['validate', '--bogus'], 'unknown-flag', /^svc-plugin validate has no flag --bogus\.$/],
    ['a missing argument', ['install', '--data-root', 'x'], 'usage', /^Missing required argument ARTIFACT \(the \.svcPlugin file to install\)\.$/],
    ['a missing flag', ['list'], 'usage', /^Missing required flag --data-root \(or set SVC_PLUGIN_DATA_ROOT\)\.$/],
    ['a bad enum value', ['validate', '--level', 'shiny'], 'usage', /Expected --level to be one of development, package, publication, not "shiny"/],
  ] as const
  for (const [what, args, code, message] of cases) {
    it(`${what}: the JSON error shape on stdout, exit 2`, async () => {
      const result = await runCliJson([...args])
      assert.equal(result.status, 2)
      assert.equal(result.json.error.code, code)
      assert.match(result.json.error.message, message)
      assert.ok(result.stderr.startsWith(`error ${code}: `), result.stderr)
    })
  }
})

describe('enum flag values', () => {
  it('match without regard to case', async () => {
    const manifest = path.join(ws.source, 'manifest.json')
    const upper = await runCli(['validate', manifest, '--format', 'JSON', '--level', 'Package'])
    const lower = await runCli(['validate', manifest, '--format', 'json', '--level', 'package'])
    assert.equal(upper.status, lower.status)
    assert.equal(upper.stdout, lower.stdout)
    assert.equal(JSON.parse(upper.stdout).level, 'package')
  })
})

describe('refusals name the command-line flags', () => {
  it('an unsigned artifact names --allow-unsigned; an installed version names --force', async () => {
    const root = dataRoot()
    const unsigned = await runCli(['install', ws.artifact, '--data-root', root])
    assert.equal(unsigned.status, 1)
    assert.match(unsigned.stderr, /^error unsigned-not-permitted: .*Pass --allow-unsigned /)
    await must(['install', ws.artifact, '--data-root', root, '--allow-unsigned', '--quiet'])
    const again = await runCli(['install', ws.artifact, '--data-root', root, '--allow-unsigned'])
    assert.equal(again.status, 1)
    assert.match(again.stderr, /^error already-installed: .*Pass --force to replace it\.$/m)
    assert.doesNotMatch(unsigned.stderr + again.stderr, /allowUnsigned|\bforce\b(?! to)/)
  })

  it('a certificate that would end before it starts names --not-before and --not-after, not the library fields', async () => {
    const result = await runCli(['cert', 'issue', '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--subject-public-key', ws.publicKey, '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-before', '2030-01-01T00:00:00Z', '--not-after', '2029-01-01T00:00:00Z', '--output', path.join(ws.dir, 'never')])
    assert.equal(result.status, 2)
    assert.equal(result.stderr, 'error invalid-validity: The validity would start (2030-01-01T00:00:00Z) after it ends (2029-01-01T00:00:00Z). Check --not-before and --not-after.\n')
  })

  it('a signed artifact without --trust says a trust store is needed, naming --trust and SVC_PLUGIN_TRUST', async () => {
    const result = await runCli(['install', ws.signed, '--data-root', dataRoot()])
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error signature-untrusted: .* A signed artifact is installed only against a trust store: pass --trust <file> \(or set SVC_PLUGIN_TRUST\)\.\n$/)
  })

  it('activate of the active version says so, exit 0', async () => {
    const root = dataRoot()
    await must(['install', ws.artifact, '--data-root', root, '--allow-unsigned', '--quiet'])
    const result = await runCli(['activate', ws.id, ws.version, '--data-root', root])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, `${ws.id} ${ws.version} is already the active version; nothing changed.\n`)
  })
})

describe('--quiet', () => {
  it('prints nothing on success, on every command', async () => {
    const root = dataRoot()
    const out = path.join(ws.dir, 'quiet')
    await mkdir(out)
    const win = await packRids(out, ['win-x64'])
    const linux = await packRids(out, ['linux-x64'])
    const runs: string[][] = [
      ['validate', ws.source],
      ['pack', ws.source, '--output', path.join(out, 'a.svcPlugin')],
      ['pack', ws.source, '--dry-run'],
      ['inspect', ws.artifact],
      ['keygen', '--output', path.join(out, 'keys')],
      ['cert', 'root', '--output', path.join(out, 'pki')],
      ['cert', 'issue', '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--subject-public-key', ws.publicKey, '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z', '--output', path.join(out, 'cert')],
      ['sign', ws.artifact, '--private-key', ws.privateKey, '--certificate', ws.certificate, '--certificate-signature', ws.certificateSignature, '--output', path.join(out, 'signed.svcPlugin')],
      ['verify', ws.signed, '--trust', ws.trust],
      ['store', 'verify', ws.signed, '--trust', ws.trust, '--account-name', 'Example Labs', '--account-id', 'com.example'],
      ['merge', win, linux, '--output', path.join(out, 'merged.svcPlugin')],
      ['install', ws.signed, '--data-root', root, '--trust', ws.trust, '--host-version', '1.8.0'],
      ['list', '--data-root', root],
      ['activate', ws.id, ws.version, '--data-root', root],
      ['verify', '--installed', ws.id, '--data-root', root, '--trust', ws.trust],
      ['uninstall', ws.id, '--data-root', root],
      ['cert', 'revoke', '--list', path.join(out, 'revocations.json'), '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--public-key', ws.publicKey, '--reason', 'key-compromise'],
      ['init', path.join(out, 'new-plugin')],
    ]
    for (const args of runs) {
      const result = await runCli([...args, '--quiet'])
      assert.deepEqual({args, status: result.status, stdout: result.stdout, stderr: result.stderr}, {args, status: 0, stdout: '', stderr: ''})
    }
  })

  it('still prints the error, and the JSON result with --json', async () => {
    const refused = await runCli(['install', ws.artifact, '--data-root', dataRoot(), '--quiet'])
    assert.equal(refused.status, 1)
    assert.equal(refused.stdout, '')
    assert.match(refused.stderr, /^error unsigned-not-permitted: /)
    const json = await runCliJson(['inspect', ws.artifact, '--quiet'])
    assert.equal(json.status, 0)
    assert.equal(json.json.id, ws.id)
  })
})

describe('defaults from the environment', () => {
  it('--data-root, --trust and --revocations come from SVC_PLUGIN_DATA_ROOT, SVC_PLUGIN_TRUST and SVC_PLUGIN_REVOCATIONS', async () => {
    const root = dataRoot()
    const revocations = path.join(ws.dir, 'env-revocations.json')
    await must(['cert', 'revoke', '--list', revocations, '--root-key', path.join(ws.pki, 'root.key'), '--root-key-id', ws.rootKeyId, '--certificate-id', 'cert_00000000000000000000000000000000', '--reason', 'superseded'])
    const env = {SVC_PLUGIN_DATA_ROOT: root, SVC_PLUGIN_TRUST: ws.trust, SVC_PLUGIN_REVOCATIONS: revocations}
    const installed = await runCliJson(['install', ws.signed, '--host-version', '1.8.0'], {env})
    assert.equal(installed.status, 0, installed.stderr)
    assert.equal(installed.json.verdict, 'Trusted')
    assert.equal(installed.json.directory, path.join(root, 'plugins', ws.id, 'versions', ws.version))
    const verified = await runCliJson(['verify', ws.signed], {env})
    assert.equal(verified.status, 0, verified.stderr)
    assert.equal(verified.json.revocations.sequence, 1)
    const listed = await runCliJson(['list'], {env})
    assert.deepEqual(
      listed.json.plugins.map((plugin: {id: string}) => plugin.id),
      [ws.id],
    )
  })

  it('a flag beats its variable', async () => {
    const fromFlag = dataRoot()
    const env = {SVC_PLUGIN_DATA_ROOT: path.join(ws.dir, 'not-this-one')}
    const installed = await runCliJson(['install', ws.artifact, '--allow-unsigned', '--data-root', fromFlag], {env})
    assert.equal(installed.status, 0, installed.stderr)
    assert.equal(installed.json.directory, path.join(fromFlag, 'plugins', ws.id, 'versions', ws.version))
    const wrongTrust = await runCli(['verify', ws.signed, '--trust', ws.trust], {env: {SVC_PLUGIN_TRUST: path.join(ws.dir, 'missing.json')}})
    assert.equal(wrongTrust.status, 0, wrongTrust.stderr)
  })

  it('are shown in --help', async () => {
    const help = await spawnCli(['install', '--help'])
    for (const name of ['SVC_PLUGIN_DATA_ROOT', 'SVC_PLUGIN_TRUST', 'SVC_PLUGIN_REVOCATIONS']) assert.match(help.stdout, new RegExp(`\\[env: ${name}\\]`))
  })
})

describe('a failure no command caught', () => {
  it('is error internal, exit 70, without a stack trace', () => {
    const written: string[] = []
    const stderr = io.stderr
    const exitCode = process.exitCode
    io.stderr = {write: (text: string) => written.push(text)}
    try {
      exitOnFailure(new TypeError('boom'))
      assert.equal(process.exitCode, 70)
    } finally {
      io.stderr = stderr
      process.exitCode = exitCode
    }
    assert.deepEqual(written, ['error internal: boom (a bug in svc-plugin: please report it)\n'])
  })
})
