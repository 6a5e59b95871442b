import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, writeFileSync} from 'node:fs'
import {cp, mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {directCommandIds, parsePlainCommandLine, type ManifestCommand} from '../../commands/direct.js'
import {COMMANDS} from '../../commands/index.js'
import {base64Line} from '../../src/pki/base64.js'
import {writeRevocationList} from '../../src/revocation/files.js'
import {createRevocationList} from '../../src/revocation/list.js'
import {cliPath, repoRoot, runCli, runDirect, tempDir, type CliResult} from '../helpers/cli.js'
import {signedSample, writeArtifact, flipByte} from '../signing/artifacts.js'
import {livePki, unsignedUpload} from '../store/uploads.js'
import {packRids} from '../merge/fixtures.js'

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

/** A command line run both ways; `prepare` runs before each of the two runs, `files` are compared after each. */
interface Case {
  name: string
  args: () => string[]
  env?: Record<string, string>
  status: number
  prepare?: () => Promise<unknown>
  files?: () => string[]
  /** Applied to stdout, stderr and the written files before they are compared (a clock reading). */
  normalize?: (text: string) => string
}

/** Runs each case on the direct path and through oclif: the same stdout, stderr, exit status and files. */
function givesWhatOclifGives(cases: readonly Case[]): void {
  for (const {name, args, env, status, prepare, files, normalize = (text: string) => text} of cases) {
    it(`gives what oclif gives: ${name} (exit ${status})`, async () => {
      const options = {cwd: dir, env: env ?? {}}
      // Written files are compared as their bytes (latin1 keeps every byte) after the same normalizing.
      const written = async () => Promise.all((files?.() ?? []).map(async (file) => readFile(file).then((bytes) => normalize(bytes.toString('latin1')), () => null)))
      await prepare?.()
      const direct = await runDirect(args(), options)
      const directFiles = await written()
      await prepare?.()
      const throughOclif = await runCli(args(), options)
      assert.ok(direct !== undefined, 'the direct path handed the command line to oclif')
      const normalized = ({stdout, stderr, ...rest}: CliResult) => ({...rest, stdout: normalize(stdout), stderr: normalize(stderr)})
      assert.deepEqual(normalized(direct), normalized(throughOclif))
      assert.deepEqual(directFiles, await written())
      assert.equal(direct.status, status, direct.stderr)
    })
  }
}

/**
 * Random command lines of `command` from `tokens` (and sometimes `env`): every one the direct path takes
 * gives what oclif gives, and it takes a fair share of them (a seeded sample).
 */
function randomCommandLines(command: string, tokens: readonly string[][], env: Record<string, string>): void {
  it(`gives what oclif gives for every random command line of ${command} it takes, and takes the plain ones (seeded sample)`, async () => {
    let taken = 0
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...tokens), {maxLength: 6}), fc.boolean(), async (chosen, withEnvironment) => {
        const args = [command, ...chosen.flat()]
        const options = {cwd: dir, env: withEnvironment ? env : {}}
        const direct = await runDirect(args, options)
        if (direct === undefined) return
        taken += 1
        const throughOclif = await runCli(args, options)
        const normalized = ({stdout, stderr, ...rest}: CliResult) => ({...rest, stdout: signedAt(stdout), stderr: signedAt(stderr)})
        assert.deepEqual(normalized(direct), normalized(throughOclif), args.join(' '))
      }),
      {seed: 20261127, numRuns: 100},
    )
    assert.ok(taken >= 20, `the direct path took only ${taken} of 100 command lines`)
  })
}

/** What the direct path does not take, oclif parses and reports: the direct path writes nothing. */
function handsOver(cases: readonly {name: string; args: () => string[]; env?: Record<string, string>}[]): void {
  for (const {name, args, env} of cases) {
    it(`hands ${name} to oclif, writing nothing`, async () => {
      assert.equal(await runDirect(args(), {cwd: dir, env: env ?? {}}), undefined)
    })
  }
}

const fixture = (...parts: string[]): string => path.join(repoRoot, 'fixtures', ...parts)

/** A reading of the clock (a signing time, the time a stale list is judged at): a run in the next second differs only there. */
const signedAt = (text: string): string => text.replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/g, '<time>')

