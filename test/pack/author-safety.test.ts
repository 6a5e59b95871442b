import assert from 'node:assert/strict'
import {generateKeyPairSync} from 'node:crypto'
import {mkdir, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, beforeEach, describe, it} from 'node:test'
import {openArchive} from '../../src/archive/reader.js'
import {OutputError} from '../../src/fs/output.js'
import {PackError} from '../../src/pack/errors.js'
import {pack} from '../../src/pack/pack.js'
import {writeKeyPair} from '../../src/pki/keys.js'
import {copyExample, editManifest, exampleId, exampleVersion, rejectionOf, scratch, writeTree} from './support.js'

const artifactName = `${exampleId}-${exampleVersion}.svcPlugin`
// Shapes the maintained credential rules recognise (made up, never issued).
const githubToken = 'ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789'
const npmrc = '//registry.npmjs.org/:_authToken=npm_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789\n'
const awsCredentials = '[default]\naws_secret_access_key = x8Kp2Zr5Tq9Wm3Yv7Bn1Cd4Fg6Hj8Kl0Qs2Ue4Io\n'

let work: {dir: string; cleanup: () => Promise<void>}
let count = 0
/** A fresh copy of the example plugin and an empty output folder beside it. */
async function plugin(): Promise<{source: string; out: string}> {
  count += 1
  const source = await copyExample(path.join(work.dir, `case-${count}`, 'plugin'))
  const out = path.join(work.dir, `case-${count}`, 'out')
  await mkdir(out)
  return {source, out}
}

/** Adds the usual leaks of an author's working folder: a .env, keys of two kinds, credentials, OS junk. */
async function addLeaks(source: string): Promise<void> {
  await writeTree(source, {
    '.env': 'API_KEY=abc\n',
    'keys/tls.pem': generateKeyPairSync('ed25519').privateKey.export({format: 'pem', type: 'pkcs8'}).toString(),
    'config/.npmrc': npmrc,
    'config/aws.ini': awsCredentials,
    'src/client.js': `// client\nconst token = "${githubToken}"\n`,
    '.DS_Store': Buffer.from([0, 0, 0, 1, 66, 117, 100, 49]),
    'Localization/Thumbs.db': 'thumbs',
    '__MACOSX/._README.md': 'fork',
  })
  await writeKeyPair(path.join(source, 'keys'), 'publisher')
}

const leakPaths = ['.env', 'config/.npmrc', 'config/aws.ini', 'keys/publisher.key', 'keys/tls.pem', 'src/client.js']

async function entryNames(file: string): Promise<string[]> {
  const archive = await openArchive(file)
  try {
    return archive.entries.map((entry) => entry.name)
  } finally {
    await archive.close()
  }
}

before(async () => {
  work = await scratch('author-safety')
})
after(async () => work.cleanup())

