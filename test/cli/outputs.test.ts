import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, readFile, readdir, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {cliPath, runCli, runCliJson, tempDir} from '../helpers/cli.js'
import {makeWorkspace, type Workspace} from '../helpers/workspace.js'
import {packRids} from '../merge/fixtures.js'
import {copyExample, exampleId, exampleVersion, writeTree} from '../pack/support.js'

const artifactName = `${exampleId}-${exampleVersion}.svcPlugin`

let scratch: {dir: string; cleanup: () => Promise<void>}
let counter = 0
/** A fresh working directory holding a copy of the example plugin in `plugin/`. */
async function workspace(): Promise<string> {
  const cwd = path.join(scratch.dir, `w${counter++}`)
  await copyExample(path.join(cwd, 'plugin'))
  return cwd
}

before(async () => {
  scratch = await tempDir('svc-plugin-cli-outputs-')
})
after(async () => scratch.cleanup())

describe('pack --dry-run of a folder holding a .env, a private key and .DS_Store', () => {
  it('lists every file, what is left out and each secret, exits 1 and writes nothing', async () => {
    const cwd = await workspace()
    await writeTree(path.join(cwd, 'plugin'), {'.env': 'TOKEN=1\n', '.DS_Store': 'junk'})
    const keygen = await runCli(['keygen', '--output', 'plugin/keys', '--name', 'publisher', '--quiet'], {cwd})
    assert.equal(keygen.status, 0, keygen.stderr)
    const result = await runCli(['pack', 'plugin', '--dry-run'], {cwd})
    assert.equal(result.status, 1, result.stderr)
    assert.match(result.stdout, /^ +<0\.01 MiB {2}\.env$/m)
    assert.match(result.stdout, /^ +<0\.01 MiB {2}keys\/publisher\.key$/m)
    assert.match(result.stdout, /^ +left out {2}\.DS_Store \(operating-system file\)$/m)
    assert.match(result.stderr, /^error secret-detected: "\.env" holds an environment file/m)
    assert.match(result.stderr, /^error secret-detected: "keys\/publisher\.key" \(line 1\) holds an svc-plugin private key/m)
    assert.match(result.stderr, /^Would refuse com\.example\.weather-station 1\.4\.2: 2 problems above; nothing was written\. To pack a file that holds a secret on purpose, pass --allow-secret <path>\.$/m)
    assert.deepEqual((await readdir(cwd)).sort(), ['plugin'])
  })

  it('--json: the same facts as one object with problems and leftOut, on stdout only', async () => {
    const cwd = await workspace()
    await writeTree(path.join(cwd, 'plugin'), {'.env': 'TOKEN=1\n', '.DS_Store': 'junk'})
    const result = await runCliJson(['pack', 'plugin', '--dry-run', '--json'], {cwd})
    assert.equal(result.status, 1)
    assert.deepEqual(result.json.leftOut, ['.DS_Store'])
    assert.deepEqual(
      result.json.problems.map((problem: {code: string; severity: string}) => `${problem.severity} ${problem.code}`),
      ['error secret-detected'],
    )
    assert.equal(result.stderr, '')
  })
})

describe('pack refusing a secret', () => {
  it('exits 1 naming the path and how to override; --allow-secret packs it', async () => {
    const cwd = await workspace()
    await writeTree(path.join(cwd, 'plugin'), {'config/.env.local': 'TOKEN=1\n'})
    const refused = await runCli(['pack', 'plugin'], {cwd})
    assert.equal(refused.status, 1)
    assert.match(refused.stderr, /^error secret-detected: The package would ship a secret; nothing was written:\n {2}config\/\.env\.local: an environment file/m)
    assert.match(refused.stderr, /pass --allow-secret <path>/)
    assert.deepEqual(await readdir(cwd), ['plugin'])
    const allowed = await runCli(['pack', 'plugin', '--allow-secret', 'config/.env.local'], {cwd})
    assert.equal(allowed.status, 0, allowed.stderr)
    assert.match(allowed.stderr, /^warning secret-allowed: config\/\.env\.local holds an environment file/m)
    assert.deepEqual((await readdir(cwd)).sort(), [artifactName, 'plugin'])
  })

  it('--level publication fails with exit 1 and the report, writing nothing', async () => {
    const cwd = await workspace()
    const manifestFile = path.join(cwd, 'plugin', 'manifest.json')
    const {readFile} = await import('node:fs/promises')
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>
    delete manifest.license
    await writeFile(manifestFile, JSON.stringify(manifest, null, 2))
    const result = await runCli(['pack', 'plugin', '--level', 'publication'], {cwd})
    assert.equal(result.status, 1)
    assert.match(result.stderr, /^error level-not-met: The packed artifact would not pass publication-level validation \(1 error\); nothing was written\.$/m)
    assert.match(result.stderr, /^error publication-metadata-missing: license is missing/m)
    assert.deepEqual(await readdir(cwd), ['plugin'])
  })
})

