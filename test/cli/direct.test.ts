import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {parsePlainCommandLine, type ManifestCommand} from '../../commands/direct.js'
import {base64Line} from '../../src/pki/base64.js'
import {writeRevocationList} from '../../src/revocation/files.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {cliPath, repoRoot, runCli, runDirect, tempDir} from '../helpers/cli.js'
import {signedSample, writeArtifact, flipByte} from '../signing/artifacts.js'
import {livePki, unsignedUpload} from '../store/uploads.js'

let dir: string
let cleanup: () => Promise<void>
const at = (...parts: string[]): string => path.join(dir, ...parts)

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-cli-direct-'))
  const pki = livePki('root_direct')
  await writeFile(at('root.key'), base64Line(pki.root.privateKey))
  await writeFile(at('trust.json'), `${JSON.stringify(pki.trust, null, 2)}\n`)
  await writeArtifact(at('signed.svcPlugin'), await signedSample(pki, {now: new Date()}))
  await writeArtifact(at('unsigned.svcPlugin'), unsignedUpload())
  const signed = await readFile(at('signed.svcPlugin'))
  await writeFile(at('tampered.svcPlugin'), flipByte(signed, Math.floor(signed.length / 3)))
  await writeFile(at('not-a-zip.svcPlugin'), 'plain text\n')
  await writeFile(at('bad-trust.json'), '{"roots": 3}\n')
  const revoke = ['cert', 'revoke', '--root-key', at('root.key'), '--root-key-id', 'root_direct', '--reason', 'superseded']
  const fresh = await runCli([...revoke, '--list', at('fresh', 'revocations.json'), '--artifact-digest', `sha256:${'a'.repeat(64)}`])
  assert.equal(fresh.status, 0, fresh.stderr)
  await mkdir(at('stale'))
  await writeRevocationList(createRevocationList({rootKeyId: pki.rootKeyId, rootPrivateKey: pki.root.privateKey, now: new Date('2024-01-01T00:00:00Z')}), at('stale', 'revocations.json'))
})
after(async () => cleanup())

