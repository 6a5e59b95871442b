import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {chmod, mkdir, readdir, readFile, stat, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {formatMiB} from '../../src/quantities.js'
import {after, before, describe, it} from 'node:test'
import {ExitCode, exitCodeFor} from '../../commands/exit-codes.js'
import {PackError, type PackErrorCode} from '../../src/pack/errors.js'
import {pack} from '../../src/pack/pack.js'
import {cliPath, runCli, runCliJson, spawnCli, tempDir, type CliResult} from '../helpers/cli.js'
import {copyExample, editManifest, exampleId, exampleVersion, listFiles, pythonZipInfo, sha256sum, writeTree} from '../pack/support.js'

const artifactName = `${exampleId}-${exampleVersion}.svcPlugin`

describe('svc-plugin pack', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let counter = 0
  /** A fresh working directory holding a copy of the example plugin in `source/`. */
  async function workspace(): Promise<{cwd: string; source: string}> {
    const cwd = path.join(scratch.dir, `w${counter++}`)
    await mkdir(cwd)
    return {cwd, source: await copyExample(path.join(cwd, 'source'))}
  }

  before(async () => {
    scratch = await tempDir('svc-plugin-cli-pack-')
  })
  after(async () => {
    await scratch.cleanup()
  })

  describe('--json', () => {
    let cwd: string
    let result: CliResult & {json: any}
    before(async () => {
      ;({cwd} = await workspace())
      result = await runCliJson(['pack', 'source'], {cwd})
    })

    it('exits 0 and prints only the result object on stdout', () => {
      assert.equal(result.status, 0, result.stderr)
      assert.deepEqual(Object.keys(result.json), ['path', 'id', 'version', 'entries', 'uncompressedBytes', 'bytes', 'sha256', 'dryRun', 'leftOut', 'secrets', 'createdFolder', 'problems', 'warnings'])
      assert.equal(result.stderr, '')
    })

    it('reports path, id, version, entries and sizes that match the file', async () => {
      const {json} = result
      const file = path.join(cwd, artifactName)
      assert.equal(json.path, file)
      assert.equal(json.id, exampleId)
      assert.equal(json.version, exampleVersion)
      assert.equal(json.entries, 9)
      assert.equal(json.bytes, (await stat(file)).size)
      const zip = pythonZipInfo(file)
      assert.equal(json.uncompressedBytes, zip.entries.reduce((sum, entry) => sum + entry.size, 0))
      assert.equal(json.dryRun, false)
    })

    it('reports the sha256 that sha256sum computes over the file', () => {
      assert.match(result.json.sha256, /^[0-9a-f]{64}$/)
      assert.equal(result.json.sha256, sha256sum(path.join(cwd, artifactName)))
    })

    it('carries the warnings as diagnostics', () => {
      assert.deepEqual(
        result.json.warnings.map((w: {code: string; severity: string; pointer: string}) => [w.code, w.severity, w.pointer]),
        [['languages-recomputed', 'warning', '/languages']],
      )
    })
  })

  describe('text output', () => {
    it('prints the success line on stdout and warnings on stderr', async () => {
      const {cwd} = await workspace()
      const result = await runCli(['pack', 'source'], {cwd})
      assert.equal(result.status, 0, result.stderr)
      const file = path.join(cwd, artifactName)
      const bytes = pythonZipInfo(file).entries.reduce((sum, entry) => sum + entry.size, 0)
      assert.equal(result.stdout, `Packed ${exampleId} ${exampleVersion} -> ${file} (9 entries, ${formatMiB(bytes)} uncompressed).\n`)
      assert.match(result.stderr, /^warning languages-recomputed: /m)
      assert.doesNotMatch(result.stdout, /warning/)
    })

    it('prints nothing with --quiet (no warnings, no result line), and still writes the artifact', async () => {
      const {cwd} = await workspace()
      const result = await runCli(['pack', 'source', '--quiet'], {cwd})
      assert.equal(result.status, 0)
      assert.equal(result.stderr, '')
      assert.equal(result.stdout, '')
      assert.ok((await stat(path.join(cwd, artifactName))).isFile())
    })

    it('packs the working directory by default', async () => {
      const {source} = await workspace()
      const result = await runCli(['pack', '--json'], {cwd: source})
      assert.equal(result.status, 0, result.stderr)
      assert.equal(JSON.parse(result.stdout).path, path.join(source, artifactName))
      // Packing again sees its own output in the tree and leaves it out (*.svcPlugin).
      const again = await runCliJson(['pack', '--force'], {cwd: source})
      assert.equal(again.status, 0, again.stderr)
      assert.equal(again.json.entries, 9)
    })
  })

  describe('--output and --force', () => {
    it('writes --output relative to the working directory', async () => {
      const {cwd} = await workspace()
      await mkdir(path.join(cwd, 'dist'))
      const result = await runCliJson(['pack', 'source', '-o', 'dist/weather.svcPlugin'], {cwd})
      assert.equal(result.status, 0, result.stderr)
      assert.equal(result.json.path, path.join(cwd, 'dist', 'weather.svcPlugin'))
      assert.deepEqual(await readdir(path.join(cwd, 'dist')), ['weather.svcPlugin'])
    })

    it('refuses an existing output with output-exists, exit 2, and leaves it untouched', async () => {
      const {cwd} = await workspace()
      const file = path.join(cwd, artifactName)
      await writeFile(file, 'an older artifact')
      const result = await runCli(['pack', 'source'], {cwd})
      assert.equal(result.status, 2)
      assert.match(result.stderr, /^error output-exists: .*--force/m)
      assert.equal(result.stdout, '')
      assert.equal(await readFile(file, 'utf8'), 'an older artifact')
      assert.deepEqual((await readdir(cwd)).sort(), [artifactName, 'source'])

      const json = await runCliJson(['pack', 'source'], {cwd})
      assert.equal(json.status, 2)
      assert.equal(json.json.error.code, 'output-exists')
      assert.equal(json.json.error.path, file)
    })

    it('replaces an existing output with --force', async () => {
      const {cwd} = await workspace()
      const file = path.join(cwd, artifactName)
      await writeFile(file, 'an older artifact')
      const result = await runCliJson(['pack', 'source', '--force'], {cwd})
      assert.equal(result.status, 0, result.stderr)
      assert.equal(sha256sum(file), result.json.sha256)
      assert.equal(pythonZipInfo(file).entries[0]?.name, 'manifest.json')
      assert.deepEqual((await readdir(cwd)).sort(), [artifactName, 'source'])
    })
  })

  describe('--dry-run', () => {
    it('lists every path with its size on stdout and writes nothing', async () => {
      const {cwd, source} = await workspace()
      const result = await runCli(['pack', 'source', '--dry-run'], {cwd})
      assert.equal(result.status, 0, result.stderr)
      const lines = result.stdout.trimEnd().split('\n')
      const payload = (await listFiles(source)).filter((name) => name !== 'manifest.json')
      assert.equal(lines.length, payload.length)
      for (const [index, name] of payload.entries()) {
        const {size} = await stat(path.join(source, name))
        assert.equal(lines[index], `${formatMiB(size).padStart(16)}  ${name}`)
      }
      assert.match(result.stderr, /^Would pack com\.example\.weather-station 1\.4\.2 -> .* \(9 entries, \S+ MiB uncompressed\)\.$/m)
      assert.deepEqual((await readdir(cwd)).sort(), ['source'])
    })

    it('prints the files, a null sha256 and null bytes with --json', async () => {
      const {cwd} = await workspace()
      const result = await runCliJson(['pack', 'source', '--dry-run'], {cwd})
      assert.equal(result.status, 0)
      assert.equal(result.json.dryRun, true)
      assert.equal(result.json.sha256, null)
      assert.equal(result.json.bytes, null)
      assert.equal(result.json.files.length, 8)
      assert.deepEqual(result.json.files[3], {path: 'README.md', size: 226})
      assert.deepEqual((await readdir(cwd)).sort(), ['source'])
    })
  })

  describe('refusals', () => {
    it('exits 1 with source-entry-rejected naming a symlink', async () => {
      const {cwd, source} = await workspace()
      await symlink('README.md', path.join(source, 'link.md'))
      const result = await runCli(['pack', 'source'], {cwd})
      assert.equal(result.status, 1)
      assert.match(result.stderr, /^error source-entry-rejected: link\.md is a symbolic link/m)
      const json = await runCliJson(['pack', 'source'], {cwd})
      assert.equal(json.status, 1)
      assert.equal(json.json.error.code, 'source-entry-rejected')
      assert.equal(json.json.error.path, 'link.md')
      assert.deepEqual((await readdir(cwd)).sort(), ['source'])
    })

    it('exits 1 for two files that differ only in case', async () => {
      const {cwd, source} = await workspace()
      await writeTree(source, {'A.txt': 'a', 'a.txt': 'b'})
      const result = await runCli(['pack', 'source'], {cwd})
      assert.equal(result.status, 1)
      assert.match(result.stderr, /^error source-entry-rejected: .*"A\.txt".*"a\.txt"/m)
    })

    it('exits 1 and prints the validate report on stderr for a manifest invalid at development level', async () => {
      const {cwd, source} = await workspace()
      await editManifest(source, (manifest) => {
        manifest.version = '1.4'
      })
      const result = await runCli(['pack', 'source'], {cwd})
      assert.equal(result.status, 1)
      assert.equal(result.stdout, '')
      assert.match(result.stderr, /^error invalid-version: .* \[\/version\]$/m)
      assert.match(result.stderr, /^com\.example\.weather-station 1\.4: 1 error, 0 warnings\.$/m)
      assert.deepEqual((await readdir(cwd)).sort(), ['source'])
    })

    it('prints the error and the report on stdout with --json', async () => {
      const {cwd, source} = await workspace()
      await editManifest(source, (manifest) => {
        manifest.version = '1.4'
      })
      const result = await runCliJson(['pack', 'source'], {cwd})
      assert.equal(result.status, 1)
      assert.equal(result.json.error.code, 'manifest-invalid')
      assert.equal(result.json.report.valid, false)
      assert.equal(result.json.report.level, 'development')
      assert.deepEqual(
        result.json.report.problems.map((p: {code: string; pointer: string}) => [p.code, p.pointer]),
        [['invalid-version', '/version']],
      )
    })

    it('exits 3 with file-not-found when SOURCE has no manifest.json', async () => {
      const {cwd} = await workspace()
      await mkdir(path.join(cwd, 'empty'))
      const result = await runCli(['pack', 'empty'], {cwd})
      assert.equal(result.status, 3)
      assert.match(result.stderr, /^error file-not-found: .*manifest\.json/m)
      assert.equal(result.stdout, '')
    })

    it('exits 2 for an unknown flag', async () => {
      const {cwd} = await workspace()
      const result = await runCli(['pack', 'source', '--compress-harder'], {cwd})
      assert.equal(result.status, 2)
      assert.match(result.stderr, /^error usage: /m)
      assert.deepEqual((await readdir(cwd)).sort(), ['source'])
    })

    it('maps every PackError code through the exit-code table', () => {
      const expected: Record<PackErrorCode, ExitCode> = {
        'file-not-found': ExitCode.unreadable,
        'manifest-invalid': ExitCode.invalid,
        'source-entry-rejected': ExitCode.invalid,
        'limit-exceeded': ExitCode.invalid,
        'source-changed': ExitCode.invalid,
        'secret-detected': ExitCode.invalid,
        'level-not-met': ExitCode.invalid,
      }
      for (const [code, status] of Object.entries(expected)) {
        assert.equal(exitCodeFor(new PackError(code as PackErrorCode, 'test')), status, code)
      }
    })
  })

  it('writes the same bytes as the library from a copy with other modes, under umask 077', async () => {
    const {cwd, source} = await workspace()
    const libraryCopy = await copyExample(path.join(cwd, 'library-copy'))
    await chmod(path.join(libraryCopy, 'runtimes', 'linux-x64', 'weather-station'), 0o600)
    await chmod(path.join(libraryCopy, 'README.md'), 0o755)
    const library = await pack(libraryCopy, {output: path.join(cwd, 'library.svcPlugin')})
    const child = spawnSync('sh', ['-c', 'umask 077 && exec "$0" "$@"', process.execPath, cliPath, 'pack', source, '-o', 'cli.svcPlugin', '--json'], {
      cwd,
      encoding: 'utf8',
      env: {...process.env, NO_COLOR: '1'},
    })
    assert.equal(child.status, 0, child.stderr)
    assert.equal(JSON.parse(child.stdout).sha256, library.sha256)
    const [a, b] = await Promise.all([readFile(path.join(cwd, 'library.svcPlugin')), readFile(path.join(cwd, 'cli.svcPlugin'))])
    assert.ok(a.equals(b))
  })

  it('--help lists every flag', async () => {
    const result = await spawnCli(['pack', '--help'])
    assert.equal(result.status, 0)
    for (const flag of ['-o, --output=<value>', '-f, --force', '--dry-run', '--json', '-q, --quiet', '--no-color']) {
      assert.ok(result.stdout.includes(flag), `--help does not list ${flag}:\n${result.stdout}`)
    }
    assert.match(result.stdout, /\[SOURCE\]/)
  })
})
