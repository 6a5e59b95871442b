import assert from 'node:assert/strict'
import {execFile, spawnSync} from 'node:child_process'
import {createHash, randomBytes} from 'node:crypto'
import {mkdir, readdir, readFile, rm, symlink, utimes, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {Readable} from 'node:stream'
import {after, before, describe, it} from 'node:test'
import {promisify} from 'node:util'
import {deflateRawSync} from 'node:zlib'
import fc from 'fast-check'
import yauzl from 'yauzl'
import {ArchiveError} from '../../src/archive/errors.js'
import {OutputError} from '../../src/fs/output.js'
import {compareEntryNames} from '../../src/archive/names.js'
import {openArchive} from '../../src/archive/reader.js'
import {writeArchive, writeArchiveBody, type WriterEntry} from '../../src/archive/writer.js'
import {fileEntries, makeTempDir, rejectionOf, sha256OfFile, writeTree} from './support.js'

const execFileAsync = promisify(execFile)
const MiB = 1024 * 1024

const tree: Record<string, string | Buffer> = {
  'manifest.json': '{"manifestVersion": 1, "id": "com.example.writer-test", "version": "2.0.0"}\n',
  'runtimes/linux-x64/app': Buffer.concat([Buffer.from('7f454c46', 'hex'), Buffer.alloc(20_000, 0x90)]),
  'assets/icon.png': Buffer.from(Array.from({length: 5000}, (_, i) => (i * 31) % 256)),
  'docs/read me.md': '# Read me\n'.repeat(300),
  'Localization/Strings.de.resx': '<root/>\n',
  '\u00e9t\u00e9.txt': 'summer\n',
}
const names = Object.keys(tree)
const options = {executables: ['runtimes/linux-x64/app'], stored: ['assets/icon.png']}

/** The raw central-directory and local-header facts of every entry, read with yauzl directly. */
async function rawFacts(file: string) {
  const zipfile = await yauzl.openPromise(file, {lazyEntries: true, decodeStrings: true})
  const facts = []
  try {
    for await (const entry of zipfile.eachEntry()) {
      const local = await zipfile.readLocalFileHeaderPromise(entry)
      facts.push({
        name: entry.fileName,
        versionMadeBy: entry.versionMadeBy,
        flags: entry.generalPurposeBitFlag,
        method: entry.compressionMethod,
        date: entry.lastModFileDate,
        time: entry.lastModFileTime,
        centralExtra: entry.extraFieldLength,
        localExtra: local.extraFieldLength,
        comment: entry.fileCommentLength,
        mode: entry.externalFileAttributes >>> 16,
      })
    }
    return {facts, archiveComment: zipfile.comment}
  } finally {
    zipfile.close()
  }
}

describe('writeArchive', () => {
  let temp: {dir: string; remove: () => Promise<void>}
  let source: string
  let file: string

  before(async () => {
    temp = await makeTempDir('writer')
    source = path.join(temp.dir, 'source')
    await writeTree(source, tree)
    file = path.join(temp.dir, 'out', 'plugin.svcPlugin')
    await writeTree(temp.dir, {'out/.keep': ''})
  })
  after(async () => {
    await temp.remove()
  })

  it('returns the archive path, size, SHA-256 and entry count', async () => {
    const result = await writeArchive(file, await fileEntries(source, names, options))
    const bytes = await readFile(file)
    assert.deepEqual(result, {path: file, bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), entries: names.length})
  })

  it('leaves no temporary file beside the output', async () => {
    assert.deepEqual((await readdir(path.dirname(file))).sort(), ['.keep', 'plugin.svcPlugin'])
  })

  it('writes fixed dates, fixed modes, UTF-8 names, no extra fields and no comments', async () => {
    const {facts, archiveComment} = await rawFacts(file)
    assert.equal(archiveComment, '')
    for (const fact of facts) {
      assert.equal(fact.date, (0 << 9) | (1 << 5) | 1, `${fact.name}: DOS date 1980-01-01`)
      assert.equal(fact.time, 0, `${fact.name}: DOS time 00:00:00`)
      assert.equal(fact.centralExtra, 0, `${fact.name}: central extra field`)
      assert.equal(fact.localExtra, 0, `${fact.name}: local extra field`)
      assert.equal(fact.comment, 0, `${fact.name}: entry comment`)
      assert.equal(fact.flags & 0x800, 0x800, `${fact.name}: UTF-8 flag`)
      assert.equal(fact.versionMadeBy >> 8, 3, `${fact.name}: made by Unix`)
      assert.equal(fact.mode, fact.name === 'runtimes/linux-x64/app' ? 0o100755 : 0o100644, fact.name)
    }
  })

  it('writes entries in the order given, manifest.json first', async () => {
    const {facts} = await rawFacts(file)
    assert.deepEqual(
      facts.map((fact) => fact.name),
      ['manifest.json', 'Localization/Strings.de.resx', 'assets/icon.png', 'docs/read me.md', 'runtimes/linux-x64/app', '\u00e9t\u00e9.txt'],
    )
  })

  it('stores the entries marked store and those deflate does not shrink, and deflates the others', async () => {
    const {facts} = await rawFacts(file)
    assert.deepEqual(Object.fromEntries(facts.map((fact) => [fact.name, fact.method])), {
      'manifest.json': 8,
      'Localization/Strings.de.resx': 0,
      'assets/icon.png': 0,
      'docs/read me.md': 8,
      'runtimes/linux-x64/app': 8,
      '\u00e9t\u00e9.txt': 0,
    })
  })

  it('is read back by the strict reader with the sources\' digests', async () => {
    const archive = await openArchive(file)
    try {
      const digests = await archive.digestEntries()
      for (const name of names) assert.equal(digests.get(name)?.sha256, await sha256OfFile(path.join(source, ...name.split('/'))), name)
    } finally {
      await archive.close()
    }
  })

  it('passes unzip -t', {skip: spawnSync('unzip', ['-v']).status !== 0}, () => {
    const result = spawnSync('unzip', ['-t', file], {encoding: 'utf8'})
    assert.equal(result.status, 0, result.stdout + result.stderr)
    assert.match(result.stdout, /No errors detected/)
  })

  it('is read by Python\'s zipfile', {skip: spawnSync('python3', ['--version']).status !== 0}, () => {
    const script = 'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(z.testzip())\nprint("\\n".join(i.filename + " " + repr(i.date_time) for i in z.infolist()))'
    const result = spawnSync('python3', ['-c', script, file], {encoding: 'utf8'})
    assert.equal(result.status, 0, result.stderr)
    const [bad, ...lines] = result.stdout.trim().split('\n')
    assert.equal(bad, 'None')
    assert.equal(lines.length, names.length)
    for (const line of lines) assert.ok(line.endsWith(' (1980, 1, 1, 0, 0, 0)'), line)
  })

  it('writes the same bytes from two copies of the tree with other mtimes and umask', async () => {
    const copies: string[] = []
    const previous = process.umask()
    try {
      for (const [i, umask] of [0o022, 0o077].entries()) {
        process.umask(umask)
        const copy = path.join(temp.dir, `copy-${i}`)
        await writeTree(copy, tree)
        const when = new Date(i === 0 ? '2001-02-03T04:05:06Z' : '2024-11-12T13:14:15Z')
        for (const name of names) await utimes(path.join(copy, ...name.split('/')), when, when)
        copies.push(copy)
      }
    } finally {
      process.umask(previous)
    }
    const outputs = []
    for (const [i, copy] of copies.entries()) {
      const output = path.join(temp.dir, `copy-${i}.svcPlugin`)
      await writeArchive(output, await fileEntries(copy, names, options))
      outputs.push(await readFile(output))
    }
    assert.ok(outputs[0]!.equals(outputs[1]!), 'the two archives differ')
    assert.ok(outputs[0]!.equals(await readFile(file)), 'the copies differ from the original')
  })

  it('writes the same bytes in any time zone', async () => {
    // The children run what this test runs: the sources under tsx, dist/ under plain node.
    const writerUrl = new URL(`../../src/archive/writer${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url).href
    const code = [
      `const {writeArchive} = await import(${JSON.stringify(writerUrl)})`,
      `const entries = [{name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('{"id":"tz"}')}},`,
      `  {name: 'bin/app', mode: 0o755, store: false, source: {kind: 'buffer', data: Buffer.alloc(1000, 65)}}]`,
      `const result = await writeArchive(process.env.OUT, entries)`,
      `process.stdout.write(JSON.stringify({sha256: result.sha256, offset: new Date(1980, 0, 1).getTimezoneOffset()}))`,
    ].join('\n')
    const runs = []
    for (const zone of ['Pacific/Kiritimati', 'America/Adak', 'UTC']) {
      const out = path.join(temp.dir, `tz-${zone.replace('/', '-')}.svcPlugin`)
      const {stdout} = await execFileAsync(process.execPath, [...process.execArgv, '--input-type=module', '-e', code], {env: {...process.env, TZ: zone, OUT: out}})
      const run = JSON.parse(stdout) as {sha256: string; offset: number}
      const bytes = await readFile(out)
      // The first local header's DOS time and date fields.
      runs.push({...run, time: bytes.readUInt16LE(10), date: bytes.readUInt16LE(12)})
    }
    assert.equal(new Set(runs.map((run) => run.offset)).size, 3, `the children did not run in three zones: ${JSON.stringify(runs)}`)
    assert.equal(new Set(runs.map((run) => run.sha256)).size, 1, JSON.stringify(runs))
    for (const run of runs) assert.deepEqual({time: run.time, date: run.date}, {time: 0, date: 0x0021})
  })

  it('reports progress up to every entry', async () => {
    const seen: number[] = []
    const output = path.join(temp.dir, 'progress.svcPlugin')
    await writeArchive(output, await fileEntries(source, names, options), {onProgress: (progress) => seen.push(progress.entries)})
    assert.equal(seen.at(-1), names.length)
  })

  it('writes an archive with no entries that the reader opens', async () => {
    const output = path.join(temp.dir, 'empty.svcPlugin')
    const result = await writeArchive(output, [])
    assert.equal(result.bytes, 22)
    const archive = await openArchive(output)
    assert.equal(archive.entries.length, 0)
    await archive.close()
  })
})

/** Every reader we know reads `file` back: unzip -t, Python's zipfile, yauzl and the strict reader, each giving back `contents`. */
async function assertReadEverywhere(file: string, contents: Record<string, Buffer>): Promise<void> {
  const names = Object.keys(contents)
  if (spawnSync('unzip', ['-v']).status === 0) {
    const result = spawnSync('unzip', ['-t', file], {encoding: 'utf8'})
    assert.equal(result.status, 0, result.stdout + result.stderr)
  }
  if (spawnSync('python3', ['--version']).status === 0) {
    const script = 'import hashlib, json, sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint(json.dumps({i.filename: hashlib.sha256(z.read(i)).hexdigest() for i in z.infolist()}))'
    const result = spawnSync('python3', ['-c', script, file], {encoding: 'utf8', maxBuffer: 1 << 24})
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(JSON.parse(result.stdout), Object.fromEntries(names.map((name) => [name, createHash('sha256').update(contents[name]!).digest('hex')])))
  }
  const zipfile = await yauzl.openPromise(file, {lazyEntries: true, decodeStrings: true, validateEntrySizes: true})
  try {
    const seen: string[] = []
    for await (const entry of zipfile.eachEntry()) {
      const chunks: Buffer[] = []
      for await (const chunk of await zipfile.openReadStreamPromise(entry)) chunks.push(chunk as Buffer)
      assert.ok(Buffer.concat(chunks).equals(contents[entry.fileName]!), `yauzl: ${entry.fileName}`)
      seen.push(entry.fileName)
    }
    assert.deepEqual([...seen].sort(), [...names].sort())
  } finally {
    zipfile.close()
  }
  const archive = await openArchive(file)
  try {
    const digests = await archive.digestEntries()
    for (const name of names) assert.deepEqual(digests.get(name), {size: contents[name]!.length, sha256: `sha256:${createHash('sha256').update(contents[name]!).digest('hex')}`}, name)
  } finally {
    await archive.close()
  }
}

/** Bytes that look like a build's output: runs of source-like text, random blocks and zeros. */
function mixedBytes(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length)
  const words = ['public', 'static', 'async', 'Task', 'return', 'Weather', 'Station', 'null', 'foreach', 'var']
  for (let offset = 0, block = seed; offset < length; offset += 64 * 1024, block++) {
    const end = Math.min(length, offset + 64 * 1024)
    if (block % 3 === 0) randomBytes(end - offset).copy(out, offset)
    else if (block % 3 === 1) Buffer.from(Array.from({length: (end - offset) / 4}, (_, i) => `${words[(i * 7 + block) % words.length]} ${i % 97}`).join('\n')).copy(out, offset, 0, end - offset)
  }
  return out
}

describe('writeArchive: entries of several chunks, deflated in parallel', () => {
  let temp: {dir: string; remove: () => Promise<void>}
  let output: string
  const files: Record<string, Buffer> = {}
  let entries: WriterEntry[]

  before(async () => {
    temp = await makeTempDir('writer-chunks')
    files['big/exactly-two-chunks.bin'] = mixedBytes(2 * MiB, 1)
    files['big/mixed.bin'] = mixedBytes(3 * MiB + 123, 2)
    files['big/text.txt'] = Buffer.from('The same line, with a counter that changes: 0000000\n'.repeat(45_000).replace(/0000000/g, () => String(Math.floor(Math.random() * 1e7)).padStart(7, '0')))
    files['small.txt'] = Buffer.from('small\n'.repeat(100))
    await writeTree(temp.dir, files)
    // No digests given: the writer hashes what it reads.
    entries = Object.keys(files).map((name) => ({name, mode: 0o644, store: false, source: {kind: 'file', path: path.join(temp.dir, ...name.split('/')), size: files[name]!.length}}))
    output = path.join(temp.dir, 'chunks.svcPlugin')
    await writeArchive(output, entries)
  })
  after(async () => {
    await temp.remove()
  })

  it('is read back intact by unzip -t, Python\'s zipfile, yauzl and the strict reader', async () => {
    await assertReadEverywhere(output, files)
  })

  it('deflates each into one stream within 1 % of the size of a single zlib stream', async () => {
    const {facts} = await rawFacts(output)
    const archive = await openArchive(output)
    try {
      for (const name of ['big/exactly-two-chunks.bin', 'big/mixed.bin', 'big/text.txt']) {
        const entry = archive.get(name)!
        assert.equal(entry.method, 8, name)
        const single = deflateRawSync(files[name]!, {level: 6}).length
        assert.ok(Math.abs(entry.compressedSize - single) <= single / 100, `${name}: ${entry.compressedSize} against ${single}`)
      }
    } finally {
      await archive.close()
    }
    assert.equal(facts.length, 4)
  })

  it('writes the same bytes whatever the size of the thread pool', async () => {
    // The children run what this test runs: the sources under tsx, dist/ under plain node.
    const writerUrl = new URL(`../../src/archive/writer${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url).href
    const code = [`const {writeArchive} = await import(${JSON.stringify(writerUrl)})`, `await writeArchive(process.env.OUT, JSON.parse(process.env.ENTRIES))`].join('\n')
    const expected = await readFile(output)
    for (const threads of ['1', '4']) {
      const out = path.join(temp.dir, `pool-${threads}.svcPlugin`)
      await execFileAsync(process.execPath, [...process.execArgv, '--input-type=module', '-e', code], {env: {...process.env, UV_THREADPOOL_SIZE: threads, OUT: out, ENTRIES: JSON.stringify(entries)}})
      assert.ok((await readFile(out)).equals(expected), `the archive written with UV_THREADPOOL_SIZE=${threads} differs`)
    }
  })
})