describe('the direct path: svc-plugin verify without oclif', () => {
  // Each command line gives the same stdout, stderr and exit status on the direct path as through oclif.
  const cases: {name: string; args: () => string[]; env?: Record<string, string>; status: number}[] = [
    {name: 'a valid signed artifact', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json')], status: 0},
    {name: 'the same with --json', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--json'], status: 0},
    {name: '-t and --quiet, flags before the argument', args: () => ['verify', '-q', '-t', at('trust.json'), at('signed.svcPlugin')], status: 0},
    {name: '--trust=<file>', args: () => ['verify', `--trust=${at('trust.json')}`, at('signed.svcPlugin')], status: 0},
    {name: 'the trust store from SVC_PLUGIN_TRUST', args: () => ['verify', at('signed.svcPlugin')], env: {SVC_PLUGIN_TRUST: 'trust.json'}, status: 0},
    {name: 'a tampered artifact', args: () => ['verify', at('tampered.svcPlugin'), '--trust', at('trust.json')], status: 1},
    {name: 'a tampered artifact with --json', args: () => ['verify', at('tampered.svcPlugin'), '--trust', at('trust.json'), '--json'], status: 1},
    {name: 'an unsigned artifact', args: () => ['verify', at('unsigned.svcPlugin'), '--trust', at('trust.json')], status: 1},
    {name: 'a missing artifact', args: () => ['verify', at('missing.svcPlugin'), '--trust', at('trust.json')], status: 3},
    {name: 'a file that is not a ZIP, with --json', args: () => ['verify', at('not-a-zip.svcPlugin'), '--trust', at('trust.json'), '--json'], status: 3},
    {name: 'an invalid trust store', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('bad-trust.json')], status: 3},
    {name: 'an invalid trust store with --json --quiet', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('bad-trust.json'), '--json', '--quiet'], status: 3},
    {name: 'no artifact and no --installed', args: () => ['verify', '--trust', at('trust.json')], status: 2},
    {name: 'no artifact, with --json', args: () => ['verify', '--trust', at('trust.json'), '--json'], status: 2},
    {name: 'a revocation list that does not revoke it', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('fresh', 'revocations.json')], status: 0},
    {name: 'a stale revocation list', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('stale', 'revocations.json')], status: 1},
    {name: 'a stale revocation list applied anyway, with --json', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('stale', 'revocations.json'), '--allow-stale-revocations', '--json'], status: 0},
    {name: 'a stale revocation list applied anyway, quietly', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('stale', 'revocations.json'), '--allow-stale-revocations', '-q'], status: 0},
    {name: 'the revocation list from SVC_PLUGIN_REVOCATIONS', args: () => ['verify', at('signed.svcPlugin'), '-t', at('trust.json')], env: {SVC_PLUGIN_REVOCATIONS: path.join('stale', 'revocations.json')}, status: 1},
  ]
  for (const {name, args, env, status} of cases) {
    it(`gives what oclif gives: ${name} (exit ${status})`, async () => {
      const options = {cwd: dir, env: env ?? {}}
      const direct = await runDirect(args(), options)
      const throughOclif = await runCli(args(), options)
      assert.ok(direct !== undefined, 'the direct path handed the command line to oclif')
      assert.deepEqual(direct, throughOclif)
      assert.equal(direct.status, status, direct.stderr)
    })
  }

  // What the direct path does not take, oclif parses and reports: the direct path writes nothing.
  const handedOver: {name: string; args: () => string[]; env?: Record<string, string>}[] = [
    {name: '--help', args: () => ['verify', '--help']},
    {name: '-h', args: () => ['verify', '-h']},
    {name: 'an unknown flag', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--frobnicate']},
    {name: 'a flag given twice', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--json', '--json']},
    {name: 'a flag without its value', args: () => ['verify', at('signed.svcPlugin'), '--trust']},
    {name: 'a value that looks like a flag', args: () => ['verify', at('signed.svcPlugin'), '--trust', '--json']},
    {name: 'an empty value', args: () => ['verify', at('signed.svcPlugin'), '--trust=']},
    {name: 'a boolean flag with a value', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--json=true']},
    {name: 'bundled short flags', args: () => ['verify', at('signed.svcPlugin'), '-qt', at('trust.json')]},
    {name: '--', args: () => ['verify', '--trust', at('trust.json'), '--', at('signed.svcPlugin')]},
    {name: '- as the artifact', args: () => ['verify', '-', '--trust', at('trust.json')]},
    {name: 'a second argument', args: () => ['verify', at('signed.svcPlugin'), at('unsigned.svcPlugin'), '--trust', at('trust.json')]},
    {name: 'the required --trust missing', args: () => ['verify', at('signed.svcPlugin')]},
    {name: '--installed, which depends on --data-root', args: () => ['verify', '--installed', 'com.example.x', '--trust', at('trust.json'), '--data-root', dir]},
    {name: 'SVC_PLUGIN_DEBUG', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json')], env: {SVC_PLUGIN_DEBUG: '1'}},
    {name: 'a command without an action', args: () => ['validate', at('signed.svcPlugin')]},
    {name: 'the command in another case', args: () => ['VERIFY', at('signed.svcPlugin'), '--trust', at('trust.json')]},
    {name: 'no command', args: () => []},
  ]
  for (const {name, args, env} of handedOver) {
    it(`hands ${name} to oclif, writing nothing`, async () => {
      assert.equal(await runDirect(args(), {cwd: dir, env: env ?? {}}), undefined)
    })
  }

  it('gives what oclif gives for every random command line it takes, and takes the plain ones (seeded sample)', async () => {
    const token = fc.constantFrom(
      ...[['signed.svcPlugin'], ['tampered.svcPlugin'], ['unsigned.svcPlugin'], ['missing.svcPlugin'], ['--trust', 'trust.json'], ['-t', 'trust.json'], ['--trust=trust.json'],
        ['--trust', 'bad-trust.json'], ['--json'], ['-q'], ['--quiet'], ['--no-color'], ['--revocations', 'fresh/revocations.json'], ['--revocations', 'stale/revocations.json'],
        ['--allow-stale-revocations'], ['--installed', 'com.example.x'], ['--data-root', '.'], ['--version', '1.0.0'], ['--'], ['-'], ['--help'], ['--trust'], ['-x'], ['--json=yes']],
    )
    let taken = 0
    await fc.assert(
      fc.asyncProperty(fc.array(token, {maxLength: 6}), fc.boolean(), async (tokens, trustFromEnvironment) => {
        const args = ['verify', ...tokens.flat()]
        const options = {cwd: dir, env: trustFromEnvironment ? {SVC_PLUGIN_TRUST: 'trust.json'} : {}}
        const direct = await runDirect(args, options)
        if (direct === undefined) return
        taken += 1
        assert.deepEqual(direct, await runCli(args, options), args.join(' '))
      }),
      {seed: 20261127, numRuns: 120},
    )
    assert.ok(taken >= 20, `the direct path took only ${taken} of 120 command lines`)
  })

  it('leaves oclif unloaded in the binary when it runs the command, and loads it when it hands over', () => {
    // A module hook in the child records every module it loads.
    const hook = at('record-loads.mjs')
    const log = at('loads.txt')
    const recorder = `import {appendFileSync} from 'node:fs'\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context) }`
    writeFileSync(hook, `import {register} from 'node:module'\nregister(${JSON.stringify(`data:text/javascript,${encodeURIComponent(recorder)}`)})\n`)
    const loaded = (args: string[]): {status: number | null; stderr: string; urls: string[]} => {
      writeFileSync(log, '')
      const child = spawnSync(process.execPath, ['--import', hook, cliPath, ...args], {cwd: dir, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
      return {status: child.status, stderr: child.stderr, urls: readFileSync(log, 'utf8').split('\n').filter(Boolean)}
    }
    const direct = loaded(['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--quiet'])
    assert.equal(direct.status, 0, direct.stderr)
    assert.ok(direct.urls.some((url) => url.endsWith('/dist/cli/direct/direct.js')), direct.urls.join('\n'))
    assert.deepEqual(direct.urls.filter((url) => url.includes('/dist/cli/') && !url.includes('/dist/cli/direct/')), [])
    const handedOver = loaded(['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--quiet', '--no-such-flag'])
    assert.equal(handedOver.status, 2)
    assert.ok(handedOver.urls.some((url) => url.endsWith('/dist/cli/main.js')), handedOver.urls.join('\n'))
    assert.ok(handedOver.urls.some((url) => url.endsWith('/dist/cli/commands/verify.js')), handedOver.urls.join('\n'))
  })

  it('reads the flags of verify from the manifest the build wrote', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
    assert.deepEqual(Object.keys(manifest.commands.verify?.flags ?? {}).sort(), ['allow-stale-revocations', 'data-root', 'installed', 'json', 'no-color', 'quiet', 'revocations', 'trust', 'version'])
  })
})

describe('parsePlainCommandLine', () => {
  const command: ManifestCommand = {
    flags: {
      name: {type: 'option', char: 'n', env: 'DIRECT_TEST_NAME'},
      level: {type: 'option', default: 'normal'},
      loud: {type: 'boolean', default: false},
      strict: {type: 'boolean', env: 'DIRECT_TEST_STRICT'},
      mode: {type: 'option', options: ['a', 'b']},
      output: {type: 'option', required: true},
    },
    args: {input: {}},
    strict: true,
  }

  it('gives every flag as oclif would: given, from its variable, its default, or absent', () => {
    assert.deepEqual(parsePlainCommandLine(['in.txt', '--output', 'o', '-n', 'x'], command), {args: {input: 'in.txt'}, flags: {name: 'x', level: 'normal', loud: false, output: 'o'}})
    process.env.DIRECT_TEST_NAME = 'from-env'
    try {
      assert.deepEqual(parsePlainCommandLine(['--output=o', '--loud'], command), {args: {}, flags: {name: 'from-env', level: 'normal', loud: true, output: 'o'}})
      process.env.DIRECT_TEST_NAME = ''
      assert.deepEqual(parsePlainCommandLine(['--output=o'], command)?.flags, {level: 'normal', loud: false, output: 'o'})
    } finally {
      delete process.env.DIRECT_TEST_NAME
    }
  })

  it('gives undefined for a boolean from its variable, a fixed list of values and a missing required flag', () => {
    process.env.DIRECT_TEST_STRICT = 'true'
    try {
      assert.equal(parsePlainCommandLine(['--output', 'o'], command), undefined)
    } finally {
      delete process.env.DIRECT_TEST_STRICT
    }
    assert.equal(parsePlainCommandLine(['--output', 'o', '--mode', 'a'], command), undefined)
    assert.equal(parsePlainCommandLine(['in.txt'], command), undefined)
    assert.equal(parsePlainCommandLine(['--output', 'o', 'one', 'two'], command), undefined)
  })
})
