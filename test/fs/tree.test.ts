import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {closeSync, openSync} from 'node:fs'
import {mkdir, realpath, rename, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, describe, it} from 'node:test'
import {openedElsewhere} from '../../src/fs/opened-path.js'
import {readFiles} from '../../src/fs/tree.js'
import {rejectionOf} from '../helpers/promises.js'
import {tempDir} from '../helpers/cli.js'

const work = await tempDir('svc-plugin-tree-')
after(() => work.cleanup())

/** `inside/sub/a.txt` listed by its own path, then `inside/sub` replaced by a link to a folder holding another `a.txt`. */
async function swappedFolder(name: string): Promise<{file: string}> {
  const root = await realpath(work.dir).then((dir) => path.join(dir, name))
  await mkdir(path.join(root, 'inside', 'sub'), {recursive: true})
  await mkdir(path.join(root, 'elsewhere'))
  await writeFile(path.join(root, 'inside', 'sub', 'a.txt'), 'inside the plugin\n')
  await writeFile(path.join(root, 'elsewhere', 'a.txt'), 'outside of it!!!!\n')
  await rename(path.join(root, 'inside', 'sub'), path.join(root, 'inside', 'sub.before'))
  await symlink(path.join(root, 'elsewhere'), path.join(root, 'inside', 'sub'))
  return {file: path.join(root, 'inside', 'sub', 'a.txt')}
}

describe('readFiles', () => {
  it('with exactPaths, refuses a file reached through a folder replaced by a link (ELOOP), whether it reads it whole or streams its digest', {skip: process.platform !== 'linux'}, async () => {
    const {file} = await swappedFolder('exact')
    const found = [{name: 'sub/a.txt', absolute: file}]
    const whole = await rejectionOf(readFiles(found, {digests: true, exactPaths: true, inspect: {maxBytes: 1024, use: async () => undefined}}))
    assert.equal((whole as NodeJS.ErrnoException).code, 'ELOOP')
    const streamed = await rejectionOf(readFiles(found, {digests: true, exactPaths: true}))
    assert.equal((streamed as NodeJS.ErrnoException).code, 'ELOOP')
    // Without it, the path is read as it resolves now: the other file.
    const read = await readFiles(found, {digests: true})
    assert.equal(read.get('sub/a.txt')?.size, 18)
  })
})

describe('openedElsewhere', () => {
  it('refuses a descriptor the system cannot name (its folder moved deeper than the longest path): never taken as unknown', {skip: process.platform !== 'linux'}, async () => {
    const root = await realpath(work.dir).then((dir) => path.join(dir, 'unnamed'))
    await mkdir(path.join(root, 'a'), {recursive: true})
    const file = path.join(root, 'a', 'f.txt')
    await writeFile(file, 'x')
    const fd = openSync(file, 'r')
    try {
      assert.equal(openedElsewhere(fd, file), false)
      // Moves a/ under 20 folders of 250 characters, from inside the deepest (no path that long is ever given).
      const script = `import os\nsource = ${JSON.stringify(path.join(root, 'a'))}\nos.chdir(${JSON.stringify(root)})\nfor _ in range(20): os.mkdir('d' * 250); os.chdir('d' * 250)\nos.rename(source, 'a')`
      execFileSync('python3', ['-c', script])
      assert.equal(openedElsewhere(fd, file), true)
      // Another file, named as it is, is still found where it is.
      const other = path.join(root, 'other.txt')
      await writeFile(other, 'y')
      const otherFd = openSync(other, 'r')
      assert.equal(openedElsewhere(otherFd, other), false)
      closeSync(otherFd)
    } finally {
      closeSync(fd)
      execFileSync('rm', ['-rf', root])
    }
  })
})