describe('writeArchive: stored or deflated, decided from the bytes alone', () => {
  let temp: {dir: string; remove: () => Promise<void>}
  let output: string
  // Compressible only in its first 200 bytes: the probe of the first 16 KiB says deflate, but the
  // whole entry comes out larger deflated (a stored block's 5 bytes per 16 KiB outweigh the zeros).
  const lateIncompressible = Buffer.concat([Buffer.alloc(200), randomBytes(2 * MiB + MiB / 2)])
  const files: Record<string, Buffer> = {
    'empty.txt': Buffer.alloc(0),
    'random-small.bin': randomBytes(10_000),
    'random-large.bin': randomBytes(100_000),
    'text-large.txt': Buffer.from('compressible text\n'.repeat(6000)),
    'text-marked-store.txt': Buffer.from('compressible text\n'.repeat(600)),
    'z-late-incompressible.bin': lateIncompressible,
  }
  let methods: Record<string, {method: number; compressed: number; size: number}>

  before(async () => {
    temp = await makeTempDir('writer-methods')
    await writeTree(temp.dir, files)
    output = path.join(temp.dir, 'methods.svcPlugin')
    await writeArchive(output, await fileEntries(temp.dir, Object.keys(files), {stored: ['text-marked-store.txt']}))
    const archive = await openArchive(output)
    methods = Object.fromEntries(archive.entries.map((entry) => [entry.name, {method: entry.method, compressed: entry.compressedSize, size: entry.uncompressedSize}]))
    await archive.close()
  })
  after(async () => {
    await temp.remove()
  })

  it('stores an empty entry', () => {
    assert.deepEqual(methods['empty.txt'], {method: 0, compressed: 0, size: 0})
  })
  it('stores an entry of at most 16 KiB that deflate does not shrink', () => {
    assert.ok(deflateRawSync(files['random-small.bin']!, {level: 6}).length >= 10_000, 'premise: deflate grows random bytes')
    assert.equal(methods['random-small.bin']?.method, 0)
  })
  it('stores a larger entry whose first 16 KiB do not deflate, without deflating it', () => {
    assert.equal(methods['random-large.bin']?.method, 0)
  })
  it('deflates an entry that deflate shrinks', () => {
    assert.equal(methods['text-large.txt']?.method, 8)
    assert.ok(methods['text-large.txt']!.compressed < methods['text-large.txt']!.size / 10)
  })
  it('stores an entry marked store, compressible or not', () => {
    assert.equal(methods['text-marked-store.txt']?.method, 0)
  })
  it('stores an entry of several chunks that came out no smaller deflated, read again', () => {
    assert.ok(deflateRawSync(lateIncompressible.subarray(0, 16 * 1024), {level: 1}).length < 16 * 1024, 'premise: the probe says deflate')
    assert.ok(deflateRawSync(lateIncompressible, {level: 6}).length >= lateIncompressible.length, 'premise: deflate does not shrink it')
    assert.deepEqual(methods['z-late-incompressible.bin'], {method: 0, compressed: lateIncompressible.length, size: lateIncompressible.length})
  })
  it('never deflates an entry without making it smaller, and every entry reads back intact', async () => {
    for (const [name, {method, compressed, size}] of Object.entries(methods)) assert.ok(method === 0 ? compressed === size : compressed < size, name)
    await assertReadEverywhere(output, files)
  })

  it('is source-changed (digest-changed) when the second read of such an entry differs from the first, and leaves nothing behind', async () => {
    const dir = path.join(temp.dir, 'reread')
    await writeTree(dir, {'.keep': ''})
    let opened = 0
    const altered = Buffer.from(lateIncompressible)
    altered[altered.length - 1]! ^= 0xff
    const source: WriterEntry['source'] = {kind: 'stream', size: lateIncompressible.length, open: () => Readable.from([(opened++ === 0 ? lateIncompressible : altered)])}
    const error = await rejectionOf(writeArchive(path.join(dir, 'out.svcPlugin'), [{name: 'late.bin', mode: 0o644, store: false, source}]))
    assert.equal(opened, 2)
    assert.deepEqual({code: error.code, reason: error.details.reason, entry: error.details.entry}, {code: 'source-changed', reason: 'digest-changed', entry: 'late.bin'})
    assert.deepEqual(await readdir(dir), ['.keep'])
  })
})

