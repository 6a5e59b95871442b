import assert from 'node:assert/strict'
import {execFile, execFileSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {chmod, readdir, readFile, utimes} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {promisify} from 'node:util'
import {pack, type PackResult} from '../../src/pack/pack.js'
import {copyExample, pythonZipInfo, scratch, unzipTest, writeTree, type ZipInfo} from './support.js'

const execFileAsync = promisify(execFile)

/** Entrypoint executables of the example plugin: written 0755 whatever their mode on disk. */
const executables = ['runtimes/linux-x64/weather-station', 'runtimes/osx-arm64/weather-station', 'runtimes/win-x64/WeatherStation.exe']

/** Sets every file to `fileMode`, every folder to `dirMode` and every mtime to `when`, deepest first. */
async function restamp(dir: string, fileMode: number, dirMode: number, when: Date): Promise<void> {
  for (const entry of await readdir(dir, {withFileTypes: true})) {
    const absolute = path.join(dir, entry.name)
    if (entry.isDirectory()) await restamp(absolute, fileMode, dirMode, when)
    else await chmod(absolute, fileMode)
    await utimes(absolute, when, when)
  }
  await chmod(dir, dirMode)
  await utimes(dir, when, when)
}

describe('pack: deterministic output', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let a: string
  let first: PackResult
  let second: PackResult
  let info: ZipInfo
  const extra = {
    'data/random.bin': randomBytes(64 * 1024),
    'data/notes.txt': 'The same line, again and again, compresses well.\n'.repeat(500),
    'data/empty.txt': '',
    // UTF-8 byte order differs from UTF-16 order here: U+FF5A sorts before U+1F600 in UTF-8 only.
    'data/\u{ff5a}.txt': 'fullwidth z\n',
    'data/\u{1f600}.txt': 'grinning face\n',
    'donn\u00e9es/\u00e9t\u00e9.txt': 'summer\n',
    'README.MD.bak': 'upper case sorts first\n',
    // Several deflate chunks, compressed in parallel: random runs between lines of text.
    'data/large.bin': Buffer.concat(Array.from({length: 40}, (_, i) => (i % 4 === 1 ? randomBytes(64 * 1024) : Buffer.from(`line ${i} of a large file\n`.repeat(2600))))),
  }

  before(async () => {
    work = await scratch('reproducible')
    a = await copyExample(path.join(work.dir, 'a'))
    await writeTree(a, extra)
    await restamp(a, 0o644, 0o755, new Date('2001-02-03T04:05:06Z'))
    for (const name of executables) await chmod(path.join(a, name), 0o755)
    first = await pack(a, {output: path.join(work.dir, 'first.svcPlugin')})

    const b = await copyExample(path.join(work.dir, 'b'))
    await writeTree(b, extra)
    // Other modes (no exec bits anywhere, owner only), other mtimes, and a restrictive umask while packing.
    await restamp(b, 0o600, 0o700, new Date('2023-09-10T11:12:13Z'))
    const umask = process.umask(0o077)
    try {
      second = await pack(b, {output: path.join(work.dir, 'second.svcPlugin')})
    } finally {
      process.umask(umask)
    }
    info = pythonZipInfo(first.path)
  })
  after(async () => {
    await work.cleanup()
  })

  it('writes identical bytes from two copies with different mtimes, modes and umask', async () => {
    const [x, y] = await Promise.all([readFile(first.path), readFile(second.path)])
    assert.ok(x.equals(y), 'the two artifacts differ')
    assert.equal(first.sha256, second.sha256)
    assert.equal(first.bytes, x.length)
  })

  it('writes the same bytes with a thread pool of one thread and of four', async () => {
    // The children run what this test runs: the sources under tsx, dist/ under plain node.
    const packUrl = new URL(`../../src/pack/pack${path.extname(new URL(import.meta.url).pathname)}`, import.meta.url).href
    const code = `const {pack} = await import(${JSON.stringify(packUrl)}); await pack(process.env.SOURCE, {output: process.env.OUT})`
    const expected = await readFile(first.path)
    for (const threads of ['1', '4']) {
      const out = path.join(work.dir, `pool-${threads}.svcPlugin`)
      await execFileAsync(process.execPath, [...process.execArgv, '--input-type=module', '-e', code], {env: {...process.env, UV_THREADPOOL_SIZE: threads, SOURCE: a, OUT: out}})
      assert.ok((await readFile(out)).equals(expected), `the artifact packed with UV_THREADPOOL_SIZE=${threads} differs`)
    }
  })

  it("is read by Python's zipfile: testzip() finds nothing, every entry is listed", () => {
    const count = execFileSync('python3', ['-c', 'import zipfile,sys; z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(len(z.namelist()))', first.path], {encoding: 'utf8'})
    assert.equal(count.trim(), String(first.entries))
    assert.equal(info.testzip, null)
    assert.equal(info.comment, '')
  })

  it('passes unzip -t', () => {
    const {status, output} = unzipTest(first.path)
    assert.equal(status, 0, output)
    assert.match(output, /No errors detected/)
  })

  it('dates every entry 1980-01-01 00:00 and writes no extra field, central or local, and no comment', () => {
    for (const entry of info.entries) {
      assert.deepEqual(entry.dateTime, [1980, 1, 1, 0, 0, 0], entry.name)
      assert.equal(entry.extra, '', entry.name)
      assert.equal(entry.localExtraLength, 0, entry.name)
      assert.equal(entry.comment, '', entry.name)
      assert.equal(entry.flags & 0x800, 0x800, `${entry.name} lacks the UTF-8 flag`)
    }
  })

  it('writes manifest.json first, then the rest sorted by UTF-8 bytes, with no directory entries', () => {
    const names = info.entries.map((entry) => entry.name)
    assert.equal(names[0], 'manifest.json')
    const rest = names.slice(1)
    const sorted = [...rest].sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
    assert.deepEqual(rest, sorted)
    assert.ok(rest.indexOf('data/\u{ff5a}.txt') < rest.indexOf('data/\u{1f600}.txt'))
    assert.ok(names.every((name) => !name.endsWith('/')))
    assert.equal(names.length, 9 + Object.keys(extra).length)
  })

  it('gives entrypoint executables mode 0755 and every other entry 0644', () => {
    for (const entry of info.entries) {
      const expected = executables.includes(entry.name) ? 0o100755 : 0o100644
      assert.equal(entry.mode.toString(8), expected.toString(8), entry.name)
    }
  })

  it('stores random bytes (method 0) and deflates text (method 8)', () => {
    const byName = new Map(info.entries.map((entry) => [entry.name, entry]))
    assert.equal(byName.get('data/random.bin')?.method, 0)
    assert.equal(byName.get('data/random.bin')?.compressed, 64 * 1024)
    assert.equal(byName.get('data/notes.txt')?.method, 8)
    assert.equal(byName.get('manifest.json')?.method, 8)
    assert.equal(byName.get('data/empty.txt')?.method, 0)
    assert.equal(byName.get('data/large.bin')?.method, 8)
  })

  it('has no deflated entry bigger than its data', () => {
    for (const entry of info.entries) {
      assert.ok(entry.method === 0 || entry.method === 8, entry.name)
      if (entry.method === 8) assert.ok(entry.compressed < entry.size, `${entry.name}: ${entry.compressed} >= ${entry.size}`)
      else assert.equal(entry.compressed, entry.size, entry.name)
    }
  })
})
