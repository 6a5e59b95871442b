import assert from 'node:assert/strict'
import {createHash, randomBytes} from 'node:crypto'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {Readable} from 'node:stream'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {closeFd, openFd} from '../../src/archive/fd.js'
import {startFileDigest} from '../../src/archive/file-digest.js'
import {openArchive} from '../../src/archive/reader.js'
import {writeArchive, type WriterEntry} from '../../src/archive/writer.js'

let dir: string
let counter = 0
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-copy-digest-'))
})
after(async () => rm(dir, {recursive: true, force: true}))
const scratch = (): string => path.join(dir, `file-${++counter}`)

/** SHA-256 of `bytes` with the ranges set to zero, the plain way. */
function zeroedDigest(bytes: Buffer, ranges: readonly {start: number; length: number}[]): string {
  const copy = Buffer.from(bytes)
  for (const {start, length} of ranges) copy.fill(0, start, start + length)
  return createHash('sha256').update(copy).digest('hex')
}

async function digestOf(file: string, size: number, ranges: readonly {start: number; length: number}[]): Promise<string> {
  const fd = await openFd(file)
  try {
    return await startFileDigest(fd, size, ranges).sha256
  } finally {
    await closeFd(fd)
  }
}

describe('startFileDigest', () => {
  it('is SHA-256 of the file with the given ranges zeroed, read at once or in 1 MiB pieces on the thread pool (ranges across pieces)', async () => {
    for (const size of [0, 1, 1024 * 1024, 1024 * 1024 + 1, 3 * 1024 * 1024 + 7]) {
      const bytes = randomBytes(size)
      const file = scratch()
      await writeFile(file, bytes)
      const cases = fc.sample(
        fc.array(fc.nat({max: Math.max(0, size - 1)}).chain((start) => fc.record({start: fc.constant(start), length: fc.nat({max: Math.min(3 * 1024 * 1024, size - start)})})), {maxLength: 4}),
        {seed: size, numRuns: size > 2 * 1024 * 1024 ? 3 : 10},
      )
      for (const ranges of cases) assert.equal(await digestOf(file, size, ranges), zeroedDigest(bytes, ranges), `${size} bytes, ${JSON.stringify(ranges)}`)
    }
  })

  it('stops when asked, once no read of it is in flight, and then never resolves to a digest', async () => {
    const file = scratch()
    await writeFile(file, randomBytes(3 * 1024 * 1024))
    const fd = await openFd(file)
    try {
      const digest = startFileDigest(fd, 3 * 1024 * 1024, [])
      await digest.stop()
      await assert.rejects(digest.sha256, {code: 'unreadable'})
    } finally {
      await closeFd(fd)
    }
  })

  it('refuses a range outside the file, and reports a file shorter than its size as changed', async () => {
    const file = scratch()
    await writeFile(file, Buffer.alloc(100, 1))
    const fd = await openFd(file)
    try {
      assert.throws(() => startFileDigest(fd, 100, [{start: 98, length: 3}]), RangeError)
      await assert.rejects(startFileDigest(fd, 200, []).sha256, (error: Error & {code?: string; details?: {reason?: string}}) => {
        assert.deepEqual([error.code, error.details?.reason], ['archive-malformed', 'file-changed'])
        return true
      })
      await assert.rejects(startFileDigest(fd, 3 * 1024 * 1024, []).sha256, (error: Error & {code?: string; details?: {reason?: string}}) => {
        assert.deepEqual([error.code, error.details?.reason], ['archive-malformed', 'file-changed'])
        return true
      })
    } finally {
      await closeFd(fd)
    }
  })
})

describe('a compressed source (entry data copied as another archive holds it)', () => {
  let original: string
  before(async () => {
    const text = Buffer.from('the same line, again and again\n'.repeat(200))
    original = (
      await writeArchive(scratch(), [
        {name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'buffer', data: Buffer.from('{"id":"x"}\n')}},
        {name: 'a.txt', mode: 0o644, store: false, source: {kind: 'buffer', data: text}},
        {name: 'b.bin', mode: 0o755, store: true, source: {kind: 'buffer', data: randomBytes(3000)}},
      ])
    ).path
  })

  /** Every entry of `file` copied compressed into a new archive (with `edit` applied to each source). */
  async function copied(edit: (source: Extract<WriterEntry['source'], {kind: 'compressed'}>) => WriterEntry['source'] = (source) => source): Promise<string> {
    const archive = await openArchive(original)
    try {
      const digests = await archive.digestEntries()
      const entries: WriterEntry[] = archive.entries.map((entry) => ({
        name: entry.name,
        mode: (entry.mode & 0o111) === 0 ? 0o644 : 0o755,
        store: false,
        source: edit({kind: 'compressed', open: () => archive.openCompressed(entry), method: entry.method, compressedSize: entry.compressedSize, crc32: entry.crc32, size: entry.uncompressedSize, sha256: digests.get(entry.name)!.sha256}),
      }))
      return (await writeArchive(scratch(), entries)).path
    } finally {
      await archive.close()
    }
  }

  it('is written byte for byte as the source archive held it: the same file', async () => {
    assert.deepEqual(await readFile(await copied()), await readFile(original))
  })

  const sourceChanged = (error: Error & {code?: string; details?: {reason?: string}}): boolean => {
    assert.deepEqual([error.code, error.details?.reason], ['source-changed', 'size-changed'])
    return true
  }

  it('is refused before anything is read when its declaration cannot be true (a RangeError), and as source-changed when its stream is not its length', async () => {
    await assert.rejects(copied((source) => ({...source, method: 0, compressedSize: source.size + 1})), RangeError)
    await assert.rejects(copied((source) => ({...source, crc32: -1})), RangeError)
    await assert.rejects(copied((source) => ({...source, open: () => Readable.from([Buffer.alloc(source.compressedSize + 1)])})), sourceChanged)
    await assert.rejects(copied((source) => ({...source, open: () => Readable.from([Buffer.alloc(Math.max(0, source.compressedSize - 1))])})), sourceChanged)
  })
})