describe('the direct path: svc-plugin validate without oclif', () => {
  const summary = () => at('step-summary.md')
  givesWhatOclifGives([
    {name: 'a valid plugin folder', args: () => ['validate', fixture('example-plugin')], status: 0},
    {name: 'a broken plugin folder', args: () => ['validate', fixture('broken-plugin')], status: 1},
    {name: 'a broken plugin folder with --json', args: () => ['validate', fixture('broken-plugin'), '--json'], status: 1},
    {name: 'a broken plugin folder with -q', args: () => ['validate', '-q', fixture('broken-plugin')], status: 1},
    {name: 'a manifest file by --manifest', args: () => ['validate', '--manifest', fixture('example-plugin', 'manifest.json')], status: 0},
    {name: 'two folders', args: () => ['validate', fixture('example-plugin'), fixture('broken-plugin')], status: 1},
    {name: 'a glob pattern, with --json', args: () => ['validate', `${fixture()}/*-plugin`, '--json'], status: 1},
    {name: 'a path that does not exist', args: () => ['validate', at('nothing-here')], status: 3},
    {name: 'no path in a folder without manifest.json, with --json', args: () => ['validate', '--json'], status: 3},
    {name: 'PATHs and --manifest', args: () => ['validate', fixture('example-plugin'), fixture('broken-plugin'), '--manifest', 'x.json'], status: 2},
    {name: 'a signed artifact by --artifact', args: () => ['validate', '--artifact', at('signed.svcPlugin')], status: 0},
    {name: 'a host to judge for', args: () => ['validate', fixture('example-plugin'), '--rid', 'linux-musl-x64', '--host-version', '0.1.0', '--no-color'], status: 1},
    {name: 'GitHub Actions, with a step summary', args: () => ['validate', fixture('broken-plugin'), '--root', repoRoot], env: {GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: 'step-summary.md'}, status: 1, prepare: async () => writeFile(summary(), ''), files: () => [summary()]},
  ])
  randomCommandLines('validate', [
    [fixture('example-plugin')], [fixture('broken-plugin')], [fixture('example-plugin', 'manifest.json')], [`${fixture()}/*-plugin`], ['signed.svcPlugin'], ['missing'],
    ['--manifest', fixture('broken-plugin', 'manifest.json')], ['-d', fixture('example-plugin')], ['--artifact', 'signed.svcPlugin'], ['--json'], ['-q'], ['--no-color'],
    ['--rid', 'linux-musl-x64'], ['--host-version', '0.1.0'], ['--root', '.'], ['--format', 'text'], ['--level=package'], ['--'], ['-h'], ['--json=1'],
  ], {GITHUB_ACTIONS: 'true'})
  givesWhatOclifGives([
    {name: '--format sarif', args: () => ['validate', fixture('broken-plugin'), '--format', 'sarif', '--root', repoRoot], status: 1},
    {name: '--format GitLab, in another case', args: () => ['validate', fixture('broken-plugin'), '--format', 'GitLab', '--root', repoRoot], status: 1},
    {name: '-f junit', args: () => ['validate', fixture('example-plugin'), '-f', 'junit'], status: 0},
    {name: '--level package', args: () => ['validate', fixture('example-plugin'), '--level', 'package'], status: 0},
    {name: '-l publication with --json', args: () => ['validate', fixture('example-plugin'), '-l', 'publication', '--json'], status: 0},
    {name: '--json with --format text', args: () => ['validate', fixture('example-plugin'), '--json', '--format', 'text'], status: 2},
    {name: '--format json and a missing path', args: () => ['validate', at('nothing-here'), '--format', 'json'], status: 3},
  ])
  givesWhatOclifGives([
    {name: '--protocol 4-5 with --json, a range read as oclif reads it', args: () => ['validate', fixture('example-plugin'), '--protocol', '4-5', '--json'], status: 1},
    {name: '--protocol 2', args: () => ['validate', fixture('example-plugin'), '--protocol', '2'], status: 0},
  ])
  handsOver([
    {name: '--protocol 3-1, which is no range', args: () => ['validate', fixture('example-plugin'), '--protocol', '3-1']},
    {name: '--format with a word not on its list', args: () => ['validate', fixture('example-plugin'), '--format', 'xml']},
  ])
})

