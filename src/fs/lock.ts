import {randomBytes} from 'node:crypto'
import {readFile, readdir} from 'node:fs/promises'
import {hostname} from 'node:os'
import {performance} from 'node:perf_hooks'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {hasErrno, isTemporarySiblingOf, temporarySibling} from './durable.js'
import {createFile, link, mkdir, rename, unlink, writeAll} from './mutations.js'
import {SvcPluginError} from '../errors.js'

/** Thrown when another process held a lock file for longer than the caller would wait. */
export class LockError extends SvcPluginError<'lock-timeout'> {}

/** How long an operation waits for another one on the same plugin before `lock-timeout`, by default. */
export const defaultLockTimeoutMs = 10 * 60 * 1000

/** A held per-plugin lock. */
export interface PluginLock {
  /** The lock file. */
  readonly file: string
  /** Gives the lock up; safe to call twice. */
  release(): Promise<void>
}

/** What a lock file holds: enough to tell whether its owner still runs. */
interface LockOwner {
  pid: number
  host: string
  token: string
}

// A lock file is put in place whole (see LockAttempt), except on a file system without hard links, where
// it is created and then written, and an owner killed in between leaves it empty (so did older versions
// of this library). After this many consecutive polls that saw it empty or unreadable, it is abandoned.
const unreadablePollsBeforeStale = 40

/** Options of {@link acquireLock}. */
export interface AcquireOptions {
  timeoutMs?: number
  /** Creates the lock's directory when it is missing; default `mkdir -p`. */
  ensureDirectory?: () => Promise<unknown>
}

/**
 * Takes the lock file `file` (one operation per plugin id at a time; different ids in parallel).
 * The file appears exclusively and whole (see {@link LockAttempt}) and names its owner's pid and host.
 * A lock whose owner process no longer runs on this host is stale and is broken; otherwise this waits,
 * polling, for up to `timeoutMs` and then throws `lock-timeout`. A lock held by another host is never
 * judged stale.
 */
