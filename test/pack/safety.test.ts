import assert from 'node:assert/strict'
import {appendFileSync} from 'node:fs'
import {chmod, mkdir, readdir, readFile, utimes, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {afterEach, beforeEach, describe, it} from 'node:test'
import {openArchive} from '../../src/archive/reader.js'
import {OutputError} from '../../src/fs/output.js'
import {PackError} from '../../src/pack/errors.js'
import {pack, type PackProgress} from '../../src/pack/pack.js'
import {copyExample, rejectionOf, scratch, sha256Hex, sha256sum, snapshotTree, writeTree} from './support.js'

describe('pack: what it writes, and what it never touches', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let source: string
  let outDir: string
  let output: string
  beforeEach(async () => {
    work = await scratch('safety')
    source = await copyExample(path.join(work.dir, 'source'))
    outDir = path.join(work.dir, 'out')
    await mkdir(outDir)
    output = path.join(outDir, 'plugin.svcPlugin')
  })
  afterEach(async () => {
    await work.cleanup()
  })

  describe('a dry run', () => {
    it('writes nothing and lists every payload path with its size', async () => {
      const result = await pack(source, {output, dryRun: true})
      assert.equal(result.dryRun, true)
      assert.equal(result.sha256, null)
      assert.equal(result.bytes, null)
      assert.equal(result.path, output)
      assert.deepEqual(await readdir(outDir), [])
      assert.deepEqual(result.files, [
        {path: 'Localization/Strings.de.resx', size: 236},
        {path: 'Localization/Strings.fr-FR.resx', size: 233},
        {path: 'Localization/Strings.resx', size: 229},
        {path: 'README.md', size: 226},
        {path: 'assets/icon.png', size: 94},
        {path: 'runtimes/linux-x64/weather-station', size: 261},
        {path: 'runtimes/osx-arm64/weather-station', size: 261},
        {path: 'runtimes/win-x64/WeatherStation.exe', size: 2155},
      ])
      assert.equal(result.entries, 9)
    })

    it('does not refuse an existing output, and leaves it alone', async () => {
      await writeFile(output, 'previous')
      const result = await pack(source, {output, dryRun: true})
      assert.equal(result.dryRun, true)
      assert.equal(await readFile(output, 'utf8'), 'previous')
    })
  })

  describe('an existing output', () => {
    it('is output-exists without force, and keeps its bytes', async () => {
      await writeFile(output, 'previous artifact')
      const error = await rejectionOf(pack(source, {output}))
      assert.ok(error instanceof OutputError, String(error))
      assert.equal(error.code, 'output-exists')
      assert.equal(error.details.path, output)
      assert.equal(await readFile(output, 'utf8'), 'previous artifact')
      assert.deepEqual(await readdir(outDir), ['plugin.svcPlugin'])
    })

    it('is replaced with force', async () => {
      await writeFile(output, 'previous artifact')
      const result = await pack(source, {output, force: true})
      const bytes = await readFile(output)
      assert.equal(bytes.length, result.bytes)
      assert.equal(sha256sum(output), result.sha256)
      assert.equal(bytes.subarray(0, 4).toString('hex'), '504b0304')
      assert.deepEqual(await readdir(outDir), ['plugin.svcPlugin'])
    })
  })

  describe('a failure while writing', () => {
    it('is source-changed when a file grew since it was listed, and leaves no temporary file beside the output', async () => {
      // Files are read one after the other, in archive order: when the first one is done, the last is not read yet.
      const last = path.join(source, 'runtimes', 'win-x64', 'WeatherStation.exe')
      let touched = false
      const error = await rejectionOf(
        pack(source, {
          output,
          onProgress: (progress: PackProgress) => {
            if (progress.phase === 'hash' && progress.files === 1 && !touched) {
              touched = true
              appendFileSync(last, 'one more line\n')
            }
          },
        }),
      )
      assert.ok(touched)
      assert.ok(error instanceof PackError, String(error))
      assert.deepEqual({code: error.code, reason: error.details.reason, path: error.details.path}, {code: 'source-changed', reason: 'size-changed', path: 'runtimes/win-x64/WeatherStation.exe'})
      assert.deepEqual(await readdir(outDir), [])
    })

    it('writes the bytes it hashed: a file changed once read is packed as it was read, and files[] agrees', async () => {
      const first = path.join(source, 'Localization', 'Strings.de.resx')
      const original = await readFile(first)
      const result = await pack(source, {
        output,
        onProgress: (progress: PackProgress) => {
          if (progress.phase === 'hash' && progress.files === 1) appendFileSync(first, 'changed after it was read\n')
        },
      })
      const archive = await openArchive(result.path)
      try {
        const digests = await archive.digestEntries()
        assert.deepEqual(digests.get('Localization/Strings.de.resx'), {size: original.length, sha256: `sha256:${sha256Hex(original)}`})
        assert.deepEqual(result.digests.get('Localization/Strings.de.resx'), digests.get('Localization/Strings.de.resx'))
      } finally {
        await archive.close()
      }
    })

    it('is write-failed naming the output, never a temporary file, and leaves nothing when a file stands where a folder is needed', async () => {
      await writeFile(path.join(work.dir, 'a-file'), 'not a folder')
      const target = path.join(work.dir, 'a-file', 'sub', 'plugin.svcPlugin')
      const error = await rejectionOf(pack(source, {output: target}))
      assert.ok(error instanceof OutputError, String(error))
      assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'write-failed', reason: 'ENOTDIR'})
      assert.equal(error.message, `${target} cannot be written: a file stands where a folder is needed on its path.`)
      assert.deepEqual((await readdir(work.dir)).sort(), ['a-file', 'out', 'source'])
    })
  })

  it('reports progress for the hash phase and the write phase', async () => {
    const phases = new Set<string>()
    let last: PackProgress | undefined
    await pack(source, {
      output,
      onProgress: (progress) => {
        phases.add(progress.phase)
        last = {...progress}
      },
    })
    assert.deepEqual([...phases], ['hash', 'write'])
    assert.equal(last?.phase, 'write')
    assert.equal(last?.files, last?.totalFiles)
    assert.equal(last?.bytes, last?.totalBytes)
  })

  it('never modifies the source tree: names, sizes, mtimes and modes are unchanged', async () => {
    await writeTree(source, {'.svcpluginignore': 'scratch/\n', 'scratch/tmp.txt': 'x', '.git/HEAD': 'ref\n', 'old.svcPlugin': 'x'})
    await chmod(path.join(source, 'README.md'), 0o600)
    await utimes(path.join(source, 'assets'), new Date('2010-01-01T00:00:00Z'), new Date('2010-01-01T00:00:00Z'))
    const before = await snapshotTree(source)
    await pack(source, {output})
    await pack(source, {output, force: true})
    await pack(source, {output, dryRun: true})
    await rejectionOf(pack(source, {output}))
    // The output inside the tree is the only change allowed when it is asked for there.
    const inside = path.join(source, 'inside.svcPlugin')
    await pack(source, {output: inside})
    const after = await snapshotTree(source)
    assert.match(after['inside.svcPlugin'] ?? '', /^file /)
    delete after['inside.svcPlugin']
    assert.deepEqual(after, before)
  })
})
