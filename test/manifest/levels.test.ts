import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {fileURLToPath} from 'node:url'
import {readFolderContent} from '../../src/artifact/folder.js'
import {SvcPluginError} from '../../src/errors.js'
import {maxManifestBytes} from '../../src/model/manifest-size.js'
import {validatePath} from '../../src/validate/validate-path.js'
import {completeManifest, lineOf, manifestText, minimalManifest, summary} from './helpers.js'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', ...(import.meta.url.includes('/dist/') ? ['..'] : []))
const examplePlugin = path.join(root, 'fixtures', 'example-plugin')

const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`

let scratch: string
before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'svc-plugin-manifest-levels-'))
})
after(async () => {
  await rm(scratch, {recursive: true, force: true})
})

let counter = 0
/** A plugin folder with `files` (path → text) and the manifest written as manifest.json. */
async function pluginDir(manifest: unknown, files: Record<string, string>): Promise<string> {
  const dir = path.join(scratch, `plugin-${++counter}`)
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), {recursive: true})
    await writeFile(path.join(dir, name), text)
  }
  await mkdir(dir, {recursive: true})
  await writeFile(path.join(dir, 'manifest.json'), manifestText(manifest))
  return dir
}

/** The files a complete manifest declares. */
const builtFiles = {'runtimes/linux-x64/weather': '#!elf', 'runtimes/win-x64/Weather.exe': 'MZ', 'assets/icon.png': 'png'}

async function rejection(promise: Promise<unknown>): Promise<SvcPluginError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof SvcPluginError, String(error))
    return error
  }
  throw new Error('expected a coded error')
}

describe('readFolderContent', () => {
  it('lists every regular file except .git/, *.svcPlugin and the root manifest.json, with digests on request', async () => {
    const dir = await pluginDir(minimalManifest(), {
      'a.txt': 'alpha',
      'nested/deep/b.bin': 'bravo',
      'nested/manifest.json': '{}',
      '.git/config': 'x',
      'sub/.git/HEAD': 'x',
      'old.svcPlugin': 'PK',
      'OLD.SVCPLUGIN': 'PK',
      '.hidden': 'h',
    })
    await symlink(path.join(dir, 'a.txt'), path.join(dir, 'link.txt'))
    const plain = await readFolderContent(dir, {digests: false})
    assert.equal(plain.kind, 'directory')
    assert.deepEqual([...plain.files], [
      ['.hidden', {size: 1}],
      ['a.txt', {size: 5}],
      ['nested/deep/b.bin', {size: 5}],
      ['nested/manifest.json', {size: 2}],
    ])
    const digested = await readFolderContent(dir, {digests: true})
    assert.deepEqual(digested.files.get('a.txt'), {size: 5, sha256: sha256('alpha')})
    assert.deepEqual(digested.files.get('nested/deep/b.bin'), {size: 5, sha256: sha256('bravo')})
  })
})

describe('levels on a plugin folder', () => {
  it('the example plugin is valid at every level with no diagnostic', async () => {
    for (const level of ['development', 'package', 'publication'] as const) {
      const report = await validatePath({directory: examplePlugin}, {level})
      assert.deepEqual(report.problems, [], level)
      assert.deepEqual([report.valid, report.level, report.subject.kind, report.pluginId, report.version], [true, level, 'directory', 'com.example.weather-station', '1.4.2'])
    }
  })

  it('development level does not look at the content, but for the executable of the host it is judged for', async () => {
    const dir = await pluginDir(completeManifest(), {})
    const elsewhere = await validatePath({directory: dir}, {host: {rid: 'freebsd-x64'}})
    assert.equal(elsewhere.level, 'development')
    assert.deepEqual(elsewhere.problems, [])
    const onWindows = await validatePath({directory: dir}, {host: {rid: 'win-arm64'}})
    assert.deepEqual(onWindows.problems.map((problem) => [problem.code, problem.pointer]), [['entrypoint-missing', '/entrypoints/win-x64/executable']])
    assert.match(onWindows.problems[0]!.message, /the win-x64 entrypoint, which a win-arm64 host falls back to/)
  })

  it('previews what an install on a given host version and protocol would say: incompatible', async () => {
    const manifest = {...completeManifest(), compatibility: {svc: '>=2.0.0', protocol: {minimum: 4, maximum: 5}}}
    const dir = await pluginDir(manifest, {})
    const tooOld = await validatePath({directory: dir}, {host: {rid: 'freebsd-x64', protocol: {minimum: 1, maximum: 3}}})
    assert.deepEqual(tooOld.problems.map((problem) => [problem.code, problem.pointer]), [['incompatible', '/compatibility/protocol']])
    const version = await validatePath({directory: dir}, {host: {rid: 'freebsd-x64', hostVersion: '1.9.0', protocol: {minimum: 1, maximum: 4}}})
    assert.deepEqual(version.problems.map((problem) => [problem.code, problem.pointer]), [['incompatible', '/compatibility/svc']])
    assert.deepEqual((await validatePath({directory: dir}, {host: {rid: 'freebsd-x64'}})).problems, [])
  })

  it('package level reports what is not packed, as errors required by package', async () => {
    const manifest = completeManifest()
    const dir = await pluginDir(manifest, {'runtimes/linux-x64/weather': 'x'})
    const report = await validatePath({directory: dir}, {level: 'package'})
    const text = manifestText(manifest)
    assert.deepEqual(summary(report.problems), [
      {code: 'icon-declared-not-present', severity: 'error', pointer: '/icon', line: lineOf(text, '"icon"'), requiredBy: 'package'},
      {code: 'entrypoint-not-packed', severity: 'error', pointer: '/entrypoints/win-x64/executable', line: lineOf(text, 'Weather.exe'), requiredBy: 'package'},
    ])
    assert.equal(report.valid, false)
  })

  it('missing publication fields warn at package level and fail publication level, one per field', async () => {
    const dir = await pluginDir(minimalManifest(), {'runtimes/win-x64/Weather.exe': 'MZ'})
    const fields = ['description', 'icon', 'publisher', 'license', 'repository', 'compatibility']
    const atPackage = await validatePath({directory: dir}, {level: 'package'})
    assert.equal(atPackage.valid, true)
    assert.deepEqual(
      atPackage.problems.map((problem) => [problem.code, problem.severity, problem.pointer, problem.line, problem.requiredBy]),
      fields.map(() => ['publication-metadata-missing', 'warning', '', 1, 'publication']),
    )
    for (const field of fields) assert.ok(atPackage.problems.some((problem) => problem.message.startsWith(`${field} is missing`)), field)
    const atPublication = await validatePath({directory: dir}, {level: 'publication'})
    assert.equal(atPublication.valid, false)
    assert.deepEqual(
      atPublication.problems.map((problem) => [problem.code, problem.severity, problem.requiredBy]),
      fields.map(() => ['publication-metadata-missing', 'error', 'publication']),
    )
  })

  it('an empty compatibility or a blank description is reported where it is', async () => {
    const manifest = {...completeManifest(), compatibility: {notes: 'x'}, description: ' '}
    const dir = await pluginDir(manifest, builtFiles)
    const report = await validatePath({directory: dir}, {level: 'publication'})
    const text = manifestText(manifest)
    assert.deepEqual(summary(report.problems), [
      {code: 'publication-metadata-missing', severity: 'error', pointer: '/description', line: lineOf(text, '"description"'), requiredBy: 'publication'},
      {code: 'publication-metadata-missing', severity: 'error', pointer: '/compatibility', line: lineOf(text, '"compatibility"'), requiredBy: 'publication'},
    ])
  })

  it('development level never reports publication metadata', async () => {
    const dir = await pluginDir(minimalManifest(), {})
    assert.deepEqual((await validatePath({directory: dir}, {level: 'development'})).problems, [])
  })

  it('declared files are compared with the real bytes, digests computed because files is declared', async () => {
    const manifest = {
      ...completeManifest(),
      files: [
        {path: 'runtimes/linux-x64/weather', sha256: sha256('#!elf'), size: 5},
        {path: 'runtimes/win-x64/Weather.exe', sha256: sha256('MZ!'), size: 2},
        {path: 'assets/icon.png', sha256: sha256('png'), size: 4},
        {path: 'gone.txt', sha256: sha256('x'), size: 1},
      ],
    }
    const dir = await pluginDir(manifest, {...builtFiles, 'extra.txt': 'not listed'})
    const report = await validatePath({directory: dir}, {level: 'package'})
    const text = manifestText(manifest)
    const entry = (n: number) => lineOf(text, '"files": [') + 1 + 5 * n
    assert.deepEqual(summary(report.problems), [
      {code: 'generated-field-authored', severity: 'warning', pointer: '/files', line: entry(0) - 1},
      {code: 'file-digest-mismatch', severity: 'error', pointer: '/files/1', line: entry(1), requiredBy: 'package'},
      {code: 'file-size-mismatch', severity: 'error', pointer: '/files/2', line: entry(2), requiredBy: 'package'},
      {code: 'file-missing', severity: 'error', pointer: '/files/3', line: entry(3), requiredBy: 'package'},
    ])
  })

  it('a manifest file at package level is judged against its folder', async () => {
    const dir = await pluginDir(completeManifest(), {...builtFiles})
    const ok = await validatePath({manifest: path.join(dir, 'manifest.json')}, {level: 'package'})
    assert.deepEqual([ok.valid, ok.subject.kind, ok.problems.length], [true, 'manifest', 0])
    await rm(path.join(dir, 'assets'), {recursive: true})
    const missing = await validatePath({manifest: path.join(dir, 'manifest.json')}, {level: 'package'})
    assert.deepEqual(missing.problems.map((problem) => problem.code), ['icon-declared-not-present'])
  })

  it('validity is monotonic across the levels for these folders', async () => {
    const dirs = [examplePlugin, await pluginDir(minimalManifest(), {}), await pluginDir(completeManifest(), builtFiles), await pluginDir({...completeManifest(), id: 'X'}, builtFiles)]
    for (const dir of dirs) {
      const [development, pack, publication] = await Promise.all((['development', 'package', 'publication'] as const).map((level) => validatePath({directory: dir}, {level})))
      if (publication?.valid) assert.ok(pack?.valid, dir)
      if (pack?.valid) assert.ok(development?.valid, dir)
    }
  })
})

describe('validatePath subjects', () => {
  it('auto-detects a folder, a manifest file and an artifact', async () => {
    const dir = await pluginDir(minimalManifest(), {})
    const asFolder = await validatePath({path: dir})
    assert.deepEqual([asFolder.subject, asFolder.file], [{kind: 'directory', path: dir}, path.join(dir, 'manifest.json')])
    const asFile = await validatePath({path: path.join(dir, 'manifest.json')})
    assert.deepEqual(asFile.subject, {kind: 'manifest', path: path.join(dir, 'manifest.json')})
    await writeFile(path.join(dir, 'a.svcPlugin'), 'not even a zip')
    // Detected as artifacts (by extension, by ZIP signature), then refused by the strict reader.
    assert.equal((await rejection(validatePath({path: path.join(dir, 'a.svcPlugin')}))).code, 'not-an-artifact')
    await writeFile(path.join(dir, 'plugin.zip'), Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]))
    assert.equal((await rejection(validatePath({path: path.join(dir, 'plugin.zip')}))).code, 'not-an-artifact')
    assert.equal((await rejection(validatePath({artifact: path.join(dir, 'a.svcPlugin')}))).code, 'not-an-artifact')
  })

  it('defaults to ./manifest.json in the working directory', async () => {
    const dir = await pluginDir(minimalManifest(), {})
    const report = await validatePath({}, {cwd: dir})
    assert.deepEqual([report.valid, report.file, report.subject], [true, 'manifest.json', {kind: 'manifest', path: 'manifest.json'}])
    const empty = path.join(scratch, 'empty-cwd')
    await mkdir(empty)
    const error = await rejection(validatePath({}, {cwd: empty}))
    assert.equal(error.code, 'file-not-found')
  })

  it('refuses more than one selector', async () => {
    const error = await rejection(validatePath({manifest: 'a/manifest.json', directory: 'a'}))
    assert.equal(error.code, 'too-many-selectors')
    assert.match(error.message, /--manifest and --directory/)
  })

  it('a missing file, folder or manifest is file-not-found', async () => {
    const missing = path.join(scratch, 'nope')
    for (const subject of [{manifest: path.join(missing, 'manifest.json')}, {directory: missing}, {path: missing}]) {
      assert.equal((await rejection(validatePath(subject))).code, 'file-not-found', JSON.stringify(subject))
    }
    const noManifest = path.join(scratch, 'no-manifest')
    await mkdir(noManifest)
    assert.equal((await rejection(validatePath({directory: noManifest}))).code, 'file-not-found')
  })

  it('a folder given as a manifest is not-a-manifest, a file given as a folder not-a-folder', async () => {
    const dir = await pluginDir(minimalManifest(), {})
    assert.equal((await rejection(validatePath({manifest: dir}))).code, 'not-a-manifest')
    assert.equal((await rejection(validatePath({directory: path.join(dir, 'manifest.json')}))).code, 'not-a-folder')
  })

  it('a manifest file over 8 MiB is malformed, not read whole', async () => {
    const dir = path.join(scratch, 'huge')
    await mkdir(dir)
    await writeFile(path.join(dir, 'manifest.json'), Buffer.alloc(maxManifestBytes + 100, 0x20))
    const report = await validatePath({directory: dir})
    assert.deepEqual(summary(report.problems), [{code: 'malformed', severity: 'error', pointer: null, line: null}])
    assert.match(report.problems[0]?.message ?? '', /larger than 8 MiB/)
  })
})
