import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {mkdir, readFile, readdir, rm, stat, symlink, writeFile} from 'node:fs/promises'
import {createServer} from 'node:net'
import {hostname} from 'node:os'
import path from 'node:path'
import {describe, it} from 'node:test'

import {LockError, acquireLock, withLock} from '../../src/fs/lock.js'
import {tempDir} from '../helpers/cli.js'
import {nonexistentPid} from './helpers/lock-race.js'

describe('the per-plugin lock', () => {
  it('is a directory holding one marker that names its owner, put in place whole and removed on release', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, 'com.example.one', '.lock')
      const lock = await acquireLock(file)
      const [marker, ...others] = await readdir(file)
      assert.deepEqual(others, [])
      assert.match(marker as string, /^owner-[0-9a-f]{24}\.json$/)
      const owner = JSON.parse(await readFile(path.join(file, marker as string), 'utf8')) as {pid: number; host: string; token: string}
      assert.deepEqual({pid: owner.pid, host: owner.host, marker}, {pid: process.pid, host: hostname(), marker: `owner-${owner.token}.json`})
      assert.equal((await stat(file)).mode & 0o777, 0o700)
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

  for (const format of ['directory', 'file of an earlier version'] as const) {
    it(`breaks a lock (a ${format}) whose owner process is gone`, async () => {
      const {dir, cleanup} = await tempDir()
      try {
        const file = path.join(dir, '.lock')
        const abandoned = JSON.stringify({pid: nonexistentPid, host: hostname(), token: 'abandoned'})
        if (format === 'directory') {
          await mkdir(file)
          await writeFile(path.join(file, 'owner-0123456789abcdef01234567.json'), abandoned)
        } else {
          await writeFile(file, abandoned)
        }
        const lock = await acquireLock(file, {timeoutMs: 0})
        const [marker] = await readdir(file)
        assert.equal((JSON.parse(await readFile(path.join(file, marker as string), 'utf8')) as {pid: number}).pid, process.pid)
        await lock.release()
        assert.deepEqual(await readdir(dir), [])
      } finally {
        await cleanup()
      }
    })
  }

  it('takes the place of an empty lock directory, which holds no lock', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      await mkdir(file)
      const lock = await acquireLock(file, {timeoutMs: 0})
      assert.equal((await readdir(file)).length, 1)
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

  // Linux says which boot a process ran in and when it started: a pid that runs again is not the owner.
  const linux = process.platform === 'linux'
  for (const [name, change, stale] of [
    ['a live owner, as its marker says it (its boot and its start)', {}, false],
    ['a marker of an earlier version of this library (no boot, no start) naming a live pid', {boot: undefined, started: undefined}, false],
    ['its pid running a process that started later than the owner', {started: '1'}, true],
    ['an owner of an earlier boot of this host, whose pid runs again', {boot: '00000000-0000-0000-0000-000000000000'}, true],
  ] as const) {
    it(`judges a lock of ${name} ${stale ? 'stale, taking it at once' : 'held'}`, {skip: !linux && stale}, async () => {
      const {dir, cleanup} = await tempDir()
      try {
        const file = path.join(dir, '.lock')
        const held = await acquireLock(file)
        const [marker] = await readdir(file)
        const owner = JSON.parse(await readFile(path.join(file, marker as string), 'utf8')) as Record<string, unknown>
        if (linux) assert.match(`${owner['boot']} ${owner['started']}`, /^[0-9a-f-]{36} \d+$/)
        await writeFile(path.join(file, marker as string), JSON.stringify({...owner, ...change}))
        if (stale) {
          const taken = await acquireLock(file, {timeoutMs: 0})
          await taken.release()
        } else {
          await assert.rejects(acquireLock(file, {timeoutMs: 0}), (error: unknown) => error instanceof LockError && error.code === 'lock-timeout')
          await held.release()
        }
      } finally {
        await cleanup()
      }
    })
  }

  it('never judges a lock of another host stale', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const file = path.join(dir, '.lock')
      await writeFile(file, JSON.stringify({pid: nonexistentPid, host: `not-${hostname()}`, token: 'remote'}))
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
      // Judged dead and broken by someone, who then took the lock: its marker is theirs.
      for (const name of await readdir(file)) await rm(path.join(file, name))
      const theirs = 'owner-0123456789abcdef01234567.json'
      await writeFile(path.join(file, theirs), JSON.stringify({pid: process.pid, host: hostname(), token: '0123456789abcdef01234567'}))
      await lock.release()
      assert.deepEqual(await readdir(file), [theirs])
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
      const abandoned = `..lock.${nonexistentPid}.0123456789ab.tmp`
      const waiting = `..lock.${process.ppid}.0123456789ab.tmp`
      for (const name of [abandoned, waiting]) {
        await mkdir(path.join(dir, name))
        await writeFile(path.join(dir, name, 'owner-0123456789abcdef01234567.json'), 'killed before the rename')
      }
      const lock = await acquireLock(file, {timeoutMs: 0})
      assert.deepEqual((await readdir(dir)).sort(), [waiting, '.lock'].sort())
      await lock.release()
    } finally {
      await cleanup()
    }
  })
})

// Invariant: a lock never waits on what can never be a lock. Whatever stands at its path that is neither a
// directory nor a file (a link to a folder, a dangling link, a FIFO, a socket) is refused at once, with the
// caller's refusal or by default the system's ENOTDIR naming the lock, and the attempt leaves nothing.
describe('a lock whose path holds what is never a lock', () => {
  const occupants: Array<[string, (lock: string, dir: string) => Promise<void | (() => Promise<void>)>]> = [
    ['a symbolic link to a folder', async (lock, dir) => symlink(dir, lock)],
    ['a dangling symbolic link', async (lock, dir) => symlink(path.join(dir, 'nowhere'), lock)],
    ['a FIFO', async (lock) => void execFileSync('mkfifo', [lock])],
    [
      'a socket',
      async (lock) => {
        const server = createServer()
        await new Promise<void>((resolve) => server.listen(lock, resolve))
        return () => new Promise<void>((resolve) => server.close(() => resolve()))
      },
    ],
  ]
  for (const [occupant, make] of occupants) {
    it(`refuses ${occupant} at once, with the caller's refusal or ENOTDIR, and leaves no temporary`, {timeout: 10_000, skip: process.platform === 'win32'}, async () => {
      const {dir, cleanup} = await tempDir()
      try {
        const lock = path.join(dir, 'plugin', '.lock')
        await mkdir(path.dirname(lock))
        const stop = await make(lock, dir)
        try {
          // Were it waited for, each would end in lock-timeout after ten minutes.
          await assert.rejects(acquireLock(lock, {timeoutMs: 600_000}), (error: NodeJS.ErrnoException) => error.code === 'ENOTDIR' && error.path === lock)
          const refusal = new Error('refused by the caller')
          await assert.rejects(withLock(lock, {timeoutMs: 600_000, unusable: (info) => Object.assign(refusal, {link: info.isSymbolicLink()})}, async () => assert.fail('ran without the lock')), refusal)
          assert.equal((refusal as Error & {link?: boolean}).link, occupant.includes('link'))
          assert.deepEqual(await readdir(path.dirname(lock)), ['.lock'])
        } finally {
          await stop?.()
        }
      } finally {
        await cleanup()
      }
    })
  }
})