describe('outputs that behave', () => {
  it('pack --output into missing folders creates them and says so once', async () => {
    const cwd = await workspace()
    const result = await runCli(['pack', 'plugin', '--output', 'dist/x.svcPlugin'], {cwd})
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stderr.match(/Created /g)?.length, 1, result.stderr)
    assert.match(result.stderr, new RegExp(`^Created ${path.join(cwd, 'dist').replaceAll('/', '\\/')} to hold the artifact\\.$`, 'm'))
    assert.deepEqual(await readdir(path.join(cwd, 'dist')), ['x.svcPlugin'])
  })

  it('pack --output <existing folder> writes <id>-<version>.svcPlugin into it', async () => {
    const cwd = await workspace()
    await mkdir(path.join(cwd, 'dist'))
    const result = await runCli(['pack', 'plugin', '--output', 'dist'], {cwd})
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(await readdir(path.join(cwd, 'dist')), [artifactName])
  })

  it('merge: a folder where the output file should be is write-failed, exit 5', async () => {
    const cwd = await workspace()
    const packed = await runCli(['pack', 'plugin', '--output', 'a.svcPlugin', '--quiet'], {cwd})
    assert.equal(packed.status, 0, packed.stderr)
    await mkdir(path.join(cwd, 'taken.svcPlugin'))
    const merged = await runCli(['merge', 'a.svcPlugin', 'a.svcPlugin', '--output', 'taken.svcPlugin'], {cwd})
    assert.equal(merged.status, 5, merged.stderr)
    assert.match(merged.stderr, /^error write-failed: \S*taken\.svcPlugin cannot be written: it is a folder\.$/m)
  })
})

/** Where an output cannot be written, as a folder to put it in, and what the refusal says about it. */
interface Unwritable {
  name: string
  /** The folder the output goes into (relative to the working directory, or absolute). */
  folder: string
  reason: RegExp
}

const procFound = existsSync('/proc/self')
const unwritablePlaces: Unwritable[] = [
  {name: 'below a file', folder: 'blocker/sub', reason: /a file stands where a folder is needed on its path/},
  {name: 'in a file', folder: 'blocker', reason: /a file stands where a folder is needed on its path/},
  ...(procFound
    ? [
        // A folder that cannot be created (procfs refuses it, though its parent exists)...
        {name: 'below /proc/self', folder: '/proc/self/svc-plugin-x/y', reason: /the file system does not allow creating files or folders there/},
        // ...and folders that exist but take no new file: as a read-only folder does, even for root.
        {name: 'in /proc', folder: '/proc', reason: /the file system does not allow creating files or folders there/},
        {name: 'in /proc/self', folder: '/proc/self', reason: /the file system does not allow creating files or folders there/},
      ]
    : []),
]

