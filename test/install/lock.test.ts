import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {hostname} from 'node:os'
import path from 'node:path'
import {describe, it} from 'node:test'

import {LockError, acquireLock, withLock} from '../../src/fs/lock.js'
import {setMutationHook} from '../../src/fs/mutations.js'
import {tempDir} from '../helpers/cli.js'

/** The pid of a process that has exited: spawned, awaited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], {stdio: 'ignore'})
  const pid = child.pid as number
  await new Promise((resolve) => child.on('exit', resolve))
  return pid
}

describe('the per-plugin lock', () => {
  it('is a file created exclusively that names its owner, removed on release', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, 'com.example.one', '.lock')
      const lock = await acquireLock(file)
      const owner = JSON.parse(await readFile(file, 'utf8')) as {pid: number; host: string}
      assert.equal(owner.pid, process.pid)
      assert.equal(owner.host, hostname())
      await lock.release()
      assert.deepEqual(await readdir(path.dirname(file)), [])
    } finally {
      await cleanup()
    }
  })

  it('serialises two holders of the same file: the second runs only after the first released', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      const events: string[] = []
      let releaseFirst!: () => void
      let firstStarted!: () => void
      const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve))
      const started = new Promise<void>((resolve) => (firstStarted = resolve))
      const first = withLock(file, {}, async () => {
        events.push('first start')
        firstStarted()
        await firstHolds
        events.push('first end')
      })
      await started
      const second = withLock(file, {}, async () => {
        events.push('second start')
      })
      releaseFirst()
      await Promise.all([first, second])
      assert.deepEqual(events, ['first start', 'first end', 'second start'])
    } finally {
      await cleanup()
    }
  })

  it('breaks a lock whose owner process is gone', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      await writeFile(file, JSON.stringify({pid: await deadPid(), host: hostname(), token: 'abandoned'}))
      const lock = await acquireLock(file, {timeoutMs: 0})
      assert.equal((JSON.parse(await readFile(file, 'utf8')) as {pid: number}).pid, process.pid)
      await lock.release()
      assert.deepEqual(await readdir(dir), [])
    } finally {
      await cleanup()
    }
  })

  it('gives up with lock-timeout while a live owner holds it', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      const held = await acquireLock(file)
      await assert.rejects(acquireLock(file, {timeoutMs: 0}), (error: unknown) => error instanceof LockError && error.code === 'lock-timeout')
      await held.release()
    } finally {
      await cleanup()
    }
  })

  it('never judges a lock of another host stale', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      await writeFile(file, JSON.stringify({pid: await deadPid(), host: `not-${hostname()}`, token: 'remote'}))
      await assert.rejects(acquireLock(file, {timeoutMs: 0}), (error: unknown) => error instanceof LockError && error.code === 'lock-timeout')
    } finally {
      await cleanup()
    }
  })

  it('does not remove a lock on release that someone else now holds', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      const lock = await acquireLock(file)
      const theirs = JSON.stringify({pid: process.pid, host: hostname(), token: 'someone-else'})
      await writeFile(file, theirs)
      await lock.release()
      assert.equal(await readFile(file, 'utf8'), theirs)
    } finally {
      await cleanup()
    }
  })

  it('creates the directory of the lock file when it is missing', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, 'a', 'b', '.lock')
      await mkdir(path.join(dir, 'a'))
      const lock = await acquireLock(file)
      await lock.release()
      assert.deepEqual(await readdir(path.join(dir, 'a', 'b')), [])
    } finally {
      await cleanup()
    }
  })

  it('removes the temporary a process killed while taking it left, and keeps one of a live waiter', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      const abandoned = `..lock.${await deadPid()}.0123456789ab.tmp`
      const waiting = `..lock.${process.ppid}.0123456789ab.tmp`
      await writeFile(path.join(dir, abandoned), 'killed before linking')
      await writeFile(path.join(dir, waiting), 'still waiting')
      const lock = await acquireLock(file, {timeoutMs: 0})
      assert.deepEqual((await readdir(dir)).sort(), [waiting, '.lock'].sort())
      await lock.release()
    } finally {
      await cleanup()
    }
  })

  it('falls back to an exclusive create on a file system without hard links', async () => {
    const {dir, cleanup} = await tempDir()
    // FAT and some network shares refuse link(2) with EPERM: simulated by failing every link.
    setMutationHook((mutation) => {
      if (mutation.kind === 'link') throw Object.assign(new Error('EPERM: operation not permitted, link'), {code: 'EPERM', syscall: 'link'})
    })
    try {
      const file = path.join(dir, '.lock')
      const lock = await acquireLock(file, {timeoutMs: 0})
      assert.equal((JSON.parse(await readFile(file, 'utf8')) as {pid: number}).pid, process.pid)
      assert.deepEqual(await readdir(dir), ['.lock'])
      await assert.rejects(acquireLock(file, {timeoutMs: 0}), (error: unknown) => error instanceof LockError && error.code === 'lock-timeout')
      await lock.release()
      assert.deepEqual(await readdir(dir), [])
    } finally {
      setMutationHook(null)
      await cleanup()
    }
  })
})