describe('pack and secrets', () => {
  it('refuses a package holding any secret, naming every path and what it holds, and writes nothing', async () => {
    const {source, out} = await plugin()
    await addLeaks(source)
    const error = await rejectionOf(pack(source, {output: out}))
    assert.ok(error instanceof PackError, String(error))
    assert.equal(error.code, 'secret-detected')
    const secrets = error.details.secrets as {path: string; kind: string; line: number | null}[]
    assert.deepEqual(
      secrets.map((secret) => `${secret.path} ${secret.kind} ${secret.line}`),
      [
        '.env environment-file null',
        'config/.npmrc credential 1',
        'config/aws.ini credential 2',
        'keys/publisher.key private-key 1',
        'keys/tls.pem private-key 1',
        'src/client.js credential 2',
      ],
    )
    for (const file of leakPaths) assert.ok(error.message.includes(`  ${file}`), `${file} is named in: ${error.message}`)
    assert.match(error.message, /--allow-secret <path>/)
    assert.match(error.message, /\.svcpluginignore/)
    assert.deepEqual(await readdir(out), [])
  })

  it('dry run: lists what would ship, what is left out and every secret as a problem, and writes nothing', async () => {
    const {source, out} = await plugin()
    await addLeaks(source)
    const result = await pack(source, {output: out, dryRun: true})
    assert.equal(result.dryRun, true)
    assert.deepEqual(result.leftOut, ['.DS_Store', 'Localization/Thumbs.db', '__MACOSX/'])
    const listed = result.files.map((file) => file.path)
    for (const file of leakPaths) assert.ok(listed.includes(file), file)
    assert.ok(!listed.some((file) => /DS_Store|Thumbs|__MACOSX/.test(file)), listed.join(' '))
    assert.deepEqual(
      result.problems.map((problem) => `${problem.severity} ${problem.code}`),
      leakPaths.map(() => 'error secret-detected'),
    )
    assert.deepEqual(
      result.secrets.map((secret) => secret.path),
      leakPaths,
    )
    assert.deepEqual(await readdir(out), [])
  })

  it('packs a secret that --allow-secret names (any spelling of its path), and still leaves out OS files', async () => {
    const {source, out} = await plugin()
    await addLeaks(source)
    const allowSecrets = ['./.env', 'config\\.npmrc', 'config/aws.ini', 'keys/publisher.key', './keys/tls.pem', 'src/client.js']
    const result = await pack(source, {output: out, allowSecrets})
    assert.deepEqual(
      result.secrets.map((secret) => secret.path),
      leakPaths,
    )
    assert.deepEqual(result.problems, [])
    const names = await entryNames(result.path)
    for (const file of leakPaths) assert.ok(names.includes(file), file)
    assert.ok(!names.some((name) => /DS_Store|Thumbs|__MACOSX/.test(name)), names.join(' '))
  })

  it('refuses again when one secret is not allowed, naming only that one', async () => {
    const {source, out} = await plugin()
    await addLeaks(source)
    const error = await rejectionOf(pack(source, {output: out, allowSecrets: leakPaths.filter((file) => file !== 'keys/tls.pem')}))
    assert.equal(error.code, 'secret-detected')
    assert.deepEqual(
      (error.details.secrets as {path: string}[]).map((secret) => secret.path),
      ['keys/tls.pem'],
    )
  })

  it('never looks at what .svcpluginignore leaves out', async () => {
    const {source, out} = await plugin()
    await addLeaks(source)
    await writeFile(path.join(source, '.svcpluginignore'), '.env\nkeys/\nconfig/\nsrc/\n')
    const result = await pack(source, {output: out})
    assert.deepEqual(result.secrets, [])
    const names = await entryNames(result.path)
    assert.ok(!names.some((name) => /^(\.env|keys\/|config\/|src\/)/.test(name)), names.join(' '))
  })

  it('finds a credential deep in a tree of many small files, at its own line (files are read in batches)', async () => {
    const {source, out} = await plugin()
    const files: Record<string, string> = {}
    for (let index = 0; index < 400; index++) files[`lib/module-${String(index).padStart(3, '0')}.js`] = `// module ${index}\n${'export const value = 1\n'.repeat(40)}`
    files['lib/module-333.js'] = `// module 333\n${'export const value = 1\n'.repeat(6)}const token = "${githubToken}"\n`
    await writeTree(source, files)
    const error = await rejectionOf(pack(source, {output: out}))
    assert.equal(error.code, 'secret-detected')
    assert.deepEqual(error.details.secrets, [{path: 'lib/module-333.js', kind: 'credential', line: 8}])
  })

  it('judges a .env by its name even when it is too large to be read for credentials', async () => {
    const {source, out} = await plugin()
    await writeTree(source, {'deploy/.env.production': Buffer.alloc(2 * 1024 * 1024, 0x61)})
    const error = await rejectionOf(pack(source, {output: out}))
    assert.equal(error.code, 'secret-detected')
    assert.deepEqual(error.details.secrets, [{path: 'deploy/.env.production', kind: 'environment-file', line: null}])
  })

  it('takes a .env template for what it is', async () => {
    const {source, out} = await plugin()
    await writeTree(source, {'.env.example': 'API_KEY=\n'})
    const result = await pack(source, {output: out})
    assert.ok((await entryNames(result.path)).includes('.env.example'))
  })
})