describe('the direct path: svc-plugin pack without oclif', () => {
  const output = () => at('packed', 'out.svcPlugin')
  const clean = async () => rm(at('packed'), {recursive: true, force: true})
  const existing = async () => {
    await clean()
    await mkdir(at('packed'))
    await writeFile(output(), 'already here\n')
  }
  const secretPlugin = async () => {
    await clean()
    await rm(at('secret-plugin'), {recursive: true, force: true})
    await cp(fixture('example-plugin'), at('secret-plugin'), {recursive: true})
    await writeFile(at('secret-plugin', '.npmrc'), '//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n')
  }
  givesWhatOclifGives([
    {name: 'the example plugin', args: () => ['pack', fixture('example-plugin'), '--output', output()], status: 0, prepare: clean, files: () => [output()]},
    {name: 'the example plugin with --json and --show-digest', args: () => ['pack', fixture('example-plugin'), '-o', output(), '--json', '--show-digest'], status: 0, prepare: clean, files: () => [output()]},
    {name: 'a dry run', args: () => ['pack', fixture('example-plugin'), '--dry-run', '--output', output()], status: 0, prepare: clean, files: () => [output()]},
    {name: 'into a folder, quietly', args: () => ['pack', fixture('example-plugin'), '-q', '--output', `${at('packed')}${path.sep}`], status: 0, prepare: clean, files: () => [at('packed', 'com.example.weather-station-1.4.2.svcPlugin')]},
    {name: 'an output that exists', args: () => ['pack', fixture('example-plugin'), '--output', output()], status: 2, prepare: existing, files: () => [output()]},
    {name: 'an output that exists, with --force', args: () => ['pack', fixture('example-plugin'), '--output', output(), '-f'], status: 0, prepare: existing, files: () => [output()]},
    {name: 'a broken plugin', args: () => ['pack', fixture('broken-plugin'), '--output', output()], status: 1, prepare: clean, files: () => [output()]},
    {name: 'a plugin with a secret, with --json', args: () => ['pack', at('secret-plugin'), '--output', output(), '--json'], status: 1, prepare: secretPlugin, files: () => [output()]},
    {name: 'the working folder, which holds no manifest.json', args: () => ['pack', '--output', output()], status: 3, prepare: clean, files: () => [output()]},
  ])
  givesWhatOclifGives([
    {name: '--level publication', args: () => ['pack', fixture('example-plugin'), '--level', 'publication', '--output', output()], status: 0, prepare: clean, files: () => [output()]},
  ])
  handsOver([
    {name: '--allow-secret, which takes several values', args: () => ['pack', fixture('example-plugin'), '--allow-secret', '.npmrc', '--output', output()]},
  ])
})

describe('the direct path: svc-plugin inspect without oclif', () => {
  givesWhatOclifGives([
    {name: 'a signed artifact', args: () => ['inspect', at('signed.svcPlugin')], status: 0},
    {name: 'a signed artifact with --json and --show-digest', args: () => ['inspect', at('signed.svcPlugin'), '--json', '--show-digest'], status: 0},
    {name: 'a plugin folder', args: () => ['inspect', fixture('example-plugin')], status: 0},
    {name: 'a tampered artifact', args: () => ['inspect', at('tampered.svcPlugin')], status: 1},
    {name: 'a file that is not a ZIP, with --json', args: () => ['inspect', at('not-a-zip.svcPlugin'), '--json'], status: 3},
    {name: 'a missing subject', args: () => ['inspect', at('missing.svcPlugin')], status: 3},
  ])
  handsOver([{name: 'no subject (required)', args: () => ['inspect']}])
})