describe('writeArchiveBody: the entries behind a first entry that depends on them', () => {
  it('reports the size and digest of what it read, then writes the first entry in front and leaves only the archive', async () => {
    const temp = await makeTempDir('writer-body')
    try {
      const files = {'a.txt': 'alpha\n'.repeat(50), 'b/c.bin': randomBytes(3000), 'b/d.txt': 'delta\n'}
      await writeTree(temp.dir, files)
      const output = path.join(temp.dir, 'out', 'body.svcPlugin')
      await writeTree(temp.dir, {'out/.keep': ''})
      const entries: WriterEntry[] = Object.keys(files).map((name) => ({name, mode: 0o644, store: false, source: {kind: 'file', path: path.join(temp.dir, ...name.split('/')), size: Buffer.byteLength(files[name as keyof typeof files])}}))
      const body = await writeArchiveBody(output, entries)
      try {
        assert.deepEqual(
          body.entries,
          Object.entries(files).map(([name, data]) => ({name, size: Buffer.byteLength(data), sha256: `sha256:${createHash('sha256').update(data).digest('hex')}`})),
        )
        const manifest = Buffer.from(JSON.stringify({files: body.entries}))
        const written = await body.finish({name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: manifest}})
        assert.equal(written.entries, 4)
        await assertReadEverywhere(output, {'manifest.json': manifest, ...Object.fromEntries(Object.entries(files).map(([name, data]) => [name, Buffer.from(data)]))})
        assert.equal(createHash('sha256').update(await readFile(output)).digest('hex'), written.sha256)
      } finally {
        body.discard()
      }
      assert.deepEqual((await readdir(path.dirname(output))).sort(), ['.keep', 'body.svcPlugin'])
    } finally {
      await temp.remove()
    }
  })

  it('refuses a first entry that would not come first, or whose name another entry holds, and leaves nothing', async () => {
    const temp = await makeTempDir('writer-body-first')
    try {
      await writeTree(temp.dir, {'b.txt': 'b'})
      const output = path.join(temp.dir, 'out.svcPlugin')
      const body = await writeArchiveBody(output, [{name: 'b.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('b')}}])
      try {
        const late = await rejectionOf(body.finish({name: 'c.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('c')}}))
        assert.ok(late instanceof RangeError, String(late))
        const twin = await rejectionOf(body.finish({name: 'B.TXT', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('c')}}))
        assert.deepEqual({code: twin.code, reason: twin.details.reason}, {code: 'archive-malformed', reason: 'case-collision'})
      } finally {
        body.discard()
      }
      assert.deepEqual(await readdir(temp.dir), ['b.txt'])
    } finally {
      await temp.remove()
    }
  })
})

describe('writeArchive: nothing that would need ZIP64', () => {
  it('refuses more than 65,534 entries (archive-unsupported, zip64) before reading any', async () => {
    const entries: WriterEntry[] = Array.from({length: 65_535}, (_, i) => ({name: `f${String(i).padStart(5, '0')}`, mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.alloc(0)}}))
    const error = await rejectionOf(writeArchive(path.join(process.cwd(), 'never-written.svcPlugin'), entries, {limits: {maxEntries: 100_000}}))
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'archive-unsupported', reason: 'zip64'})
  })
  it('refuses an entry of 4 GiB (archive-unsupported, zip64) without opening its source', async () => {
    let opened = false
    const huge: WriterEntry = {name: 'huge.bin', mode: 0o644, store: false, source: {kind: 'stream', size: 2 ** 32, open: () => ((opened = true), Readable.from([]))}}
    const error = await rejectionOf(writeArchive(path.join(process.cwd(), 'never-written.svcPlugin'), [huge], {limits: {maxEntryBytes: 2 ** 33, maxTotalBytes: 2 ** 33, maxArchiveBytes: 2 ** 33}}))
    assert.deepEqual({code: error.code, reason: error.details.reason, opened}, {code: 'archive-unsupported', reason: 'zip64', opened: false})
  })
})

describe('writeArchive with large and many files', () => {
  it('writes a file of several chunks among many small files, all read back intact', async () => {
    const temp = await makeTempDir('writer-large')
    try {
      const files: Record<string, Buffer> = {'big/huge.bin': Buffer.alloc(9 * MiB + 123, 0x61)}
      // About 12 MiB of small files behind a large one: more than the writer holds in memory at once.
      for (let i = 0; i < 48; i++) {
        const body = Buffer.alloc(256 * 1024, i)
        body.write(`file ${i}`, 0)
        files[`many/f${String(i).padStart(2, '0')}.bin`] = body
      }
      files['tail/last.txt'] = Buffer.from('last\n')
      await writeTree(temp.dir, files)
      const all = Object.keys(files)
      const output = path.join(temp.dir, 'large.svcPlugin')
      await writeArchive(output, await fileEntries(temp.dir, all, {stored: all.filter((name) => name.startsWith('many/f1'))}))
      const archive = await openArchive(output)
      try {
        assert.equal(archive.entries.length, all.length)
        const digests = await archive.digestEntries()
        for (const name of all) assert.equal(digests.get(name)?.sha256, `sha256:${createHash('sha256').update(files[name]!).digest('hex')}`, name)
      } finally {
        await archive.close()
      }
    } finally {
      await temp.remove()
    }
  })

  it('copies another archive\'s entries through stream sources into identical bytes', async () => {
    const temp = await makeTempDir('writer-copy')
    try {
      await writeTree(temp.dir, {'manifest.json': '{}\n', 'a.txt': 'a'.repeat(10_000), 'big.bin': randomBytes(9 * MiB)})
      const original = path.join(temp.dir, 'original.svcPlugin')
      await writeArchive(original, await fileEntries(temp.dir, ['manifest.json', 'a.txt', 'big.bin']))
      const archive = await openArchive(original)
      const digests = await archive.digestEntries()
      const entries: WriterEntry[] = archive.entries.map((entry) => ({
        name: entry.name,
        mode: 0o644,
        store: entry.method === 0,
        source: {kind: 'stream', open: () => archive.openEntry(entry), size: entry.uncompressedSize, sha256: digests.get(entry.name)!.sha256},
      }))
      const copy = path.join(temp.dir, 'copy.svcPlugin')
      await writeArchive(copy, entries)
      await archive.close()
      assert.ok((await readFile(copy)).equals(await readFile(original)))
    } finally {
      await temp.remove()
    }
  })
})

describe('writeArchive failures', () => {
  let temp: {dir: string; remove: () => Promise<void>}
  before(async () => {
    temp = await makeTempDir('writer-fail')
  })
  after(async () => {
    await temp.remove()
  })

  /** Runs a write expected to fail in a fresh folder and returns the error and what the folder holds afterwards. */
  async function failingWrite(name: string, files: Record<string, string | Buffer>, prepare: (dir: string, entries: WriterEntry[]) => Promise<WriterEntry[] | void>, options: Parameters<typeof writeArchive>[2] = {}) {
    const dir = path.join(temp.dir, name)
    await writeTree(dir, files)
    let entries = await fileEntries(dir, Object.keys(files))
    entries = (await prepare(dir, entries)) ?? entries
    const before = (await readdir(dir)).sort()
    const error = await rejectionOf(writeArchive(path.join(dir, 'out.svcPlugin'), entries, options))
    return {error: error as ArchiveError, before, after: (await readdir(dir)).sort()}
  }

  it('is source-changed (source-missing) when a file vanished, and leaves nothing behind', async () => {
    const {error, before, after} = await failingWrite('vanished', {'manifest.json': '{}', 'a.txt': 'a', 'b.txt': 'b'}, async (dir) => {
      await rm(path.join(dir, 'b.txt'))
    })
    assert.equal(error.code, 'source-changed')
    assert.equal(error.details.reason, 'source-missing')
    assert.equal(error.details.entry, 'b.txt')
    assert.deepEqual(after, before)
  })

  it('is source-changed (digest-changed) when a small file was edited keeping its size', async () => {
    const {error, before, after} = await failingWrite('edited', {'manifest.json': '{}', 'a.txt': 'original'}, async (dir) => {
      await writeFile(path.join(dir, 'a.txt'), 'tampered')
    })
    assert.deepEqual({code: error.code, reason: error.details.reason, entry: error.details.entry}, {code: 'source-changed', reason: 'digest-changed', entry: 'a.txt'})
    assert.deepEqual(after, before)
  })

  it('is source-changed (size-changed) when a small file grew', async () => {
    const {error, after, before} = await failingWrite('grown', {'manifest.json': '{}', 'a.txt': 'original'}, async (dir) => {
      await writeFile(path.join(dir, 'a.txt'), 'original and more')
    })
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'source-changed', reason: 'size-changed'})
    assert.deepEqual(after, before)
  })

  it('is source-changed (digest-changed) when a file of several chunks was edited keeping its size', async () => {
    const {error, after, before} = await failingWrite('edited-large', {'manifest.json': '{}', 'big.bin': Buffer.alloc(9 * MiB, 1), 'z.txt': 'z'}, async (dir) => {
      const edited = Buffer.alloc(9 * MiB, 1)
      edited[5 * MiB] = 2
      await writeFile(path.join(dir, 'big.bin'), edited)
    })
    assert.deepEqual({code: error.code, reason: error.details.reason, entry: error.details.entry}, {code: 'source-changed', reason: 'digest-changed', entry: 'big.bin'})
    assert.deepEqual(after, before)
  })

  it('is source-changed (source-not-regular) when a file became a symlink', async () => {
    const {error, after, before} = await failingWrite('symlinked', {'manifest.json': '{}', 'a.txt': 'data'}, async (dir) => {
      await rm(path.join(dir, 'a.txt'))
      await writeFile(path.join(dir, 'elsewhere.txt'), 'data')
      await symlink('elsewhere.txt', path.join(dir, 'a.txt'))
    })
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'source-changed', reason: 'source-not-regular'})
    assert.deepEqual(after, before)
  })

  it('is output-exists when the output exists, which stays untouched', async () => {
    const {error, after, before} = await failingWrite('exists', {'manifest.json': '{}', 'out.svcPlugin': 'precious'}, async (_dir, entries) => entries.filter((entry) => entry.name === 'manifest.json'))
    assert.equal(error.code, 'output-exists')
    assert.deepEqual(after, before)
    assert.equal(await readFile(path.join(temp.dir, 'exists', 'out.svcPlugin'), 'utf8'), 'precious')
  })

  it('replaces an existing output when told to overwrite', async () => {
    const dir = path.join(temp.dir, 'overwrite')
    await writeTree(dir, {'manifest.json': '{}', 'out.svcPlugin': 'old'})
    const result = await writeArchive(path.join(dir, 'out.svcPlugin'), await fileEntries(dir, ['manifest.json']), {overwrite: true})
    assert.equal((await readFile(result.path)).readUInt32LE(0), 0x04034b50)
  })

  it('is write-failed (ENOENT) naming the output, never its temporary file, when the output folder does not exist', async () => {
    const output = path.join(temp.dir, 'missing-folder', 'out.svcPlugin')
    const error = await rejectionOf(writeArchive(output, [{name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('{}')}}]))
    assert.ok(error instanceof OutputError, String(error))
    assert.deepEqual({code: error.code, reason: error.details.reason, path: error.details.path}, {code: 'write-failed', reason: 'ENOENT', path: output})
    assert.equal(error.message, `${output} cannot be written: its folder does not exist.`)
  })

  it('is write-failed (EISDIR) when a folder stands where the output should be', async () => {
    const output = path.join(temp.dir, 'folder-output')
    await mkdir(output)
    const error = await rejectionOf(writeArchive(output, [{name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('{}')}}]))
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'write-failed', reason: 'EISDIR'})
    assert.deepEqual(await readdir(output), [])
  })

  it('refuses an unsafe name before writing anything', async () => {
    const {error, after, before} = await failingWrite('unsafe', {'manifest.json': '{}'}, async (_dir, entries) => [...entries, {name: '../evil.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('x')}}])
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'unsafe-entry', reason: 'parent-segment'})
    assert.deepEqual(after, before)
  })

  it('refuses names that collide case-insensitively', async () => {
    const {error} = await failingWrite('collide', {'A.txt': 'a', 'b.txt': 'b'}, async (_dir, entries) => [...entries, {name: 'a.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('x')}} satisfies WriterEntry].sort((x, y) => compareEntryNames(x.name, y.name)))
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'archive-malformed', reason: 'case-collision'})
  })

  it('refuses entries out of order', async () => {
    const {error} = await failingWrite('order', {'manifest.json': '{}', 'a.txt': 'a', 'b.txt': 'b'}, async (_dir, entries) => [entries[0]!, entries[2]!, entries[1]!])
    assert.ok(error instanceof RangeError)
  })

  it('refuses manifest.json anywhere but first', async () => {
    const {error} = await failingWrite('manifest-late', {'manifest.json': '{}', 'a.txt': 'a'}, async (_dir, entries) => [entries[1]!, entries[0]!])
    assert.ok(error instanceof RangeError)
  })

  it('refuses more entries than the limit', async () => {
    const {error} = await failingWrite('count', {'a.txt': 'a', 'b.txt': 'b', 'c.txt': 'c'}, async () => undefined, {limits: {maxEntries: 2}})
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'limit-exceeded', reason: 'too-many-entries'})
  })

  it('removes an archive that came out over the compression ratio', async () => {
    const {error, after, before} = await failingWrite('ratio', {'zeros.bin': Buffer.alloc(2 * MiB)}, async () => undefined)
    assert.deepEqual({code: error.code, reason: error.details.reason}, {code: 'limit-exceeded', reason: 'compression-ratio'})
    assert.deepEqual(after, before)
  })
})

describe('compareEntryNames', () => {
  it('orders by UTF-8 bytes, where characters above U+FFFF sort after U+FFFD', () => {
    const names = ['\u{1f600}.txt', '\ufffd.txt', 'b.txt', 'B.txt', 'a/b.txt', 'a.txt', '\u00e9.txt']
    const byBytes = [...names].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    assert.deepEqual([...names].sort(compareEntryNames), byBytes)
    assert.deepEqual(byBytes, ['B.txt', 'a.txt', 'a/b.txt', 'b.txt', '\u00e9.txt', '\ufffd.txt', '\u{1f600}.txt'])
  })
  it('agrees with Buffer.compare of the UTF-8 bytes for any well-formed names', () => {
    fc.assert(
      fc.property(fc.string({unit: 'grapheme'}), fc.string({unit: 'grapheme'}), (a, b) => {
        assert.equal(Math.sign(compareEntryNames(a, b)), Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))))
      }),
    )
  })
  it('puts a prefix first and calls equal names equal', () => {
    assert.ok(compareEntryNames('a', 'a/b') < 0)
    assert.equal(compareEntryNames('x', 'x'), 0)
  })
})
