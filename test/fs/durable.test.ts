import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {mkdir, symlink, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, describe, it} from 'node:test'

import {fileSystemFlushMinimum, flushTogether, flushTree} from '../../src/fs/durable.js'
import {tempDir} from '../helpers/cli.js'

const work = await tempDir('svc-plugin-durable-')
after(() => work.cleanup())

/** A tree of `count` files under `work/<name>` (two folders), with the paths of its files and folders. */
async function writtenTree(name: string, count: number): Promise<{root: string; files: string[]; directories: string[]}> {
  const root = path.join(work.dir, name)
  const directories = [root, path.join(root, 'a'), path.join(root, 'a', 'b')]
  await mkdir(directories.at(-1)!, {recursive: true})
  const files = Array.from({length: count}, (_, index) => path.join(directories[index % 3]!, `f${index}.js`))
  await Promise.all(files.map((file, index) => writeFile(file, `export const n = ${index}\n`)))
  return {root, files, directories}
}

describe('flushTogether', () => {
  it('flushes files and directories, and refuses a link where a file is named (never following it) and a missing file', async () => {
    const {root, files, directories} = await writtenTree('together', 3)
    await flushTogether(files, directories)
    await symlink(files[0]!, path.join(root, 'link'))
    await assert.rejects(flushTogether([...files, path.join(root, 'link')]), {code: process.platform === 'win32' ? 'EPERM' : 'ELOOP'})
    await assert.rejects(flushTogether([path.join(root, 'missing'), ...files]), {code: 'ENOENT'})
  })
})

// Which way flushTree went shows in what it opens: file by file it opens every name (a missing one is
// ENOENT); flushing the file system opens none of them.
const flushesFileSystem = process.platform === 'linux' && (existsSync('/usr/bin/sync') || existsSync('/bin/sync'))

describe('flushTree', () => {
  it('flushes a small tree file by file', async () => {
    const {root, files, directories} = await writtenTree('small', fileSystemFlushMinimum - 1)
    await flushTree(root, files, directories)
    await assert.rejects(flushTree(root, [...files.slice(1), path.join(root, 'missing')], directories), {code: 'ENOENT'})
  })

  it('flushes a tree of many files by flushing its file system once, on Linux', {skip: !flushesFileSystem}, async () => {
    const {root, files, directories} = await writtenTree('large', fileSystemFlushMinimum)
    await flushTree(root, files, directories)
    // No file was opened: a name that is not there changes nothing.
    await flushTree(root, [...files.slice(1), path.join(root, 'missing')], directories)
  })

  it('flushes file by file when the file system cannot be flushed (sync fails on a folder that is not there)', async () => {
    const {files, directories} = await writtenTree('fallback', fileSystemFlushMinimum)
    const gone = path.join(work.dir, 'no-such-folder')
    await flushTree(gone, files, directories)
    await assert.rejects(flushTree(gone, [...files.slice(1), path.join(gone, 'missing')], directories), {code: 'ENOENT'})
  })

  it('stops with the signal’s AbortError once it is aborted', async () => {
    const {root, files, directories} = await writtenTree('aborted', fileSystemFlushMinimum)
    const controller = new AbortController()
    controller.abort()
    await assert.rejects(flushTree(root, files, directories, controller.signal), {name: 'AbortError'})
  })
})