describe('pack --level', () => {
  let source: string
  let out: string
  beforeEach(async () => {
    ;({source, out} = await plugin())
    await editManifest(source, (manifest) => {
      delete manifest.license
      delete manifest.repository
      delete manifest.description
    })
  })

  it('development (the default): each missing publication field is its own warning', async () => {
    const result = await pack(source, {output: out})
    const missing = result.warnings.filter((warning) => warning.code === 'publication-metadata-missing').map((warning) => warning.message.split(' ')[0])
    assert.deepEqual(missing.sort(), ['description', 'license', 'repository'])
  })

  it('package: passes, with the publication findings as warnings', async () => {
    const result = await pack(source, {output: out, level: 'package'})
    assert.equal(result.dryRun, false)
    assert.equal(result.warnings.filter((warning) => warning.code === 'publication-metadata-missing').length, 3)
  })

  it('publication: refused as level-not-met with one error per missing field, nothing written', async () => {
    const error = await rejectionOf(pack(source, {output: out, level: 'publication'}))
    assert.ok(error instanceof PackError, String(error))
    assert.equal(error.code, 'level-not-met')
    assert.deepEqual(error.details, {level: 'publication', codes: ['publication-metadata-missing']})
    assert.deepEqual(
      error.report?.problems.map((problem) => `${problem.severity} ${problem.message.split(' ')[0]}`).sort(),
      ['error description', 'error license', 'error repository'],
    )
    assert.deepEqual(await readdir(out), [])
  })

  it('package: refused when an entrypoint executable is not in the tree', async () => {
    await writeFile(path.join(source, '.svcpluginignore'), 'runtimes/win-x64/\n')
    const error = await rejectionOf(pack(source, {output: out, level: 'package'}))
    assert.equal(error.code, 'level-not-met')
    assert.deepEqual(error.details.codes, ['entrypoint-not-packed'])
    assert.deepEqual(await readdir(out), [])
  })
})

describe('pack warnings about the tree', () => {
  it('warns about a debug build when the source folder itself is bin/Debug output', async () => {
    const source = await copyExample(path.join(work.dir, 'debug', 'WeatherStation', 'bin', 'Debug', 'net8.0'))
    const result = await pack(source, {output: path.join(work.dir, 'debug', 'out.svcPlugin'), dryRun: true})
    assert.ok(result.warnings.some((warning) => warning.code === 'source-looks-like-debug-build'), JSON.stringify(result.warnings))
  })

  it('warns about a single large file and about a package near the size limit', async () => {
    const {source, out} = await plugin()
    await writeTree(source, {'assets/model.bin': Buffer.alloc(6000, 7)})
    const result = await pack(source, {output: out, dryRun: true, limits: {maxEntryBytes: 40_000, maxTotalBytes: 10_000}})
    const warnings = result.warnings.filter((warning) => warning.code === 'large-file' || warning.code === 'package-near-limit').map((warning) => `${warning.code}: ${warning.message}`)
    assert.equal(warnings.length, 2, warnings.join('\n'))
    assert.match(warnings[0]!, /^large-file: assets\/model\.bin is <0\.01 MiB/)
    assert.match(warnings[1]!, /^package-near-limit: The package holds \S+ MiB, near the \S+ MiB/)
  })
})

describe('pack outputs', () => {
  it('an existing folder as output receives <id>-<version>.svcPlugin', async () => {
    const {source, out} = await plugin()
    const result = await pack(source, {output: out})
    assert.equal(result.path, path.join(out, artifactName))
    assert.equal(result.createdFolder, null)
    assert.deepEqual(await readdir(out), [artifactName])
  })

  it('a path ending in a separator is a folder, created with its parents, and the first created is reported', async () => {
    const {source, out} = await plugin()
    const result = await pack(source, {output: `${path.join(out, 'dist', 'nightly')}/`})
    assert.equal(result.path, path.join(out, 'dist', 'nightly', artifactName))
    assert.equal(result.createdFolder, path.join(out, 'dist'))
  })

  it('missing parent folders of an output file are created', async () => {
    const {source, out} = await plugin()
    const result = await pack(source, {output: path.join(out, 'a', 'b', 'x.svcPlugin')})
    assert.equal(result.createdFolder, path.join(out, 'a'))
    assert.deepEqual(await readdir(path.join(out, 'a', 'b')), ['x.svcPlugin'])
  })

  it('a refused pack removes the folders it created for the output', async () => {
    const {source, out} = await plugin()
    await writeTree(source, {'.env': 'X=1\n'})
    const error = await rejectionOf(pack(source, {output: path.join(out, 'a', 'b', 'x.svcPlugin')}))
    assert.equal(error.code, 'secret-detected')
    assert.deepEqual(await readdir(out), [])
  })

  it('a folder standing where the output file should be is write-failed (EISDIR), with force too', async () => {
    const {source, out} = await plugin()
    await mkdir(path.join(out, artifactName))
    const error = await rejectionOf(pack(source, {output: out, force: true}))
    assert.ok(error instanceof OutputError, String(error))
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'write-failed', reason: 'EISDIR'})
  })
})
