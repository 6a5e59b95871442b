import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {createHash, randomBytes} from 'node:crypto'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {finished} from 'node:stream/promises'
import {after, before, describe, it} from 'node:test'
import zlib from 'node:zlib'
import {ArchiveError} from '../../src/archive/errors.js'
import {openArchive} from '../../src/archive/reader.js'
import type {StrictArchive} from '../../src/archive/types.js'
import {writeArchive} from '../../src/archive/writer.js'
import {joinZip, newRecord, splitZip} from '../helpers/zip-splice.js'
import {fileEntries, makeTempDir, rejectionOf, sha256OfFile, writeTree} from './support.js'

const tree: Record<string, string | Buffer> = {
  'manifest.json': '{"manifestVersion": 1, "id": "com.example.reader-test", "version": "1.0.0"}\n',
  'runtimes/linux-x64/sample': Buffer.concat([Buffer.from('7f454c46', 'hex'), Buffer.alloc(70_000, 0x90)]),
  'assets/my icon.png': Buffer.alloc(3000, 7),
  'caf\u00e9/r\u00e9sum\u00e9.txt': 'bonjour\n'.repeat(500),
  'data/empty.txt': '',
  'data/random.bin': Buffer.from(Array.from({length: 50_000}, (_, i) => (i * 7919) % 251)),
}
const names = Object.keys(tree)

describe('an archive written by writeArchive', () => {
  let temp: {dir: string; remove: () => Promise<void>}
  let file: string
  let archive: StrictArchive

  before(async () => {
    temp = await makeTempDir('reader')
    const source = path.join(temp.dir, 'source')
    await writeTree(source, tree)
    file = path.join(temp.dir, 'good.svcPlugin')
    await writeArchive(file, await fileEntries(source, names, {executables: ['runtimes/linux-x64/sample'], stored: ['data/random.bin']}))
    archive = await openArchive(file)
  })
  after(async () => {
    await archive.close()
    await temp.remove()
  })

  it('lists every file entry in archive order, manifest.json first', () => {
    assert.deepEqual(
      archive.entries.map((entry) => entry.name),
      ['manifest.json', 'assets/my icon.png', 'caf\u00e9/r\u00e9sum\u00e9.txt', 'data/empty.txt', 'data/random.bin', 'runtimes/linux-x64/sample'],
    )
  })

  it('reports the Unix modes the writer set', () => {
    assert.equal(archive.get('runtimes/linux-x64/sample')?.mode, 0o100755)
    assert.equal(archive.get('manifest.json')?.mode, 0o100644)
  })

  it('reports stored and deflated entries with their sizes', () => {
    const stored = archive.get('data/random.bin')!
    assert.equal(stored.method, 0)
    assert.equal(stored.compressedSize, 50_000)
    const deflated = archive.get('caf\u00e9/r\u00e9sum\u00e9.txt')!
    assert.equal(deflated.method, 8)
    assert.equal(deflated.uncompressedSize, 4000)
    assert.ok(deflated.compressedSize < 4000)
  })

  it('knows its own size and limits', () => {
    assert.equal(archive.path, file)
    assert.ok(archive.size > 0)
    assert.equal(archive.limits.maxEntries, 20_000)
  })

  it('digests every entry to the SHA-256 of the source file', async () => {
    const digests = await archive.digestEntries()
    assert.deepEqual([...digests.keys()], archive.entries.map((entry) => entry.name))
    for (const name of names) {
      const expected = await sha256OfFile(path.join(temp.dir, 'source', ...name.split('/')))
      assert.deepEqual(digests.get(name), {size: Buffer.byteLength(tree[name]!), sha256: expected}, name)
    }
  })

  it('agrees with sha256sum run on the extracted files', {skip: spawnSync('unzip', ['-v']).status !== 0 || spawnSync('sha256sum', ['--version']).status !== 0}, async () => {
    const out = path.join(temp.dir, 'unzipped')
    assert.equal(spawnSync('unzip', ['-q', file, '-d', out]).status, 0)
    const digests = await archive.digestEntries()
    for (const name of names) {
      const line = spawnSync('sha256sum', [path.join(out, ...name.split('/'))], {encoding: 'utf8'}).stdout
      assert.equal(digests.get(name)?.sha256, `sha256:${line.split(' ')[0]}`, name)
    }
  })

  it('streams an entry with its digest once it ended', async () => {
    const stream = await archive.openEntry(archive.get('runtimes/linux-x64/sample')!)
    const early = stream.digest
    assert.equal(early, null)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    assert.ok(Buffer.concat(chunks).equals(tree['runtimes/linux-x64/sample'] as Buffer))
    assert.equal(stream.digest?.size, 70_004)
  })

  it('reads a small entry whole', async () => {
    const bytes = await archive.readEntry(archive.get('manifest.json')!)
    assert.equal(bytes.toString('utf8'), tree['manifest.json'])
  })

  it('refuses to read into memory an entry declared larger than maxBytes', async () => {
    const error = await rejectionOf(archive.readEntry(archive.get('data/random.bin')!, 1000))
    assert.ok(error instanceof ArchiveError)
    assert.equal(error.code, 'limit-exceeded')
    assert.equal(error.details.reason, 'read-limit')
    assert.equal(error.details.entry, 'data/random.bin')
  })

  it('streams an empty entry', async () => {
    const bytes = await archive.readEntry(archive.get('data/empty.txt')!)
    assert.equal(bytes.length, 0)
  })

  it('gives nothing for an unknown name', () => {
    assert.equal(archive.get('MANIFEST.JSON'), undefined)
  })

  it('refuses an entry of another archive', async () => {
    await assert.rejects(archive.openEntry({name: 'elsewhere.txt', method: 0, compressedSize: 1, uncompressedSize: 1, crc32: 0, mode: 0}), RangeError)
  })

  it('trusts its own record, not the sizes of the object it is given', async () => {
    const real = archive.get('manifest.json')!
    const bytes = await archive.readEntry({...real, uncompressedSize: 1, compressedSize: 1})
    assert.equal(bytes.length, real.uncompressedSize)
  })

  it('is refused under a lowered entry limit', async () => {
    const error = await rejectionOf(openArchive(file, {limits: {maxEntries: 3}}))
    assert.equal(error.code, 'limit-exceeded')
    assert.equal(error.details.reason, 'too-many-entries')
  })
})

