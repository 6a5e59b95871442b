import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {lstat, mkdir, readFile, readdir, stat, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {setMutationHook} from '../../src/fs/mutations.js'
import {
  OutputError,
  OutputScope,
  assertFoldersWithin,
  assertNamesAFile,
  checkOutputFree,
  createFileExclusive,
  createFolders,
  maxNewFolders,
  placeFile,
  replaceFilePair,
  withOutputs,
  writeFileAtomic,
} from '../../src/fs/output.js'
import {isTemporarySiblingOf, temporarySibling} from '../../src/fs/durable.js'
import {removeTemporaryFilesSync} from '../../src/fs/temporary-files.js'
import {tempDir} from '../helpers/cli.js'
import {checkOutputPlans, failingAt, snapshot} from './output-support.js'

let scratch: {dir: string; cleanup: () => Promise<void>}
let counter = 0
/** A fresh empty folder. */
async function fresh(): Promise<string> {
  const dir = path.join(scratch.dir, `t${counter++}`)
  await mkdir(dir)
  return dir
}

before(async () => {
  scratch = await tempDir('svc-plugin-output-')
})
after(async () => {
  setMutationHook(null)
  await scratch.cleanup()
})

function assertWriteFailed(error: unknown, output: string, reason: string): void {
  assert.ok(error instanceof OutputError, String(error))
  assert.equal(error.code, 'write-failed')
  assert.deepEqual(error.details, {path: output, reason})
  assert.ok(error.message.startsWith(`${output} cannot be written: `), error.message)
}

describe('folders created one level at a time', () => {
  // Every layout of a path of four levels below a folder: the first `existing` levels are folders, the
  // next is a file or missing, the rest missing; and every mkdir of the missing ones failing in turn.
  const layouts: {existing: number; blocked: boolean}[] = []
  for (let existing = 0; existing <= 4; existing++) for (const blocked of [false, true]) if (!(blocked && existing === 4)) layouts.push({existing, blocked})

  for (const {existing, blocked} of layouts) {
    it(`${existing} levels exist${blocked ? ', a file stands at the next' : ''}: every mkdir failing in turn leaves the tree as it was`, async () => {
      const levels = ['a', 'b', 'c', 'd']
      const missing = 4 - existing
      for (let failAt = 0; failAt <= missing; failAt++) {
        const root = await fresh()
        if (existing > 0) await mkdir(path.join(root, ...levels.slice(0, existing)), {recursive: true})
        if (blocked) await writeFile(path.join(root, ...levels.slice(0, existing + 1)), 'a file')
        const before = await snapshot(root)
        const target = path.join(root, ...levels)
        const outputs = new OutputScope()
        const {error, attempts} = await failingAt(failAt === 0 ? null : failAt, () => outputs.folder(target, 'the-output'), 'EACCES', ['mkdir'])
        if (blocked) {
          assertWriteFailed(error, 'the-output', 'ENOTDIR')
          assert.equal(attempts, 0)
          assert.deepEqual(await snapshot(root), before)
        } else if (failAt > 0) {
          assertWriteFailed(error, 'the-output', 'EACCES')
          assert.equal(attempts, failAt)
          assert.deepEqual(await snapshot(root), before)
        } else {
          assert.equal(error, null)
          assert.equal(attempts, missing)
          assert.ok((await stat(target)).isDirectory())
          await outputs.discard()
          assert.deepEqual(await snapshot(root), before)
        }
      }
    })
  }

  it('returns the topmost folder it created, or null when the folder existed', async () => {
    const root = await fresh()
    const outputs = new OutputScope()
    assert.equal(await outputs.folder(path.join(root, 'x', 'y')), path.join(root, 'x'))
    assert.equal(await outputs.folder(path.join(root, 'x', 'y')), null)
    assert.deepEqual(await createFolders(path.join(root, 'x', 'y', 'z')), [path.join(root, 'x', 'y', 'z')])
  })

  it('ends on a file system that refuses every new folder: one mkdir, then write-failed', async () => {
    const root = await fresh()
    const {error, attempts} = await failingAt(1, () => new OutputScope().folder(path.join(root, 'p', 'q', 'r'), 'out'), 'ENOENT', ['mkdir'])
    assertWriteFailed(error, 'out', 'ENOENT')
    assert.match((error as Error).message, /^out cannot be written: the file system does not allow creating files or folders there\.$/)
    assert.equal(attempts, 1)
    assert.deepEqual(await snapshot(root), [])
  })

  it(`creates at most ${maxNewFolders} folders for one output, and refuses a deeper path before making any`, async () => {
    const root = await fresh()
    const deepest = path.join(root, ...Array.from({length: maxNewFolders}, () => 'd'))
    assert.equal((await createFolders(deepest)).length, maxNewFolders)
    const other = await fresh()
    const tooDeep = path.join(other, ...Array.from({length: maxNewFolders + 1}, () => 'd'))
    const error = await new OutputScope().folder(tooDeep).catch((caught: unknown) => caught)
    assertWriteFailed(error, tooDeep, 'too-many-folders')
    assert.deepEqual(await snapshot(other), [])
  })

  it('in /proc: a folder below /proc/self, or in /proc, is write-failed at once', {skip: !existsSync('/proc/self')}, async () => {
    for (const dir of ['/proc/self/svc-plugin-x/y', '/proc/svc-plugin-x']) {
      const error = await new OutputScope().folder(dir).catch((caught: unknown) => caught)
      assertWriteFailed(error, dir, 'ENOENT')
    }
  })
})

/** What can stand where an output is to be created. */
const occupants = ['nothing', 'file', 'folder', 'link to a file', 'dangling link'] as const

async function occupy(file: string, occupant: (typeof occupants)[number]): Promise<void> {
  if (occupant === 'file') await writeFile(file, 'old')
  if (occupant === 'folder') await mkdir(file)
  if (occupant === 'link to a file') {
    await writeFile(`${file}.target`, 'old')
    await symlink(`${file}.target`, file)
  }
  if (occupant === 'dangling link') await symlink(`${file}.nowhere`, file)
}

describe('exclusive create', () => {
  for (const occupant of occupants) {
    it(`over ${occupant}: every mutation failing in turn gives the same answer, and no temporary stays`, async () => {
      const counted = await fresh()
      await occupy(path.join(counted, 'out'), occupant)
      const {attempts: total} = await failingAt(null, () => createFileExclusive(path.join(counted, 'out'), 'new', {mode: 0o600}))
      for (let failAt = 0; failAt <= total; failAt++) {
        const root = await fresh()
        const file = path.join(root, 'out')
        await occupy(file, occupant)
        const before = await snapshot(root)
        const {error} = await failingAt(failAt === 0 ? null : failAt, () => new OutputScope().newFile(file, 'new', 0o600))
        const created = occupant === 'nothing' && error === null
        if (occupant === 'nothing') assert.ok(created || error instanceof OutputError, `${failAt}: ${String(error)}`)
        else if (occupant === 'folder') assertWriteFailed(error, file, failAt === 0 ? 'EISDIR' : (error as OutputError).details.reason as string)
        else if (failAt === 0) assert.deepEqual([(error as OutputError).code, (error as OutputError).details], ['output-exists', {path: file}])
        else assert.ok(error instanceof OutputError, `${failAt}: ${String(error)}`)
        if (failAt === 0 && occupant === 'nothing') assert.equal(error, null)
        const after = await snapshot(root)
        assert.deepEqual(
          after.filter((line) => before.includes(line)),
          before,
        )
        const strays = after.filter((line) => !before.includes(line) && !(created && line === 'file out 600 new'))
        if (created) assert.ok(after.includes('file out 600 new'))
        // What may remain besides: a temporary whose own removal was the failing step, nothing else.
        assert.ok(strays.length <= (failAt === 0 ? 0 : 1), `${failAt}: ${strays.join(', ')}`)
        assert.ok(strays.every((line) => /^file \.out\.\d+\.[0-9a-f]{12}\.tmp /.test(line)), `${failAt}: ${strays.join(', ')}`)
      }
    })
  }

  it('answers true when it created the file and false when something was there: the primitive a lock takes', async () => {
    const root = await fresh()
    const file = path.join(root, 'held.lock')
    assert.equal(await createFileExclusive(file, 'mine\n', {flush: false}), true)
    assert.equal(await createFileExclusive(file, 'theirs\n', {flush: false}), false)
    assert.equal(await readFile(file, 'utf8'), 'mine\n')
    await assert.rejects(createFileExclusive(path.join(root, 'missing', 'x.lock'), ''), {code: 'ENOENT'})
    assert.deepEqual(await readdir(root), ['held.lock'])
  })
})

describe('a pair replaced together', () => {
  for (const existing of [false, true]) {
    it(`${existing ? 'over an existing pair' : 'as a new pair'}: every mutation failing in turn leaves the old pair or the new one, whole`, async () => {
      const write = (root: string) => replaceFilePair({file: path.join(root, 'list.json'), content: 'new list'}, {file: path.join(root, 'list.sig'), content: 'new sig'})
      const prepare = async (root: string) => {
        if (existing) await Promise.all([writeFile(path.join(root, 'list.json'), 'old list'), writeFile(path.join(root, 'list.sig'), 'old sig')])
      }
      const counted = await fresh()
      await prepare(counted)
      const {attempts: total} = await failingAt(null, () => write(counted))
      for (let failAt = 0; failAt <= total; failAt++) {
        const root = await fresh()
        await prepare(root)
        const before = await snapshot(root)
        const {error} = await failingAt(failAt === 0 ? null : failAt, () => write(root))
        const after = await snapshot(root)
        const pair = after.filter((line) => !/ \.list\./.test(line))
        const newPair = ['file list.json 644 new list', 'file list.sig 644 new sig']
        if (error === null) assert.deepEqual(pair, newPair, `${failAt}`)
        else {
          assert.deepEqual(pair, before, `${failAt}`)
          assert.ok(error instanceof OutputError && error.code === 'write-failed', String(error))
          assert.ok([path.join(root, 'list.json'), path.join(root, 'list.sig')].includes(error.details.path as string))
        }
        // A temporary stays only when its own removal was the failing step.
        assert.ok(after.length - pair.length <= 1, `${failAt}: ${after.join(', ')}`)
      }
    })
  }
})

describe('moving an archive into place', () => {
  for (const occupant of occupants) {
    for (const overwrite of [false, true]) {
      it(`over ${occupant}${overwrite ? ', replacing' : ''}`, async () => {
        const root = await fresh()
        const target = path.join(root, 'out')
        await occupy(target, occupant)
        await writeFile(path.join(root, 'temp'), 'archive')
        const error = await placeFile(path.join(root, 'temp'), target, overwrite).then(
          () => null,
          (caught: unknown) => caught,
        )
        if (occupant === 'folder') {
          assertWriteFailed(error, target, 'EISDIR')
        } else if (occupant === 'nothing' || overwrite) {
          assert.equal(error, null)
          assert.equal(await readFile(target, 'utf8'), 'archive')
          assert.equal((await lstat(target)).isSymbolicLink(), false)
          assert.equal(existsSync(path.join(root, 'temp')), false)
        } else {
          assert.ok(error instanceof OutputError && error.code === 'output-exists', String(error))
          assert.equal(await readFile(path.join(root, 'temp'), 'utf8'), 'archive')
        }
      })
    }
  }
})

describe('the outputs of one operation', () => {
  it('keeps every output when the operation succeeds, and leaves the tree exactly as it was when it fails at any step (a sample)', async () => {
    await checkOutputPlans(fresh, 25)
  })

  it('is removed by the cleanup of an interrupted command, the files before the folders made for them', async () => {
    const root = await fresh()
    const outputs = new OutputScope()
    await outputs.folder(path.join(root, 'new', 'deeper'))
    await outputs.newFile(path.join(root, 'new', 'deeper', 'key'), 'secret', 0o600)
    removeTemporaryFilesSync()
    assert.deepEqual(await snapshot(root), [])
  })

  it('is kept once the operation succeeded: the cleanup of an interrupted command leaves it', async () => {
    const root = await fresh()
    await withOutputs(async (outputs) => {
      await outputs.folder(path.join(root, 'kept'))
      await outputs.newFile(path.join(root, 'kept', 'file'), 'x')
    })
    removeTemporaryFilesSync()
    assert.deepEqual(await snapshot(root), ['folder kept', 'file kept/file 644 x'])
  })
})

describe('outputs with the longest names a file system takes', () => {
  // 255 bytes of UTF-8: the longest file name; a temporary beside it must fit too.
  const names = ['a'.repeat(255), `${'é'.repeat(120)}.svcPlugin`, `${'漢'.repeat(81)}.json`]

  for (const name of names) {
    it(`writes ${Buffer.byteLength(name)} bytes of name through a temporary (${name.slice(0, 3)}…)`, async () => {
      const dir = await fresh()
      const file = path.join(dir, name)
      assert.ok(Buffer.byteLength(name) <= 255)
      await writeFileAtomic(file, 'one\n')
      await replaceFilePair({file, content: 'two\n'}, {file: path.join(dir, 'b.sig'), content: 'sig\n'})
      assert.equal(await readFile(file, 'utf8'), 'two\n')
      assert.deepEqual((await readdir(dir)).sort(), [name, 'b.sig'].sort())
    })
  }

  it('names a temporary of a long name within 255 bytes, still recognised as that name\'s', () => {
    for (const name of [...names, 'current.json']) {
      const temporary = path.basename(temporarySibling(path.join('/x', name)))
      assert.ok(Buffer.byteLength(temporary) <= 255, temporary)
      assert.ok(isTemporarySiblingOf(temporary, name), temporary)
    }
    assert.ok(!isTemporarySiblingOf(path.basename(temporarySibling('/x/current.json')), 'trust.json'))
  })
})

describe('an output path that holds a device, a FIFO or a socket', () => {
  /** Makes a FIFO (and, as root, a character device like /dev/full) at `file`; false when the system cannot. */
  function special(file: string, kind: 'fifo' | 'device'): boolean {
    try {
      execFileSync(kind === 'fifo' ? 'mkfifo' : 'mknod', kind === 'fifo' ? [file] : [file, 'c', '1', '7'], {stdio: 'ignore'})
      return true
    } catch {
      return false
    }
  }

  for (const kind of ['fifo', 'device'] as const) {
    for (const replace of [false, true]) {
      it(`is refused as write-failed and left as it is (${kind}${replace ? ', replacing' : ''})`, async (t) => {
        const root = await fresh()
        const target = path.join(root, 'out')
        if (!special(target, kind)) return t.skip(`cannot make a ${kind} here`)
        assertWriteFailed(await checkOutputFree(target, {replace}).then(() => null, (caught: unknown) => caught), target, 'not-a-file')
        await writeFile(path.join(root, 'temp'), 'archive')
        assertWriteFailed(await placeFile(path.join(root, 'temp'), target, replace).then(() => null, (caught: unknown) => caught), target, 'not-a-file')
        const stats = await lstat(target)
        assert.ok(kind === 'fifo' ? stats.isFIFO() : stats.isCharacterDevice(), 'the occupant was replaced')
      })
    }
  }
})

describe('a path that ends in a separator names a folder, never the file to write', () => {
  for (const output of ['out/', `out${path.sep}`, 'a/b/']) {
    it(`${JSON.stringify(output)} is refused by every way a named file comes to exist, and nothing is made`, async () => {
      const root = await fresh()
      const named = path.join(root, output)
      assertWriteFailed(catchSync(() => assertNamesAFile(named)), named, 'names-a-folder')
      assertWriteFailed(await checkOutputFree(named, {replace: true}).then(() => null, (caught: unknown) => caught), named, 'names-a-folder')
      assertWriteFailed(await withOutputs((outputs) => outputs.prepare(named)).then(() => null, (caught: unknown) => caught), named, 'names-a-folder')
      assertWriteFailed(await withOutputs((outputs) => outputs.newFile(named, 'x')).then(() => null, (caught: unknown) => caught), named, 'names-a-folder')
      assert.deepEqual(await readdir(root), [])
    })
  }

  it('a path without one is taken as the file', () => {
    for (const output of ['out', 'a/b', '/x/out.svcPlugin']) assert.equal(assertNamesAFile(output), undefined)
  })
})

describe('a pair updated in place (a list and its signature) is replaced only where each is a regular file or missing', () => {
  for (const member of ['first', 'second'] as const) {
    for (const occupant of ['symbolic-link', 'folder', 'fifo'] as const) {
      it(`${member} is a ${occupant}: write-failed naming it, both paths and what a link points to as they were`, async (t) => {
        const root = await fresh()
        const first = path.join(root, 'list.json')
        const second = path.join(root, 'list.sig')
        const real = path.join(root, 'real')
        await writeFile(real, 'the real list')
        await writeFile(member === 'first' ? second : first, 'old')
        const occupied = member === 'first' ? first : second
        if (occupant === 'symbolic-link') await symlink(real, occupied)
        else if (occupant === 'folder') await mkdir(occupied)
        else if (!mkfifo(occupied)) return t.skip('no mkfifo here')
        const before = await shapes(root)
        const error = await replaceFilePair({file: first, content: 'new list'}, {file: second, content: 'new sig'}).then(() => null, (caught: unknown) => caught)
        assertWriteFailed(error, occupied, {['symbolic-link']: 'symbolic-link', folder: 'EISDIR', fifo: 'not-a-file'}[occupant])
        assert.deepEqual(await shapes(root), before)
        assert.equal(await readFile(real, 'utf8'), 'the real list')
      })
    }
  }
})

describe('files created inside a folder stay inside it', () => {
  it('a symbolic link or a file on the way below the folder is refused, naming the file; real folders and missing ones pass', async () => {
    const root = await fresh()
    const elsewhere = await fresh()
    await mkdir(path.join(root, 'real', 'deeper'), {recursive: true})
    await symlink(elsewhere, path.join(root, 'runtimes'))
    await writeFile(path.join(root, 'blocker'), 'a file')
    assert.equal(await assertFoldersWithin(root, path.join(root, 'real', 'deeper', 'f')), undefined)
    assert.equal(await assertFoldersWithin(root, path.join(root, 'missing', 'also', 'f')), undefined)
    assert.equal(await assertFoldersWithin(root, path.join(root, 'f')), undefined)
    const throughLink = path.join(root, 'runtimes', 'linux-x64', 'f')
    assertWriteFailed(await assertFoldersWithin(root, throughLink).then(() => null, (caught: unknown) => caught), throughLink, 'link-on-the-way')
    const throughFile = path.join(root, 'blocker', 'f')
    assertWriteFailed(await assertFoldersWithin(root, throughFile).then(() => null, (caught: unknown) => caught), throughFile, 'ENOTDIR')
    // The folder itself may be a link: what is inside it is checked, not the way to it.
    const linkedRoot = path.join(elsewhere, 'to-root')
    await symlink(root, linkedRoot)
    assert.equal(await assertFoldersWithin(linkedRoot, path.join(linkedRoot, 'real', 'f')), undefined)
    assert.deepEqual(await readdir(elsewhere), ['to-root'])
  })
})

/** Every name under `root` with what it is, and a regular file's content (a FIFO is never opened). */
async function shapes(root: string): Promise<string[]> {
  const lines: string[] = []
  for (const name of (await readdir(root, {recursive: true})).map(String).sort()) {
    const stats = await lstat(path.join(root, name))
    lines.push(stats.isFile() ? `file ${name} ${await readFile(path.join(root, name), 'utf8')}` : `${stats.isSymbolicLink() ? 'link' : stats.isDirectory() ? 'folder' : 'other'} ${name}`)
  }
  return lines
}

function catchSync(run: () => unknown): unknown {
  try {
    run()
    return null
  } catch (error) {
    return error
  }
}

/** Makes a FIFO at `file`; false when the system cannot. */
function mkfifo(file: string): boolean {
  try {
    execFileSync('mkfifo', [file], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
}