export async function acquireLock(file: string, options: AcquireOptions = {}): Promise<PluginLock> {
  const timeoutMs = options.timeoutMs ?? defaultLockTimeoutMs
  // A monotonic clock: the wait is measured, not dated (a wall clock that jumps would cut it short or
  // stretch it, and an operation judged at a caller's reference time reads no wall clock at all).
  const started = performance.now()
  const owner: LockOwner = {pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex')}
  const content = `${JSON.stringify(owner)}\n`
  let delay = 5
  let unreadablePolls = 0
  const attempt = new LockAttempt(file, content, options.ensureDirectory ?? (() => mkdir(path.dirname(file), {recursive: true})))
  try {
    for (;;) {
      if (await attempt.tryCreate()) break
      const observed = await readLockFile(file)
      if (observed !== null) {
        const holder = parseOwner(observed)
        if (holder === null) unreadablePolls += 1
        else unreadablePolls = 0
        if ((holder !== null && isAbandoned(holder)) || unreadablePolls >= unreadablePollsBeforeStale) {
          await breakLock(file, observed)
          continue
        }
      }
      if (observed === null) continue // released between our create and our read: try again at once
      if (performance.now() - started >= timeoutMs) {
        throw new LockError('lock-timeout', `Another operation holds ${file}; gave up after ${Math.round(timeoutMs / 1000)} s.`, {
          details: {lock: file, holder: parseOwner(observed)},
        })
      }
      await sleep(delay)
      delay = Math.min(100, delay * 2)
    }
  } finally {
    await attempt.close()
  }
  await removeAbandonedTemporaries(file)
  return heldLock(file, content)
}

/** Runs `work` while holding the lock file `file`. */
export async function withLock<T>(file: string, options: AcquireOptions, work: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(file, options)
  try {
    return await work()
  } finally {
    await lock.release()
  }
}

/**
 * Puts the lock file in place with our content in one step: the content is written to a temporary sibling
 * first, then hard-linked to the lock's name, which fails when the name exists, like an exclusive create.
 * So a lock file is never seen empty or half-written, even when its owner is killed while taking it.
 * The temporary is reused across polls and removed by {@link LockAttempt.close}. On a file system without
 * hard links (FAT, some network shares) the lock file is created exclusively and then written, and a
 * killed owner may leave it empty: such a lock is judged abandoned after a while (see acquireLock).
 */
class LockAttempt {
  private temp: string | null = null
  private linksUnsupported = false

  constructor(
    private readonly file: string,
    private readonly content: string,
    private readonly ensureDirectory: () => Promise<unknown>,
  ) {}

  /** True when the lock is now ours, false when it exists. */
  async tryCreate(): Promise<boolean> {
    for (;;) {
      try {
        if (this.linksUnsupported) {
          await this.writeFile(this.file)
          return true
        }
        this.temp ??= await this.writeFile(temporarySibling(this.file))
        await link(this.temp, this.file)
        return true
      } catch (error) {
        if (hasErrno(error, 'EEXIST')) return false
        if (!this.linksUnsupported && hasErrno(error, 'EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS')) {
          this.linksUnsupported = true
          await this.close()
          continue
        }
        // The plugin directory does not exist yet, or an uninstall removed it between two attempts.
        if (!hasErrno(error, 'ENOENT')) throw error
        this.temp = null
        await this.ensureDirectory()
      }
    }
  }

  /** Removes the temporary. */
  async close(): Promise<void> {
    if (this.temp !== null) await unlink(this.temp).catch(() => undefined)
    this.temp = null
  }

  /** Creates `target` exclusively with the lock's content. */
  private async writeFile(target: string): Promise<string> {
    const handle = await createFile(target, 'wx', 0o644)
    try {
      await writeAll(handle, target, this.content)
    } finally {
      await handle.close()
    }
    return target
  }
}

/**
 * Removes temporaries of lock `file` that processes killed while taking it left: their name carries the
 * pid, and a temporary of a live process (one waiting for the lock) is left alone.
 */
async function removeAbandonedTemporaries(file: string): Promise<void> {
  const dir = path.dirname(file)
  const prefix = `.${path.basename(file)}.`
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!isTemporarySiblingOf(name, path.basename(file))) continue
    const pid = Number(name.slice(prefix.length, name.indexOf('.', prefix.length)))
    if (!isProcessAlive(pid)) await unlink(path.join(dir, name)).catch(() => undefined)
  }
}

function heldLock(file: string, content: string): PluginLock {
  let released = false
  return {
    file,
    async release() {
      if (released) return
      released = true
      // Only our own lock is removed: a lock file that no longer holds our token was broken by someone
      // who judged us dead, and it is theirs now.
      if ((await readLockFile(file)) === content) await unlink(file).catch(() => undefined)
    },
  }
}

async function readLockFile(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8')
  } catch (error) {
    if (hasErrno(error, 'ENOENT')) return null
    throw error
  }
}

function parseOwner(text: string): LockOwner | null {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null) return null
    const {pid, host, token} = value as Record<string, unknown>
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof host !== 'string' || typeof token !== 'string') return null
    return {pid: pid as number, host, token}
  } catch {
    return null
  }
}

/** True when the owner ran on this host and its process is gone. */
function isAbandoned(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false
  return !isProcessAlive(owner.pid)
}

/** True when a process with this pid exists (signal 0 checks without signalling; EPERM means it exists). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return !hasErrno(error, 'ESRCH')
  }
}

/**
 * Removes a stale lock, unless someone else broke it and took a fresh one in the meantime. The file is
 * first moved aside (only one breaker's rename can succeed); if what was moved is not the stale content we
 * judged, it is a live owner's lock and is linked back.
 */
async function breakLock(file: string, observed: string): Promise<void> {
  const aside = `${file}.stale-${process.pid}-${randomBytes(6).toString('hex')}`
  try {
    await rename(file, aside)
  } catch (error) {
    if (hasErrno(error, 'ENOENT')) return
    throw error
  }
  try {
    const moved = await readFile(aside, 'utf8').catch(() => null)
    if (moved !== observed) await link(aside, file).catch(() => undefined)
  } finally {
    await unlink(aside).catch(() => undefined)
  }
}