describe('the direct path: the other commands without oclif', () => {
  const dataRoot = () => at('data')
  const installed = async () => {
    await rm(dataRoot(), {recursive: true, force: true})
    const result = await runCli(['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--trust', at('trust.json'), '--rid', 'win-x64'])
    assert.equal(result.status, 0, result.stderr)
  }
  const fresh = (...names: string[]) => async () => Promise.all(names.map((name) => rm(at(name), {recursive: true, force: true})))
  const signingFiles = (...more: string[]) => ['--private-key', at('publisher', 'publisher.key'), '--certificate', at('publisher', 'certificate.json'), '--certificate-signature', at('publisher', 'certificate.sig'), ...more]

  before(async () => {
    await mkdir(at('publisher'), {recursive: true})
    const keys = await runCli(['keygen', '--output', at('publisher'), '--name', 'publisher'])
    assert.equal(keys.status, 0, keys.stderr)
    const issued = await runCli(['cert', 'issue', '--root-key', at('root.key'), '--root-key-id', 'root_direct', '--subject-public-key', at('publisher', 'publisher.pub'), '--subject-kind', 'organization', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z', '--output', at('publisher')])
    assert.equal(issued.status, 0, issued.stderr)
    win = await packRids(dir, ['win-x64'])
    linux = await packRids(dir, ['linux-x64'])
  })
  let win: string
  let linux: string

  givesWhatOclifGives([
    {name: 'schema', args: () => ['schema'], status: 0},
    {name: 'sign', args: () => ['sign', at('unsigned.svcPlugin'), ...signingFiles('--output', at('signed-again.svcPlugin'))], status: 0, prepare: fresh('signed-again.svcPlugin'), normalize: signedAt},
    {name: 'sign with --json', args: () => ['sign', at('unsigned.svcPlugin'), ...signingFiles('-o', at('signed-again.svcPlugin'), '--json')], status: 0, prepare: fresh('signed-again.svcPlugin'), normalize: signedAt},
    {name: 'sign of a signed artifact', args: () => ['sign', at('signed.svcPlugin'), ...signingFiles('--output', at('signed-again.svcPlugin'))], status: 1, prepare: fresh('signed-again.svcPlugin'), files: () => [at('signed-again.svcPlugin')]},
    {name: 'sign without its key file', args: () => ['sign', at('unsigned.svcPlugin'), '--private-key', at('nothing.key'), '--certificate', at('publisher', 'certificate.json'), '--certificate-signature', at('publisher', 'certificate.sig'), '--output', at('signed-again.svcPlugin')], status: 3, prepare: fresh('signed-again.svcPlugin')},
    {name: 'merge', args: () => ['merge', win, linux, '--output', at('merged.svcPlugin')], status: 0, prepare: fresh('merged.svcPlugin'), files: () => [at('merged.svcPlugin')]},
    {name: 'merge with --json', args: () => ['merge', linux, win, '-o', at('merged.svcPlugin'), '--json'], status: 0, prepare: fresh('merged.svcPlugin'), files: () => [at('merged.svcPlugin')]},
    {name: 'merge of one artifact', args: () => ['merge', win, '--output', at('merged.svcPlugin')], status: 2, prepare: fresh('merged.svcPlugin')},
    {name: 'merge of an artifact with itself, with --json', args: () => ['merge', win, win, '--output', at('merged.svcPlugin'), '--json'], status: 1, prepare: fresh('merged.svcPlugin')},
    {name: 'init', args: () => ['init', at('new-plugin'), '--id', 'com.example.new', '--rid', 'linux-x64'], status: 0, prepare: fresh('new-plugin'), files: () => [at('new-plugin', 'manifest.json')]},
    {name: 'init of a folder that has a manifest', args: () => ['init', fixture('example-plugin'), '--json'], status: 2},
    {name: 'keygen into a file that is not a folder', args: () => ['keygen', '--output', at('trust.json')], status: 5},
    {name: 'cert root into a file that is not a folder', args: () => ['cert', 'root', '--output', at('trust.json'), '--root-key-id', 'root_other'], status: 5},
    {name: 'cert issue, named by its id, with a validity that ends before it starts', args: () => ['cert:issue', '--root-key', at('root.key'), '--root-key-id', 'root_direct', '--subject-public-key', at('publisher', 'publisher.pub'), '--subject-kind', 'Organization', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-before', '2030-01-01T00:00:00Z', '--not-after', '2029-01-01T00:00:00Z', '--output', at('issued')], status: 2, prepare: fresh('issued')},
    {name: 'cert issue of a kind and usage that do not go together', args: () => ['cert', 'issue', '--root-key', at('root.key'), '--root-key-id', 'root_direct', '--subject-public-key', at('publisher', 'publisher.pub'), '--subject-kind', 'organization', '--usage', 'registry', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z', '--output', at('issued'), '--json'], status: 2, prepare: fresh('issued'), files: () => [at('issued', 'certificate.json')]},
    {name: 'cert revoke', args: () => ['cert', 'revoke', '--list', at('revoked', 'revocations.json'), '--root-key', at('root.key'), '--root-key-id', 'root_direct', '--reason', 'Superseded', '--certificate-id', `cert_${'1'.repeat(32)}`, '--revoked-at', '2024-01-01T00:00:00Z', '--next-update', '2099-01-01T00:00:00Z'], status: 0, prepare: fresh('revoked'), files: () => [at('revoked', 'revocations.json')], normalize: signedAt},
    {name: 'store verify', args: () => ['store', 'verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--account-name', 'Example Labs'], status: 1},
    {name: 'store verify with --json', args: () => ['store', 'verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--account-name', 'Example Labs', '--json'], status: 1},
    {name: 'list', args: () => ['list', '--data-root', dataRoot()], status: 0, prepare: installed},
    {name: 'list with --json', args: () => ['list', '--data-root', dataRoot(), '--json'], status: 0, prepare: installed},
    {name: 'activate the active version', args: () => ['activate', 'com.example.weather-station', '1.4.2', '--data-root', dataRoot()], status: 0, prepare: installed},
    {name: 'activate a version that is not installed', args: () => ['activate', 'com.example.weather-station', '9.9.9', '--data-root', dataRoot(), '--json'], status: 1, prepare: installed},
    {name: 'install of a signed artifact', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--trust', at('trust.json'), '--rid', 'win-x64'], status: 0, prepare: fresh('data'), files: () => [path.join(dataRoot(), 'plugins', 'com.example.weather-station', 'current.json')]},
    {name: 'install with --no-activate, --retain 0, --protocol 2 and --json', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '-t', at('trust.json'), '--rid', 'win-x64', '--no-activate', '--retain', '0', '--protocol', '2', '--json'], status: 0, prepare: fresh('data')},
    {name: 'install of a signed artifact without a trust store (its advice names --trust)', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--rid', 'win-x64'], status: 1, prepare: fresh('data')},
    {name: 'install of an unsigned artifact (its advice names --allow-unsigned)', args: () => ['install', at('unsigned.svcPlugin'), '--data-root', dataRoot(), '--rid', 'win-x64', '--json'], status: 1, prepare: fresh('data')},
    {name: 'install of an installed version (its advice names --force)', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--trust', at('trust.json'), '--rid', 'win-x64'], status: 1, prepare: installed},
    {name: 'install on a host of protocols 7 to 9', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--trust', at('trust.json'), '--rid', 'win-x64', '--protocol', ' 7 - 9 '], status: 0, prepare: fresh('data')},
    {name: 'uninstall with --purge', args: () => ['uninstall', 'com.example.weather-station', '--data-root', dataRoot(), '--purge'], status: 0, prepare: installed, files: () => [path.join(dataRoot(), 'plugins', 'com.example.weather-station', 'current.json')]},
  ])
  handsOver([
    {name: 'store verify with --published, which takes several values', args: () => ['store', 'verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--account-name', 'Example Labs', '--published', '1.0.0']},
    {name: 'uninstall with --no-such-flag', args: () => ['uninstall', 'x', '--data-root', dataRoot(), '--no-such-flag']},
    {name: 'install with --retain -1', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--retain', '-1']},
    {name: 'install with --retain of a word', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--retain', 'two']},
    {name: 'install with a --protocol that is no range', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--protocol', '3-1']},
    {name: 'install with --no-force, which force does not allow', args: () => ['install', at('signed.svcPlugin'), '--data-root', dataRoot(), '--no-force']},
  ])
})

describe('the direct path: svc-plugin verify without oclif', () => {
  givesWhatOclifGives([
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
    {name: 'a stale revocation list', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('stale', 'revocations.json')], status: 1, normalize: signedAt},
    {name: 'a stale revocation list applied anyway, with --json', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('stale', 'revocations.json'), '--allow-stale-revocations', '--json'], status: 0, normalize: signedAt},
    {name: 'a stale revocation list applied anyway, quietly', args: () => ['verify', at('signed.svcPlugin'), '--trust', at('trust.json'), '--revocations', at('stale', 'revocations.json'), '--allow-stale-revocations', '-q'], status: 0, normalize: signedAt},
    {name: 'the revocation list from SVC_PLUGIN_REVOCATIONS', args: () => ['verify', at('signed.svcPlugin'), '-t', at('trust.json')], env: {SVC_PLUGIN_REVOCATIONS: path.join('stale', 'revocations.json')}, status: 1, normalize: signedAt},
  ])

  handsOver([
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
    {name: 'help, which is oclif\'s', args: () => ['help', 'verify']},
    {name: 'the command in another case', args: () => ['VERIFY', at('signed.svcPlugin'), '--trust', at('trust.json')]},
    {name: 'no command', args: () => []},
  ])

  randomCommandLines('verify', [
    ['signed.svcPlugin'], ['tampered.svcPlugin'], ['unsigned.svcPlugin'], ['missing.svcPlugin'], ['--trust', 'trust.json'], ['-t', 'trust.json'], ['--trust=trust.json'],
    ['--trust', 'bad-trust.json'], ['--json'], ['-q'], ['--quiet'], ['--no-color'], ['--revocations', 'fresh/revocations.json'], ['--revocations', 'stale/revocations.json'],
    ['--allow-stale-revocations'], ['--installed', 'com.example.x'], ['--data-root', '.'], ['--version', '1.0.0'], ['--'], ['-'], ['--help'], ['--trust'], ['-x'], ['--json=yes'],
  ], {SVC_PLUGIN_TRUST: 'trust.json'})

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

  it('runs every command but help', () => {
    assert.deepEqual([...directCommandIds].sort(), Object.keys(COMMANDS).filter((id) => id !== 'help').sort())
  })

  it('reads the flags of verify from the manifest the build wrote', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {commands: Record<string, ManifestCommand>}
    assert.deepEqual(Object.keys(manifest.commands.verify?.flags ?? {}).sort(), ['allow-stale-revocations', 'data-root', 'installed', 'json', 'no-color', 'quiet', 'require-container-signature', 'require-store-signature', 'revocations', 'store-signature', 'trust', 'version'])
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
      range: {type: 'option', custom: true},
      format: {type: 'option', valueKind: {choices: ['json', 'sarif']}},
      output: {type: 'option', required: true},
    },
    args: {input: {}},
    strict: true,
  }

  it('gives every flag as oclif would: given, from its variable, its default, or absent', () => {
    assert.deepEqual(parsePlainCommandLine(['in.txt', '--output', 'o', '-n', 'x'], command), {args: {input: 'in.txt'}, flags: {name: 'x', level: 'normal', loud: false, output: 'o'}, argv: ['in.txt']})
    process.env.DIRECT_TEST_NAME = 'from-env'
    try {
      assert.deepEqual(parsePlainCommandLine(['--output=o', '--loud'], command), {args: {}, flags: {name: 'from-env', level: 'normal', loud: true, output: 'o'}, argv: []})
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
    assert.equal(parsePlainCommandLine(['--output', 'o', '--range', '1-3'], command), undefined)
    assert.equal(parsePlainCommandLine(['--output', 'o', '--format', 'xml'], command), undefined)
    assert.equal(parsePlainCommandLine(['in.txt'], command), undefined)
    assert.equal(parsePlainCommandLine(['--output', 'o', 'one', 'two'], command), undefined)
  })

  it('gives a word of a word list in its listed spelling, as oclif does', () => {
    assert.equal(parsePlainCommandLine(['--output', 'o', '--format', ' SARIF '], command)?.flags.format, 'sarif')
  })

  it('reads a count and a range as oclif does, gives their defaults, and turns a flag off with --no-', () => {
    const install: ManifestCommand = {
      flags: {
        activate: {type: 'boolean', allowNo: true, default: true},
        retain: {type: 'option', valueKind: {value: 'count', minimum: 0}, valueDefault: 1, default: 1},
        protocol: {type: 'option', valueKind: {value: 'protocol-range'}, valueDefault: {minimum: 1, maximum: 3}, default: '1-3'},
      },
      args: {},
    }
    assert.deepEqual(parsePlainCommandLine([], install)?.flags, {activate: true, retain: 1, protocol: {minimum: 1, maximum: 3}})
    assert.deepEqual(parsePlainCommandLine(['--no-activate', '--retain', '0', '--protocol=2'], install)?.flags, {activate: false, retain: 0, protocol: {minimum: 2, maximum: 2}})
    for (const wrong of [['--retain', '1.5'], ['--retain=-1'], ['--protocol', '0-2'], ['--protocol', 'x'], ['--protocol', '99999999999999999999'], ['--no-retain'], ['--activate', '--no-activate']]) {
      assert.equal(parsePlainCommandLine(wrong, install), undefined, wrong.join(' '))
    }
  })

  it('gives an argument its default when absent, and leaves a value the command parses itself to oclif', () => {
    const source: ManifestCommand = {flags: {}, args: {source: {default: '.'}, level: {custom: true}}}
    assert.deepEqual(parsePlainCommandLine([], source), {args: {source: '.'}, flags: {}, argv: ['.']})
    assert.deepEqual(parsePlainCommandLine(['plugin'], source), {args: {source: 'plugin'}, flags: {}, argv: ['plugin']})
    assert.equal(parsePlainCommandLine(['plugin', '3'], source), undefined)
  })
})
