import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {chmod, mkdir, readdir, readFile, rm, symlink, unlink} from 'node:fs/promises'
import path from 'node:path'
import {after, afterEach, beforeEach, describe, it} from 'node:test'
import {resolveLimits} from '../../src/archive/limits.js'
import {judgeSourceTree} from '../../src/artifact/source-tree.js'
import {PackError} from '../../src/pack/errors.js'
import {pack} from '../../src/pack/pack.js'
import {copyExample, editManifest, rejectionOf, scratch, writeTree} from './support.js'

/** The payload paths of a dry run over `source`. */
async function packedPaths(source: string, options: {output?: string} = {}): Promise<string[]> {
  const result = await pack(source, {dryRun: true, output: options.output ?? path.join(path.dirname(source), 'out.svcPlugin')})
  return result.files.map((file) => file.path)
}

describe('pack: what is collected from the source tree', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let source: string
  beforeEach(async () => {
    work = await scratch('collect')
    source = await copyExample(path.join(work.dir, 'source'))
  })
  afterEach(async () => {
    await work.cleanup()
  })

  /** Expects `pack` to refuse the tree with source-entry-rejected for `entry`, writing nothing. */
  async function expectRejected(entry: string, reason: string, named = entry): Promise<PackError> {
    const output = path.join(work.dir, 'out.svcPlugin')
    const error = await rejectionOf(pack(source, {output}))
    assert.ok(error instanceof PackError, String(error))
    assert.equal(error.code, 'source-entry-rejected')
    assert.equal(error.details.path, entry)
    assert.equal(error.details.reason, reason)
    // Messages quote names as JSON strings, so that control characters stay visible.
    assert.ok(error.message.includes(named) || error.message.includes(JSON.stringify(named)), error.message)
    assert.deepEqual((await readdir(work.dir)).sort(), ['source'])
    return error
  }

  describe('exclusions', () => {
    it('leaves out .git/ folders at the root and nested', async () => {
      await writeTree(source, {'.git/config': '[core]\n', '.git/objects/ab/cdef': 'x', 'vendor/lib/.git/HEAD': 'ref: x\n', 'vendor/lib/code.txt': 'kept\n', '.gitignore': 'kept too\n'})
      const paths = await packedPaths(source)
      assert.ok(!paths.some((name) => name.startsWith('.git/') || name.includes('/.git/')), paths.join(', '))
      assert.ok(paths.includes('vendor/lib/code.txt'))
      assert.ok(paths.includes('.gitignore'))
    })

    it('leaves out *.svcPlugin files in any case, at any depth', async () => {
      await writeTree(source, {'old.svcPlugin': 'x', 'LOUD.SVCPLUGIN': 'x', 'nested/previous.svcplugin': 'x', 'nested/kept.svcPlugin.txt': 'x'})
      const paths = await packedPaths(source)
      assert.deepEqual(
        paths.filter((name) => /svcplugin/i.test(name)),
        ['nested/kept.svcPlugin.txt'],
      )
    })

    it('leaves out the output file when it lies inside the source tree, whatever its name', async () => {
      await mkdir(path.join(source, 'dist'))
      const output = path.join(source, 'dist', 'artifact.zip')
      const first = await pack(source, {output})
      assert.equal(first.path, output)
      const second = await pack(source, {output, force: true})
      assert.ok(!second.files.some((file) => file.path === 'dist/artifact.zip'))
      assert.deepEqual(second.files, first.files)
      assert.equal(second.sha256, first.sha256)
    })

    it('packs a folder given through a link to it as the folder itself, leaving out its output named through the link', async () => {
      await mkdir(path.join(source, 'dist'))
      const linked = path.join(work.dir, 'linked')
      await symlink(source, linked)
      const output = path.join(linked, 'dist', 'artifact.zip')
      const first = await pack(linked, {output})
      const second = await pack(linked, {output, force: true})
      assert.ok(!second.files.some((file) => file.path.startsWith('dist/')), second.files.map((file) => file.path).join(', '))
      assert.equal(second.sha256, first.sha256)
      await unlink(output)
      assert.equal((await pack(source, {output: path.join(work.dir, 'direct.zip')})).sha256, first.sha256)
      await unlink(linked)
    })

    it('refuses a folder whose real path is not UTF-8 (Node would name another folder), even through a link', async () => {
      // Node cannot give such a path as a string: python makes the copy and the link.
      const script = `import os, shutil\nbad = os.fsencode(${JSON.stringify(work.dir)}) + b'/par\\xff'\nshutil.copytree(os.fsencode(${JSON.stringify(source)}), bad)\nos.symlink(bad, os.fsencode(${JSON.stringify(path.join(work.dir, 'link'))}))\n`
      execFileSync('python3', ['-c', script])
      // The folder Node's U+FFFD would name, with other files: never packed instead.
      await writeTree(path.join(work.dir, 'par\uFFFD'), {'manifest.json': '{}', 'elsewhere.txt': 'not this folder'})
      const error = await rejectionOf(pack(path.join(work.dir, 'link'), {output: path.join(work.dir, 'out.svcPlugin')}))
      assert.equal(error.code, 'unreadable', String(error))
      assert.match(error.message, /real path is not UTF-8/)
    })

    it('leaves its output out and never writes over the manifest, by whatever path each is reached (a hard link)', async () => {
      const outside = path.join(work.dir, 'out.zip')
      await pack(source, {output: outside})
      execFileSync('ln', [outside, path.join(source, 'copy-of-output.zip')])
      const again = await pack(source, {output: outside, force: true})
      assert.ok(!again.files.some((file) => file.path === 'copy-of-output.zip'), again.files.map((file) => file.path).join(', '))
      execFileSync('ln', [path.join(source, 'manifest.json'), path.join(work.dir, 'manifest-link.json')])
      const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'manifest-link.json'), force: true}))
      assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'write-failed', reason: 'is-input'})
      assert.ok((await readFile(path.join(source, 'manifest.json'), 'utf8')).startsWith('{'))
    })

    it('applies .svcpluginignore (gitignore syntax: a directory pattern, a negation) and leaves the ignore file out', async () => {
      await writeTree(source, {
        '.svcpluginignore': '# build leftovers\nbuild/\n*.log\n!keep.log\n/root-only.tmp\n',
        'build/obj/a.o': 'x',
        'build/b.txt': 'x',
        'logs/run.log': 'x',
        'logs/keep.log': 'kept',
        'keep.log': 'kept',
        'root-only.tmp': 'x',
        'nested/root-only.tmp': 'kept',
        'notbuild/c.txt': 'kept',
      })
      const paths = await packedPaths(source)
      for (const gone of ['.svcpluginignore', 'build/obj/a.o', 'build/b.txt', 'logs/run.log', 'root-only.tmp']) assert.ok(!paths.includes(gone), gone)
      for (const kept of ['logs/keep.log', 'keep.log', 'nested/root-only.tmp', 'notbuild/c.txt', 'README.md']) assert.ok(paths.includes(kept), kept)
    })

    it('lets .svcpluginignore exclude a symlink, which is then not refused', async () => {
      await symlink('README.md', path.join(source, 'link.md'))
      await writeTree(source, {'.svcpluginignore': 'link.md\n'})
      assert.ok(!(await packedPaths(source)).includes('link.md'))
    })
  })

  describe('refusals: source-entry-rejected, nothing written', () => {
    it('refuses a symlink to a file, naming it', async () => {
      await symlink('README.md', path.join(source, 'link.md'))
      await expectRejected('link.md', 'symlink')
    })

    it('refuses a symlink to a folder, naming it', async () => {
      await symlink('runtimes', path.join(source, 'bin-link'))
      await expectRejected('bin-link', 'symlink')
    })

    it('refuses a FIFO', async () => {
      await mkdir(path.join(source, 'pipes'))
      execFileSync('mkfifo', [path.join(source, 'pipes', 'fifo')])
      await expectRejected('pipes/fifo', 'special-file')
    })

    it('refuses a name that is not UTF-8 (it could not be opened by the name Node reads), unless the ignore file lists it', async () => {
      await mkdir(path.join(source, 'raw'))
      writeFileSync(Buffer.concat([Buffer.from(path.join(source, 'raw', 'bad')), Buffer.from([0xff]), Buffer.from('.txt')]), 'x')
      // U+FFFD written in UTF-8 is a name like any other.
      await writeTree(source, {'raw/own\uFFFD.txt': 'kept'})
      await expectRejected('raw/bad\uFFFD.txt', 'invalid-utf8')
      await writeTree(source, {'.svcpluginignore': 'raw/bad*.txt\n'})
      assert.deepEqual((await packedPaths(source)).filter((name) => name.startsWith('raw/')), ['raw/own\uFFFD.txt'])
    })

    it('is unreadable, naming the folder, when a folder cannot be listed', async () => {
      // A folder deeper than the longest path the system takes (made one level at a time, from inside).
      const segment = 'd'.repeat(200)
      const script = `import os\nos.mkdir('deep'); os.chdir('deep')\nfor _ in range(25): os.mkdir('${segment}'); os.chdir('${segment}')\nopen('file.txt', 'w').write('x')`
      execFileSync('python3', ['-c', script], {cwd: source})
      try {
        const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin')}))
        assert.equal(error.code, 'unreadable', String(error))
        assert.equal(error.details.reason, 'source-io')
        assert.match(String(error.details.path), new RegExp(`/deep/(${segment}/)+`))
        assert.deepEqual((await readdir(work.dir)).sort(), ['source'])
      } finally {
        execFileSync('rm', ['-rf', path.join(source, 'deep')])
      }
    })

    it('hears an abort while the walk goes on: the folders are listed one turn of the event loop at a time', async () => {
      await writeTree(source, Object.fromEntries(Array.from({length: 300}, (_, index) => [`many/${index}/file.txt`, 'x'])))
      const controller = new AbortController()
      // Aborts after some turns of the event loop: by then the walk has started, and it lists 300 folders.
      let turns = 0
      const later = (): void => void (++turns < 60 ? setImmediate(later) : controller.abort())
      setImmediate(later)
      const error = await rejectionOf(judgeSourceTree(source, {limits: resolveLimits({}), signal: controller.signal}))
      assert.equal(error.code, 'cancelled', String(error))
    })

    it('refuses a Windows device name (CON.txt)', async () => {
      await writeTree(source, {'docs/CON.txt': 'x'})
      const error = await expectRejected('docs/CON.txt', 'device-name')
      assert.match(error.message, /device name/)
    })

    it('refuses the Windows console names CONIN$ and CONOUT$, and a superscript-digit port (COM¹)', async () => {
      await writeTree(source, {'docs/CONIN$': 'x'})
      await expectRejected('docs/CONIN$', 'device-name')
      await rm(path.join(source, 'docs'), {recursive: true})
      await writeTree(source, {'conout$.log': 'x'})
      await expectRejected('conout$.log', 'device-name')
      await rm(path.join(source, 'conout$.log'))
      await writeTree(source, {'COM\u00b9.txt': 'x'})
      await expectRejected('COM\u00b9.txt', 'device-name')
    })

    it('refuses an 8.3 short-name alias (LONGDI~1), which can alias another entry on NTFS', async () => {
      await writeTree(source, {'LONGDI~1/notes.txt': 'x'})
      await expectRejected('LONGDI~1/notes.txt', 'short-name-alias')
    })

    it('refuses a bidirectional override and a zero-width space in a name', async () => {
      await writeTree(source, {'report\u202etxt.exe': 'x'})
      await expectRejected('report\u202etxt.exe', 'format-character', 'report')
      await rm(path.join(source, 'report\u202etxt.exe'))
      await writeTree(source, {'sam\u200bple.txt': 'x'})
      await expectRejected('sam\u200bple.txt', 'format-character', 'sam')
    })

    it('refuses two folders that differ only in case (share/, SHARE/)', async () => {
      await writeTree(source, {'SHARE/b.txt': 'b', 'share/a.txt': 'a'})
      const error = await expectRejected('share/a.txt', 'case-collision', 'SHARE')
      assert.match(error.message, /Folders "SHARE" and "share" differ only in case/)
    })

    it('refuses a file with the setuid, setgid or sticky bit', async () => {
      for (const mode of [0o4755, 0o2755, 0o1644]) {
        await writeTree(source, {'bin/tool': 'x'})
        await chmod(path.join(source, 'bin', 'tool'), mode)
        await expectRejected('bin/tool', 'special-mode-bits')
        await rm(path.join(source, 'bin'), {recursive: true})
      }
    })

    it('refuses a name with a colon', async () => {
      await writeTree(source, {'notes:v2.txt': 'x'})
      await expectRejected('notes:v2.txt', 'reserved-character')
    })

    it('refuses a name with a trailing dot', async () => {
      await writeTree(source, {'notes.': 'x'})
      await expectRejected('notes.', 'trailing-dot-or-space')
    })

    it('refuses a name with a backslash (a separator on Windows)', async () => {
      await writeTree(source, {'a\\b.txt': 'x'})
      await expectRejected('a\\b.txt', 'backslash')
    })

    it('refuses two files that differ only in case (A.txt, a.txt)', async () => {
      await writeTree(source, {'A.txt': 'upper', 'a.txt': 'lower'})
      const error = await expectRejected('a.txt', 'case-collision')
      assert.equal(error.details.other, 'A.txt')
      assert.ok(error.message.includes('A.txt'), error.message)
    })

    it('refuses two names equal after Unicode NFC', async () => {
      await writeTree(source, {'caf\u00e9.txt': 'nfc', 'cafe\u0301.txt': 'nfd'})
      const error = await expectRejected('caf\u00e9.txt', 'nfc-collision', 'caf')
      assert.match(error.message, /Unicode normal forms/)
    })

    it('refuses a file whose name another path needs as a folder, case-insensitively', async () => {
      await writeTree(source, {Docs: 'a file', 'docs/guide.md': 'x'})
      const error = await expectRejected('docs/guide.md', 'file-directory-collision', 'Docs')
      assert.equal(error.details.folder, 'docs')
    })

    it('refuses certificate.json at the root: only sign writes it', async () => {
      await writeTree(source, {'certificate.json': '{}'})
      await expectRejected('certificate.json', 'reserved-signing-name')
    })
  })

  describe('warnings: the artifact is still written', () => {
    it('warns source-looks-like-debug-build for bin/Debug/', async () => {
      await writeTree(source, {'bin/Debug/net8.0/Helper.dll': 'x'})
      const result = await pack(source, {output: path.join(work.dir, 'out.svcPlugin')})
      const warning = result.warnings.find((w) => w.code === 'source-looks-like-debug-build')
      assert.ok(warning, JSON.stringify(result.warnings))
      assert.equal(warning.severity, 'warning')
      assert.ok(result.files.some((file) => file.path === 'bin/Debug/net8.0/Helper.dll'))
      assert.equal(typeof result.sha256, 'string')
    })

    it('does not warn source-looks-like-debug-build for a release build', async () => {
      await writeTree(source, {'bin/Release/net8.0/Helper.dll': 'x'})
      const result = await pack(source, {dryRun: true, output: path.join(work.dir, 'out.svcPlugin')})
      assert.equal(result.warnings.some((w) => w.code === 'source-looks-like-debug-build'), false)
    })

    it('warns entrypoint-not-packed for a missing executable and still packs', async () => {
      await unlink(path.join(source, 'runtimes', 'osx-arm64', 'weather-station'))
      const result = await pack(source, {output: path.join(work.dir, 'out.svcPlugin')})
      const warning = result.warnings.find((w) => w.code === 'entrypoint-not-packed')
      assert.ok(warning, JSON.stringify(result.warnings))
      assert.equal(warning.severity, 'warning')
      assert.equal(warning.pointer, '/entrypoints/osx-arm64/executable')
      assert.equal(result.entries, 8)
      assert.ok(result.bytes !== null && result.bytes > 0)
      const manifest = JSON.parse(Buffer.from(result.manifest).toString('utf8'))
      assert.equal(manifest.entrypoints['osx-arm64'].executable, 'runtimes/osx-arm64/weather-station')
    })
  })

  describe('the source manifest', () => {
    it('is judged at development level: an invalid one is manifest-invalid with the report', async () => {
      await editManifest(source, (manifest) => {
        manifest.version = '1.4'
        manifest.permissions = ['host:variables', 'host:variables']
      })
      const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin')}))
      assert.ok(error instanceof PackError)
      assert.equal(error.code, 'manifest-invalid')
      assert.ok(error.report)
      assert.equal(error.report.valid, false)
      assert.equal(error.report.level, 'development')
      const errors = error.report.problems.filter((p) => p.severity === 'error').map((p) => `${p.code} ${p.pointer}`)
      assert.deepEqual(errors.sort(), ['invalid-permission /permissions/1', 'invalid-version /version'])
      assert.deepEqual((await readdir(work.dir)).sort(), ['source'])
    })

    it('is not judged at package level: missing publication fields do not refuse the pack', async () => {
      await editManifest(source, (manifest) => {
        delete manifest.license
        delete manifest.repository
      })
      const result = await pack(source, {dryRun: true, output: path.join(work.dir, 'out.svcPlugin')})
      assert.ok(result.warnings.some((w) => w.code === 'publication-metadata-missing' && w.severity === 'warning'), JSON.stringify(result.warnings))
    })

    it('is file-not-found when manifest.json is missing', async () => {
      await rm(path.join(source, 'manifest.json'))
      const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin')}))
      assert.ok(error instanceof PackError)
      assert.equal(error.code, 'file-not-found')
      assert.equal(error.details.path, path.join(source, 'manifest.json'))
    })

    it('is file-not-found when the source folder does not exist', async () => {
      const error = await rejectionOf(pack(path.join(work.dir, 'nowhere'), {output: path.join(work.dir, 'out.svcPlugin')}))
      assert.ok(error instanceof PackError)
      assert.equal(error.code, 'file-not-found')
    })
  })

  describe('limits (lowered by a library caller): limit-exceeded, nothing written', () => {
    const cases = [
      {limits: {maxEntries: 8}, limit: 'maxEntries'},
      {limits: {maxEntryBytes: 2000}, limit: 'maxEntryBytes'},
      {limits: {maxTotalBytes: 3000}, limit: 'maxTotalBytes'},
      {limits: {maxManifestBytes: 1000}, limit: 'maxManifestBytes'},
    ] as const
    for (const {limits, limit} of cases) {
      it(`refuses a tree over ${limit}`, async () => {
        const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin'), limits}))
        assert.ok(error instanceof PackError, String(error))
        assert.equal(error.code, 'limit-exceeded')
        assert.equal(error.details.limit, limit)
        if (limit === 'maxEntryBytes') assert.equal(error.details.path, 'runtimes/win-x64/WeatherStation.exe')
        assert.deepEqual((await readdir(work.dir)).sort(), ['source'])
      })
    }

    it('accepts a tree that leaves exactly room for signing at maxEntries (9 entries, 4 more when signed)', async () => {
      const result = await pack(source, {dryRun: true, output: path.join(work.dir, 'out.svcPlugin'), limits: {maxEntries: 13}})
      assert.equal(result.entries, 9)
    })

    it('refuses a tree one entry short of room for the certificate entries signing adds', async () => {
      const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin'), limits: {maxEntries: 12}}))
      assert.ok(error instanceof PackError, String(error))
      assert.deepEqual({code: error.code, limit: error.details.limit, value: error.details.value}, {code: 'limit-exceeded', limit: 'maxEntries', value: 13})
      assert.match(error.message, /8 files; with manifest\.json and the 4 certificate entries signing adds/)
    })

    it('refuses an artifact over maxArchiveBytes once written, leaving nothing behind', async () => {
      const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin'), limits: {maxArchiveBytes: 1000}}))
      assert.equal(error.code, 'limit-exceeded')
      assert.equal(error.details.reason, 'archive-too-large')
      assert.deepEqual((await readdir(work.dir)).sort(), ['source'])
    })

    it('refuses an artifact over a lowered maxCompressionRatio, leaving nothing behind', async () => {
      const error = await rejectionOf(pack(source, {output: path.join(work.dir, 'out.svcPlugin'), limits: {maxCompressionRatio: 1.2}}))
      assert.equal(error.code, 'limit-exceeded')
      assert.equal(error.details.reason, 'compression-ratio')
      assert.deepEqual((await readdir(work.dir)).sort(), ['source'])
    })
  })
})

describe('pack: a source tree with nothing to refuse', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  after(async () => {
    await work?.cleanup()
  })

  it('packs the example plugin without any warning but languages-recomputed', async () => {
    work = await scratch('clean')
    const source = await copyExample(path.join(work.dir, 'source'))
    const result = await pack(source, {dryRun: true, output: path.join(work.dir, 'out.svcPlugin')})
    assert.deepEqual(result.warnings.map((w) => w.code), ['languages-recomputed'])
  })
})