describe('closing an archive', () => {
  it('ends a stream still being read with archive-closed and refuses new ones', async () => {
    const temp = await makeTempDir('close')
    try {
      const big = Buffer.alloc(4 * 1024 * 1024, 1)
      await writeTree(temp.dir, {'big.bin': big})
      const file = path.join(temp.dir, 'a.svcPlugin')
      await writeArchive(file, await fileEntries(temp.dir, ['big.bin'], {stored: ['big.bin']}))
      const archive = await openArchive(file)
      const stream = await archive.openEntry(archive.entries[0]!)
      const errors: unknown[] = []
      stream.on('error', (error) => errors.push(error))
      stream.pause()
      await new Promise((resolve) => setImmediate(resolve))
      await archive.close()
      assert.equal((errors[0] as ArchiveError | undefined)?.details.reason, 'archive-closed')
      await assert.rejects(archive.openEntry(archive.entries[0]!), /closed/)
      await archive.close()
    } finally {
      await temp.remove()
    }
  })
})

/** The extra-field ids of every header of `zip`, central and local. */
function extraFieldIds(zip: Buffer): Set<number> {
  const ids = new Set<number>()
  for (const record of splitZip(zip)) {
    for (const area of [record.centralExtra, record.localExtra]) {
      for (let at = 0; at + 4 <= area.length; at += 4 + area.readUInt16LE(at + 2)) ids.add(area.readUInt16LE(at))
    }
  }
  return ids
}

describe('archives written by the standard tools', () => {
  const tools: {name: string; available: boolean; args: (file: string) => [string, string[]]; extraFields: number[]}[] = [
    // Info-ZIP writes the extended timestamp (0x5455) and Unix owner (0x7875) fields, stored directories.
    {name: 'zip -r', available: spawnSync('zip', ['-v']).status === 0, args: (file) => ['zip', ['-q', '-r', file, '.']], extraFields: [0x5455, 0x7875]},
    {name: 'python3 -m zipfile -c', available: spawnSync('python3', ['-c', 'import zipfile']).status === 0, args: (file) => ['python3', ['-m', 'zipfile', '-c', file, 'a.txt', 'sub']], extraFields: []},
    // bsdtar writes all three timestamps in both headers and data descriptors.
    {name: 'bsdtar --format zip', available: spawnSync('bsdtar', ['--version']).status === 0, args: (file) => ['bsdtar', ['--format', 'zip', '-cf', file, 'a.txt', 'sub']], extraFields: [0x5455, 0x7875]},
    // 7-Zip writes the NTFS times field (0x000a).
    {name: '7z a -tzip', available: spawnSync('7z', ['i']).status === 0, args: (file) => ['7z', ['a', '-bd', '-tzip', file, 'a.txt', 'sub']], extraFields: [0x000a]},
  ]
  const tree = {'a.txt': 'hello\n', 'sub/deeper/b.txt': 'x'.repeat(10_000), 'sub/random.bin': Buffer.from(Array.from({length: 5000}, (_, i) => (i * 7919) % 251))}

  for (const tool of tools) {
    it(`opens an archive written by ${tool.name}, directory entries included, and reads its files`, {skip: !tool.available && `${tool.name} is not installed`}, async () => {
      const temp = await makeTempDir('tools')
      try {
        const source = path.join(temp.dir, 'src')
        await writeTree(source, tree)
        const file = path.join(temp.dir, 'tool.svcPlugin')
        const [command, args] = tool.args(file)
        const run = spawnSync(command, args, {cwd: source, encoding: 'utf8'})
        assert.equal(run.status, 0, run.stderr)
        const bytes = await readFile(file)
        const names = splitZip(bytes).map((record) => record.name.toString('utf8'))
        assert.ok(names.includes('sub/') && names.includes('sub/deeper/'), `directory entries: ${names.join(', ')}`)
        assert.deepEqual([...extraFieldIds(bytes)].sort(), [...tool.extraFields].sort())
        const archive = await openArchive(file)
        try {
          assert.deepEqual(archive.entries.map((entry) => entry.name).sort(), ['a.txt', 'sub/deeper/b.txt', 'sub/random.bin'])
          const digests = await archive.digestEntries()
          for (const name of Object.keys(tree)) assert.equal(digests.get(name)?.sha256, await sha256OfFile(path.join(source, name)), name)
        } finally {
          await archive.close()
        }
      } finally {
        await temp.remove()
      }
    })
  }
})

