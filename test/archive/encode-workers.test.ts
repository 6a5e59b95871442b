import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {mkdtemp, readdir, readFile, realpath, rename, rm, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import type {ArchiveError} from '../../src/archive/errors.js'
import {EncodeWorkers, encodesInWorker, workerFileMaxBytes, workerFileMinBytes} from '../../src/archive/encode-workers.js'
import {workerUse} from '../../src/archive/worker-use.js'
import {writeArchive, type WriterEntry} from '../../src/archive/writer.js'
import {fileEntries, makeTempDir, rejectionOf, writeTree} from './support.js'

const KiB = 1024

/** A new folder inside `parent`. */
const mkdtempIn = (parent: string, prefix: string): Promise<string> => mkdtemp(path.join(parent, prefix))
const MiB = 1024 * KiB

/** Runs `work` with the encoding workers always (or never) used, then back to when they pay. */
async function withWorkers<T>(when: 'always' | 'never', work: () => Promise<T>): Promise<T> {
  workerUse.when = when
  try {
    return await work()
  } finally {
    workerUse.when = 'auto'
  }
}

/** The refusal of writing `entries` into an archive in `dir`: the same without workers and with them. */
async function sameRefusal(dir: string, entries: readonly WriterEntry[]): Promise<{code: string; reason: unknown; entry: unknown}> {
  const refusal = async (when: 'always' | 'never') => {
    const error = (await withWorkers(when, () => rejectionOf(writeArchive(path.join(dir, `out-${when}.zip`), entries)))) as ArchiveError
    return {code: error.code, reason: error.details.reason, entry: error.details.entry}
  }
  const alone = await refusal('never')
  assert.deepEqual(await refusal('always'), alone)
  return alone
}

/** Files of every size class a worker takes or leaves, compressible and not. */
function mixedFiles(): Record<string, Buffer> {
  const files: Record<string, Buffer> = {'manifest.json': Buffer.from('{}')}
  const sizes = [0, 1, 100, 16 * KiB, workerFileMinBytes, 17 * KiB, 40 * KiB, workerFileMaxBytes, workerFileMaxBytes + 1, 200 * KiB, MiB + 1]
  sizes.forEach((size, index) => {
    files[`text/${index}.txt`] = Buffer.from('a line of text that repeats\n'.repeat(Math.ceil(size / 28) + 1)).subarray(0, size)
    files[`random/${index}.bin`] = randomBytes(size)
  })
  for (let index = 0; index < 300; index++) files[`many/${String(index).padStart(3, '0')}.js`] = Buffer.from(`export const value${index} = ${index}\n`.repeat(700 + index * 5))
  return files
}

describe('encoding workers', () => {
  let temp: {dir: string; remove: () => Promise<void>}
  before(async () => {
    temp = await makeTempDir('encode-workers')
  })
  after(async () => {
    await temp.remove()
  })

  it('write the very bytes the main thread writes, for files of every size, stored and deflated', async () => {
    const dir = path.join(temp.dir, 'same')
    const files = mixedFiles()
    await writeTree(dir, files)
    const entries = await fileEntries(dir, Object.keys(files), {stored: ['text/5.txt']})
    assert.ok(entries.filter((entry) => encodesInWorker(entry.source)).length > 300)
    const alone = await withWorkers('never', () => writeArchive(path.join(temp.dir, 'alone.zip'), entries))
    const helped = await withWorkers('always', () => writeArchive(path.join(temp.dir, 'helped.zip'), entries))
    assert.equal(helped.sha256, alone.sha256)
    assert.deepEqual(await readFile(helped.path), await readFile(alone.path))
  })

  /** The error a write meets in `prepare`d sources, with or without workers, and whether it left the folder as it was. */
  async function failure(name: string, when: 'always' | 'never', prepare: (dir: string) => Promise<void>): Promise<{code: string; reason: unknown; entry: unknown; untouched: boolean}> {
    const dir = path.join(temp.dir, `${name}-${when}`)
    // a.txt is a file a worker takes.
    const files: Record<string, string> = {'manifest.json': '{}', 'a.txt': original, 'b.txt': 'b'}
    await writeTree(dir, files)
    const entries: WriterEntry[] = await fileEntries(dir, Object.keys(files))
    await prepare(dir)
    const before = (await readdir(dir)).sort()
    const error = (await withWorkers(when, () => rejectionOf(writeArchive(path.join(dir, 'out.zip'), entries)))) as ArchiveError
    return {code: error.code, reason: error.details.reason, entry: error.details.entry, untouched: JSON.stringify((await readdir(dir)).sort()) === JSON.stringify(before)}
  }

  const original = 'original\n'.repeat(2500)
  const changes: [string, (dir: string) => Promise<void>][] = [
    ['vanished', (dir) => rm(path.join(dir, 'a.txt'))],
    ['edited', (dir) => writeFile(path.join(dir, 'a.txt'), original.replace('original', 'tampered'))],
    ['grown', (dir) => writeFile(path.join(dir, 'a.txt'), `${original}and more`)],
    ['shrunk', (dir) => writeFile(path.join(dir, 'a.txt'), original.slice(1))],
    ['symlinked', async (dir) => (await rm(path.join(dir, 'a.txt')), await symlink('b.txt', path.join(dir, 'a.txt')))],
    ['fifo', async (dir) => (await rm(path.join(dir, 'a.txt')), void execFileSync('mkfifo', [path.join(dir, 'a.txt')]))],
    ['folder', async (dir) => (await rm(path.join(dir, 'a.txt')), writeTree(path.join(dir, 'a.txt'), {'inside.txt': 'x'}))],
  ]
  for (const [name, prepare] of changes) {
    it(`refuse a source ${name} since it was listed as the main thread does, and leave nothing behind`, async () => {
      const alone = await failure(name, 'never', prepare)
      const helped = await failure(name, 'always', prepare)
      assert.deepEqual(helped, alone)
      assert.equal(helped.code, 'source-changed')
      assert.equal(helped.entry, 'a.txt')
      assert.equal(helped.untouched, true)
    })
  }

  it('refuse a file reached through a folder that became a link since it was listed, as the main thread does (never the other file)', async () => {
    const dir = await realpath(await mkdtempIn(temp.dir, 'moved-'))
    await writeTree(dir, {'manifest.json': '{}', 'real/sub/a.txt': 'inside the plugin\n', 'elsewhere/a.txt': 'outside of it!!!!\n'})
    const entries: WriterEntry[] = [
      {name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'file', path: path.join(dir, 'manifest.json'), size: 2, exactPath: true}},
      {name: 'sub/a.txt', mode: 0o644, store: false, source: {kind: 'file', path: path.join(dir, 'real', 'sub', 'a.txt'), size: 18, exactPath: true}},
    ]
    await rename(path.join(dir, 'real', 'sub'), path.join(dir, 'real', 'sub.before'))
    await symlink(path.join(dir, 'elsewhere'), path.join(dir, 'real', 'sub'))
    assert.deepEqual(await sameRefusal(dir, entries), {code: 'source-changed', reason: 'source-moved', entry: 'sub/a.txt'})
  })

  it('refuse a path holding a NUL as the main thread does, never reading another file in its place (a batch joins paths with NULs)', async () => {
    const dir = path.join(temp.dir, 'nul')
    await writeTree(dir, {'manifest.json': '{}', 'B': 'the file before the NUL', 'C': 'the file after it'})
    const entries: WriterEntry[] = [
      {name: 'manifest.json', mode: 0o644, store: false, source: {kind: 'file', path: path.join(dir, 'manifest.json'), size: 2}},
      {name: 'b.txt', mode: 0o644, store: false, source: {kind: 'file', path: `${path.join(dir, 'B')}\0${path.join(dir, 'C')}`, size: 23}},
    ]
    assert.deepEqual(await sameRefusal(dir, entries), {code: 'unreadable', reason: 'source-io', entry: 'b.txt'})
  })

  it("show each file whose source asks for its bytes to its inspect hook, the very bytes, with and without them", async () => {
    const dir = await mkdtempIn(temp.dir, 'inspect-')
    const files = mixedFiles()
    await writeTree(dir, files)
    const seen = async (when: 'always' | 'never'): Promise<Map<string, Buffer>> => {
      const shown = new Map<string, Buffer>()
      const entries = (await fileEntries(dir, Object.keys(files))).map((entry, index) => {
        if (entry.source.kind !== 'file' || index % 2 === 1) return entry
        return {...entry, source: {...entry.source, inspect: (bytes: Buffer) => void shown.set(entry.name, Buffer.from(bytes))}}
      })
      await withWorkers(when, () => writeArchive(path.join(dir, `inspected-${when}.zip`), entries))
      return shown
    }
    const alone = await seen('never')
    assert.ok(alone.size > 150, `${alone.size} files shown`)
    for (const [name, bytes] of alone) assert.ok(bytes.equals(files[name]!), name)
    assert.deepEqual(await seen('always'), alone)
  })
})

describe('a pool of encoding workers', () => {
  it('refuses every batch at once after a worker stopped: one posted to it would never be answered', async () => {
    const dying = new URL(`data:text/javascript,${encodeURIComponent("import {parentPort} from 'node:worker_threads'; parentPort.on('message', () => process.exit(3))")}`)
    const workers = new EncodeWorkers(dying, 1)
    try {
      const file = {name: 'a.txt', path: '/nonexistent/a.txt', size: 1, store: false, wantBytes: false, exactPath: false}
      await assert.rejects(workers.encode([file]), /An encoding worker stopped \(exit code 3\)/)
      await assert.rejects(workers.encode([file]), /An encoding worker stopped \(exit code 3\)/)
    } finally {
      await workers.close()
    }
  })
})