describe('every command that writes: an output that cannot be written is write-failed, exit 5, naming it', () => {
  let cwd: string
  let pki: Workspace
  let win: string
  let linux: string
  before(async () => {
    pki = await makeWorkspace('svc-plugin-cli-unwritable-')
    cwd = pki.dir
    await writeFile(path.join(cwd, 'blocker'), 'a file, not a folder')
    await copyExample(path.join(cwd, 'plugin'))
    win = await packRids(cwd, ['win-x64'])
    linux = await packRids(cwd, ['linux-x64'])
  })
  after(() => pki.cleanup())

  /** Each command with the output it writes in `folder`: a file, or a folder it creates. */
  const commands: [string, (folder: string) => {output: string; args: string[]}][] = [
    ['pack', (folder) => at(folder, 'a.svcPlugin', (output) => ['pack', 'plugin', '--output', output])],
    ['sign', (folder) => at(folder, 'signed.svcPlugin', (output) => ['sign', pki.artifact, '--private-key', pki.privateKey, '--certificate', pki.certificate, '--certificate-signature', pki.certificateSignature, '--output', output])],
    ['merge', (folder) => at(folder, 'merged.svcPlugin', (output) => ['merge', win, linux, '--output', output])],
    ['keygen', (folder) => at(folder, 'keys', (output) => ['keygen', '--output', output])],
    ['cert root', (folder) => at(folder, 'root', (output) => ['cert', 'root', '--output', output])],
    [
      'cert issue',
      (folder) =>
        at(folder, 'cert', (output) => [
          'cert', 'issue', '--root-key', path.join(pki.pki, 'root.key'), '--root-key-id', pki.rootKeyId, '--subject-public-key', pki.publicKey,
          '--subject-kind', 'creator', '--subject-id', 'com.example', '--subject-name', 'Example Labs', '--not-after', '2099-01-01T00:00:00Z', '--output', output,
        ]),
    ],
    ['cert revoke', (folder) => at(folder, 'revocations.json', (output) => ['cert', 'revoke', '--list', output, '--root-key', path.join(pki.pki, 'root.key'), '--root-key-id', pki.rootKeyId, '--public-key', pki.publicKey, '--reason', 'key-compromise'])],
    ['init', (folder) => at(folder, 'new-plugin', (output) => ['init', output])],
  ]

  it('merge and sign refuse such an output before they read an input: inputs that do not exist are not reached', async () => {
    const merge = await runCli(['merge', 'missing-a.svcPlugin', 'missing-b.svcPlugin', '--output', 'blocker/m.svcPlugin'], {cwd})
    assert.equal(merge.status, 5, merge.stderr)
    assert.match(merge.stderr, /^error write-failed: \S*blocker\/m\.svcPlugin cannot be written: a file stands where a folder is needed on its path\.$/m)
    const sign = await runCli(['sign', 'missing.svcPlugin', '--private-key', pki.privateKey, '--certificate', pki.certificate, '--certificate-signature', pki.certificateSignature, '--output', 'blocker/s.svcPlugin'], {cwd})
    assert.equal(sign.status, 5, sign.stderr)
    assert.match(sign.stderr, /^error write-failed: blocker\/s\.svcPlugin cannot be written: a file stands where a folder is needed on its path\.$/m)
  })

  it('sign: a write that fails part way (a file size limit) names the output, never the temporary beside it', async (t) => {
    // ulimit -f: each write past 2 KiB fails with EFBIG (Node ignores SIGXFSZ); the signed artifact is larger.
    const output = 'limited.svcPlugin'
    const args = ['sign', pki.artifact, '--private-key', pki.privateKey, '--certificate', pki.certificate, '--certificate-signature', pki.certificateSignature, '--output', output]
    const result = spawnSync('/bin/sh', ['-c', 'ulimit -f 4 && exec "$@"', 'sh', process.execPath, cliPath, ...args], {cwd, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}, timeout: 60_000})
    if (result.status === 0) return t.skip('no file size limit here')
    assert.equal(result.status, 5, result.stderr)
    assert.match(result.stderr, /^error write-failed: limited\.svcPlugin cannot be written: /m)
    assert.doesNotMatch(result.stderr, /\.tmp/)
    assert.equal(existsSync(path.join(cwd, output)), false)
  })

  // What writes one named file refuses a path ending in a separator (`newo/`); pack, keygen, cert root, cert
  // issue --output and init write into a folder they are given, and create it.
  const fileWriters: [string, (output: string) => string[]][] = [
    ['sign --output', (output) => ['sign', pki.artifact, '--private-key', pki.privateKey, '--certificate', pki.certificate, '--certificate-signature', pki.certificateSignature, '--output', output]],
    ['sign --prepare', (output) => ['sign', pki.artifact, '--certificate', pki.certificate, '--certificate-signature', pki.certificateSignature, '--prepare', output]],
    ['merge --output', (output) => ['merge', win, linux, '--output', output]],
    ['cert revoke --list', (output) => ['cert', 'revoke', '--list', output, '--root-key', path.join(pki.pki, 'root.key'), '--root-key-id', pki.rootKeyId, '--public-key', pki.publicKey, '--reason', 'key-compromise']],
  ]
  for (const [command, args] of fileWriters) {
    for (const existing of [false, true]) {
      it(`${command}: a path ending in a separator${existing ? ' (a folder that exists)' : ''} names a folder: write-failed, exit 5, nothing written`, async () => {
        const output = `slash-${counter++}/`
        if (existing) await mkdir(path.join(cwd, output))
        const before = await snapshotNames(cwd)
        const result = await runCli(args(output), {cwd})
        assert.equal(result.status, 5, result.stderr)
        assert.match(result.stderr, new RegExp(`^error write-failed: ${escape(output)} cannot be written: it ends in a separator, which names a folder; name the file itself\\.$`, 'm'))
        assert.deepEqual(await snapshotNames(cwd), before)
      })
    }
  }

  it('pack never writes over a file of the plugin it packs, even with --force: write-failed, exit 5, the file as it was', async () => {
    for (const target of ['plugin/manifest.json', 'plugin/README.md']) {
      const before = await readFile(path.join(cwd, target))
      const result = await runCli(['pack', 'plugin', '--force', '--output', target], {cwd})
      assert.equal(result.status, 5, result.stderr)
      assert.match(result.stderr, new RegExp(`^error write-failed: ${escape(path.join(cwd, target))} cannot be written: it is a file of the plugin being packed\\. Choose another output\\.$`, 'm'))
      assert.deepEqual(await readFile(path.join(cwd, target)), before)
    }
    // An artifact beside the sources is no source file: pack leaves every *.svcPlugin out.
    const beside = await runCli(['pack', 'plugin', '--output', 'plugin/x.svcPlugin', '--quiet'], {cwd})
    assert.equal(beside.status, 0, beside.stderr)
    assert.equal((await runCli(['pack', 'plugin', '--force', '--output', 'plugin/x.svcPlugin', '--quiet'], {cwd})).status, 0)
    await rm(path.join(cwd, 'plugin', 'x.svcPlugin'))
  })

  it('init: an empty folder path is a usage error; a link inside the folder is never written through', async () => {
    const empty = await runCli(['init', ''], {cwd})
    assert.equal(empty.status, 2, empty.stderr)
    assert.match(empty.stderr, /^error invalid-argument: The folder to initialise is an empty path/m)
    const elsewhere = path.join(cwd, `elsewhere-${counter++}`)
    const folder = path.join(cwd, `linked-${counter++}`)
    await mkdir(elsewhere)
    await mkdir(folder)
    await symlink(elsewhere, path.join(folder, 'runtimes'))
    const linked = await runCli(['init', '--yes', folder], {cwd})
    assert.equal(linked.status, 5, linked.stderr)
    assert.match(linked.stderr, /^error write-failed: \S+ cannot be written: a folder on its way is a symbolic link, and an output is never written through one\.$/m)
    assert.deepEqual(await readdir(elsewhere), [])
    assert.deepEqual(await readdir(folder), ['runtimes'])
  })

  for (const [command, make] of commands) {
    for (const place of unwritablePlaces) {
      // A run that never ends fails here, at the test's time limit; nothing times the run itself.
      it(`${command}: an output ${place.name}`, {timeout: 120_000}, async () => {
        const before = await snapshotNames(cwd)
        const {output, args} = make(place.folder)
        assert.equal(existsSync(path.resolve(cwd, output)), false)
        const result = await runCli(args, {cwd})
        assert.equal(result.status, 5, result.stderr)
        const named = `(?:${escape(cwd)}/)?${escape(output)}`
        assert.match(result.stderr, new RegExp(`^error write-failed: ${named} cannot be written: ${place.reason.source}\\.$`, 'm'))
        assert.doesNotMatch(result.stderr, /\.tmp|internal/)
        assert.deepEqual(await snapshotNames(cwd), before)
      })
    }
  }
})

/** The output `svc-plugin-<name>` in `folder` (a name nothing in /proc has), and the command line that writes it. */
function at(folder: string, name: string, args: (output: string) => string[]): {output: string; args: string[]} {
  const output = path.posix.join(folder, `svc-plugin-${name}`)
  return {output, args: args(output)}
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Every name under `dir`, recursively, sorted. */
async function snapshotNames(dir: string): Promise<string[]> {
  return (await readdir(dir, {recursive: true})).map(String).sort()
}