describe('a file that cannot be an archive', () => {
  it('is file-not-found when missing', async () => {
    const error = await rejectionOf(openArchive(path.join(path.sep, 'nonexistent', 'x.svcPlugin')))
    assert.equal(error.code, 'file-not-found')
    assert.equal(error.details.reason, 'missing')
  })

  it('is not-an-artifact when it is a directory', async () => {
    const temp = await makeTempDir('dir')
    try {
      await mkdir(path.join(temp.dir, 'd.svcPlugin'))
      const error = await rejectionOf(openArchive(path.join(temp.dir, 'd.svcPlugin')))
      assert.equal(error.code, 'not-an-artifact')
      assert.equal(error.details.reason, 'not-a-file')
    } finally {
      await temp.remove()
    }
  })

  it('is not-an-artifact when it has no end record', async () => {
    const temp = await makeTempDir('text')
    try {
      await writeFile(path.join(temp.dir, 't.svcPlugin'), 'plain text, no ZIP here\n')
      const error = await rejectionOf(openArchive(path.join(temp.dir, 't.svcPlugin')))
      assert.equal(error.code, 'not-an-artifact')
      assert.equal(error.details.reason, 'no-end-record')
    } finally {
      await temp.remove()
    }
  })
})

describe('an entry stream drained without reading its chunks', () => {
  it('still verifies and digests every byte', async () => {
    const temp = await makeTempDir('digest')
    try {
      const file = path.join(temp.dir, 'a.svcPlugin')
      await writeTree(temp.dir, {'a.txt': 'a'.repeat(1000)})
      await writeArchive(file, await fileEntries(temp.dir, ['a.txt']))
      const archive = await openArchive(file)
      const stream = await archive.openEntry(archive.entries[0]!)
      await finished(stream.resume())
      assert.equal(stream.digest?.size, 1000)
      await archive.close()
    } finally {
      await temp.remove()
    }
  })
})

describe('digesting an archive whose entries are of mixed sizes', () => {
  // Entries over 1 MiB stream and are started before the small ones.
  const big = randomBytes(2 * 1024 * 1024 + 5)
  const small = Buffer.from('small entry\n'.repeat(10))
  const record = (name: string, content: Buffer, badCrc = false) => newRecord({name, content, crc: badCrc ? zlib.crc32(content) ^ 1 : undefined})

  it('returns the digests in archive order', async () => {
    const temp = await makeTempDir('mixed')
    try {
      const file = path.join(temp.dir, 'mixed.svcPlugin')
      await writeFile(file, joinZip([record('a.txt', small), record('big.bin', big), record('c.txt', small)]))
      const archive = await openArchive(file)
      try {
        const digests = await archive.digestEntries()
        assert.deepEqual([...digests.keys()], ['a.txt', 'big.bin', 'c.txt'])
        assert.equal(digests.get('big.bin')?.size, big.length)
        assert.equal(digests.get('big.bin')?.sha256, `sha256:${createHash('sha256').update(big).digest('hex')}`)
      } finally {
        await archive.close()
      }
    } finally {
      await temp.remove()
    }
  })

  it('reports the same failure on every run when a small and a large entry both lie: the large one, digested first', async () => {
    const temp = await makeTempDir('mixed')
    try {
      const file = path.join(temp.dir, 'two-lies.svcPlugin')
      await writeFile(file, joinZip([record('a.txt', small, true), record('big.bin', big, true)]))
      for (let run = 0; run < 3; run++) {
        const archive = await openArchive(file)
        try {
          const error = await rejectionOf(archive.digestEntries())
          assert.ok(error instanceof ArchiveError)
          assert.equal(error.details.reason, 'crc-mismatch')
          assert.equal(error.details.entry, 'big.bin')
        } finally {
          await archive.close()
        }
      }
    } finally {
      await temp.remove()
    }
  })
})
