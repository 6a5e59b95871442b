import {randomBytes} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {lstat, readdir} from 'node:fs/promises'
import type {Stats} from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {cancellable, throwIfCancelled} from '../cancellation.js'
import {hasErrno, isTemporarySiblingOf, temporarySibling} from './durable.js'
import {InputFileError, readInputFile} from './input.js'
import {chmod, createFile, mkdir, removeTree, rename, rmdir, unlink, writeAll} from './mutations.js'
import {trackCreatedFolder, trackTemporaryFile} from './temporary-files.js'
import {SvcPluginError} from '../errors.js'

/** Thrown when another process held a lock for longer than the caller would wait. */
export class LockError extends SvcPluginError<'lock-timeout'> {}

/** How long an operation waits for another one on the same plugin before `lock-timeout`, by default. */
export const defaultLockTimeoutMs = 10 * 60 * 1000

// The mode of a lock directory (and of the temporary it is made in), set whatever the umask.
const lockDirectoryMode = 0o700

/** A held lock. */
export interface PluginLock {
  /** The lock's path (a directory holding its owner's marker). */
  readonly file: string
  /** Gives the lock up; safe to call twice. */
  release(): Promise<void>
}

/** What a marker holds: enough to tell whether its owner still runs. */
interface LockOwner {
  pid: number
  host: string
  token: string
  /**
   * Where the system says (Linux): the boot the owner ran in, and when its process started (in clock ticks
   * since that boot), so that its pid taken by another process later (after a reboot, or in the same boot)
   * is not taken for the owner.
   */
  boot?: string
  started?: string
}

/** One marker seen in a lock: its exact name, and its owner when it could be read as one. */
interface SeenMarker {
  name: string
  owner: LockOwner | null
}

/**
 * What stands at a lock's path: nothing; an empty directory (a lock given up half-way, nobody's); a lock
 * with its markers; a single file, the lock of an earlier version of this library; a directory holding
 * something else; or what is never a lock (a symbolic link, a FIFO, a socket, a device), which no lock
 * taken or given up ever turns into.
 */
type SeenLock =
  | {kind: 'free'}
  | {kind: 'empty'}
  | {kind: 'held'; markers: SeenMarker[]}
  | {kind: 'legacy'; owner: LockOwner | null}
  | {kind: 'unknown'}
  | {kind: 'unusable'; info: Stats}

// A marker is written whole before its lock appears, so it is unreadable only after a power loss (or when
// an earlier version's lock file was left empty). After this many consecutive polls that saw an unreadable
// owner, the lock is abandoned.
const unreadablePollsBeforeStale = 40
const markerName = /^owner-[0-9a-f]{24}\.json$/

/** Options of {@link acquireLock}. */
export interface AcquireOptions {
  timeoutMs?: number
  /**
   * The refusal when the lock's path holds what is never a lock (a symbolic link, a FIFO, a socket, a
   * device): waiting for it to be given up would wait out the whole timeout. Default: the system error a
   * rename onto it gives (`ENOTDIR`, naming the lock).
   */
  unusable?: (info: Stats) => Error
  /** Creates the lock's parent directory when it is missing; default `mkdir -p`. */
  ensureDirectory?: () => Promise<unknown>
  /** Cancels the wait: each poll checks it, and a wait between polls ends at once (the `AbortError` of `src/cancellation.ts`). */
  signal?: AbortSignal | undefined
  /**
   * Called once when the lock has been held by someone else for {@link lockWaitNoticeMs}: the holder's pid and
   * host (null when its marker cannot be read), so that a caller can say what it waits for.
   */
  onWait?: (holder: LockHolder | null) => void
}

/** Who holds a lock, as its marker says. */
export interface LockHolder {
  pid: number
  host: string
}

/** How long a wait for a lock lasts before {@link AcquireOptions.onWait} is called. */
export const lockWaitNoticeMs = 1000

/**
 * Takes the lock at `file` (one operation per plugin id at a time; different ids in parallel). A lock is a
 * directory holding one marker, `owner-<token>.json`, that names its owner's pid, host and a random token.
 * It is made complete in a temporary directory and renamed into place: a rename onto a lock that exists
 * fails, so exactly one contender gets it, and a lock is never seen without its marker.
 *
 * A lock whose owners no longer run on this host is stale (a lock of another host never is). Breaking it
 * removes exactly the markers judged stale, by their names, and then the directory only if it is empty
 * (`rmdir`): a lock taken by someone else in the meantime has another marker, which nothing but its owner
 * removes. Otherwise this waits, polling, for up to `timeoutMs` and then throws `lock-timeout`, or until
 * `signal` is aborted (its `AbortError`, nothing of this attempt left behind).
 */
export async function acquireLock(file: string, options: AcquireOptions = {}): Promise<PluginLock> {
  const timeoutMs = options.timeoutMs ?? defaultLockTimeoutMs
  // A monotonic clock: the wait is measured, not dated (a wall clock that jumps would cut it short or
  // stretch it, and an operation judged at a caller's reference time reads no wall clock at all). The
  // process's own, not `performance`, whose first use loads Node's performance hooks.
  const started = process.hrtime.bigint()
  const owner: LockOwner = {pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex'), ...processIdentity(process.pid)}
  const attempt = new LockAttempt(file, owner, options.ensureDirectory ?? (() => mkdir(path.dirname(file), {recursive: true})))
  let delay = 1
  let unreadablePolls = 0
  let noticed = false
  try {
    for (;;) {
      throwIfCancelled(options.signal)
      if (await attempt.tryCreate()) break
      const seen = await inspectLock(file)
      if (seen.kind === 'free') continue // released between our attempt and our look: try again at once
      if (seen.kind === 'unusable') throw (options.unusable ?? ((info: Stats) => notALock(file, info)))(seen.info)
      if (seen.kind === 'empty') {
        await removeIfEmpty(file)
        continue
      }
      const owners = ownersOf(seen)
      unreadablePolls = owners.includes(null) ? unreadablePolls + 1 : 0
      if (seen.kind !== 'unknown' && owners.every((holder) => (holder === null ? unreadablePolls >= unreadablePollsBeforeStale : isAbandoned(holder)))) {
        await breakStale(file, seen)
        continue
      }
      const waited = Number(process.hrtime.bigint() - started) / 1e6
      if (!noticed && waited >= lockWaitNoticeMs) {
        noticed = true
        const holder = owners.find((candidate) => candidate !== null) ?? null
        options.onWait?.(holder === null ? null : {pid: holder.pid, host: holder.host})
      }
      if (waited >= timeoutMs) {
        throw new LockError('lock-timeout', `Another operation holds ${file}; gave up after ${Math.round(timeoutMs / 1000)} s.`, {
          details: {lock: file, holder: owners.find((holder) => holder !== null) ?? null},
        })
      }
      await cancellable(sleep(delay), options.signal)
      delay = Math.min(100, delay * 2)
    }
  } finally {
    await attempt.close()
  }
  await removeAbandonedTemporaries(file)
  return heldLock(file, markerOf(owner))
}

/** Runs `work` while holding the lock at `file`. */
export async function withLock<T>(file: string, options: AcquireOptions, work: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(file, options)
  try {
    return await work()
  } finally {
    await lock.release()
  }
}

/**
 * Builds the lock complete in a temporary sibling directory (its marker written inside), once, and renames
 * it to the lock's path at each attempt. The rename fails while anything but an empty directory stands
 * there. The temporary is removed by {@link LockAttempt.close} when the lock was not taken.
 */
class LockAttempt {
  private temp: string | null = null
  /** Forgets the temporary and its marker, which an interrupted process removes until then. */
  private forgetTemp: Array<() => void> = []

  constructor(
    private readonly file: string,
    private readonly owner: LockOwner,
    private readonly ensureDirectory: () => Promise<unknown>,
  ) {}

  /** True when the lock is now ours, false when one stands at its path. */
  async tryCreate(): Promise<boolean> {
    for (;;) {
      try {
        this.temp ??= await this.prepare()
        await rename(this.temp, this.file)
        this.temp = null
        this.forget()
        return true
      } catch (error) {
        // A lock directory with its marker, a lock file of an earlier version, or (Windows) any directory.
        if (hasErrno(error, 'EEXIST', 'ENOTEMPTY', 'ENOTDIR', 'EISDIR', 'EPERM')) return false
        // The parent does not exist yet, or an uninstall removed it (and our temporary) between two attempts.
        if (!hasErrno(error, 'ENOENT')) throw error
        this.temp = null
        this.forget()
        await this.ensureDirectory()
      }
    }
  }

  /** Removes the temporary, if the lock was not taken. */
  async close(): Promise<void> {
    if (this.temp !== null) await removeTree(this.temp).catch(() => undefined)
    this.temp = null
    this.forget()
  }

  private forget(): void {
    for (const done of this.forgetTemp.splice(0)) done()
  }

  /** The temporary, complete with its marker; nothing of it is left when making it fails (a full disk). */
  private async prepare(): Promise<string> {
    const temp = temporarySibling(this.file)
    await mkdir(temp, {mode: lockDirectoryMode})
    const marker = path.join(temp, markerOf(this.owner))
    this.forgetTemp.push(trackCreatedFolder(temp), trackTemporaryFile(marker))
    try {
      await chmod(temp, lockDirectoryMode)
      const handle = await createFile(marker, 'wx', 0o644)
      try {
        await writeAll(handle, marker, `${JSON.stringify(this.owner)}\n`)
      } finally {
        await handle.close()
      }
    } catch (error) {
      await removeTree(temp).catch(() => undefined)
      this.forget()
      throw error
    }
    return temp
  }
}

/** The marker's name of an owner: `owner-<token>.json`. */
function markerOf(owner: LockOwner): string {
  return `owner-${owner.token}.json`
}

/** Looks at what stands at the lock's path, without changing anything. */
async function inspectLock(file: string): Promise<SeenLock> {
  try {
    const info = await lstat(file)
    if (info.isFile()) return {kind: 'legacy', owner: await readOwner(file)}
    if (!info.isDirectory()) return {kind: 'unusable', info}
    const names = await readdir(file)
    if (names.length === 0) return {kind: 'empty'}
    if (!names.every((name) => markerName.test(name))) return {kind: 'unknown'}
    const markers: SeenMarker[] = []
    for (const name of names) markers.push({name, owner: await readOwner(path.join(file, name))})
    return {kind: 'held', markers}
  } catch (error) {
    // Released, broken or replaced while we looked: look again at the next attempt.
    if (hasErrno(error, 'ENOENT', 'ENOTDIR', 'EISDIR')) return {kind: 'free'}
    throw error
  }
}

/** The system error a rename onto `file` gives when something stands there that is never a lock. */
function notALock(file: string, info: Stats): NodeJS.ErrnoException {
  const what = info.isSymbolicLink() ? 'a symbolic link' : 'a FIFO, a socket or a device'
  return Object.assign(new Error(`ENOTDIR: ${file} is ${what}, never a lock; no operation removes it`), {code: 'ENOTDIR', syscall: 'rename', path: file})
}

function ownersOf(seen: SeenLock): Array<LockOwner | null> {
  if (seen.kind === 'held') return seen.markers.map((marker) => marker.owner)
  if (seen.kind === 'legacy') return [seen.owner]
  return [null]
}

/**
 * Breaks a lock judged stale. In a lock directory, exactly the markers judged stale are removed, by name,
 * then the directory if it is empty: whatever replaced the lock since it was judged keeps its own marker.
 * A lock file of an earlier version is removed with `unlink`, which never removes a directory, so no lock
 * of this version can be taken for it.
 */
async function breakStale(file: string, seen: SeenLock & {kind: 'held' | 'legacy'}): Promise<void> {
  if (seen.kind === 'legacy') {
    await unlink(file).catch((error: unknown) => {
      if (!hasErrno(error, 'ENOENT', 'EISDIR', 'EPERM', 'ENOTDIR')) throw error
    })
    return
  }
  for (const marker of seen.markers) {
    await unlink(path.join(file, marker.name)).catch((error: unknown) => {
      if (!hasErrno(error, 'ENOENT', 'ENOTDIR')) throw error
    })
  }
  await removeIfEmpty(file)
}

/** Removes the lock's directory when it is empty; a lock with a marker, or nothing there, is left alone. */
async function removeIfEmpty(file: string): Promise<void> {
  await rmdir(file).catch((error: unknown) => {
    if (!hasErrno(error, 'ENOENT', 'ENOTEMPTY', 'EEXIST', 'ENOTDIR')) throw error
  })
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
    if (!isProcessAlive(pid)) await removeTree(path.join(dir, name)).catch(() => undefined)
  }
}

function heldLock(file: string, marker: string): PluginLock {
  let released = false
  // An interrupted process gives its lock up as release does: its marker, then the directory if empty.
  const forget = [trackCreatedFolder(file), trackTemporaryFile(path.join(file, marker))]
  return {
    file,
    async release() {
      if (released) return
      released = true
      for (const done of forget) done()
      // Only our own marker is removed: when it is gone, someone judged us dead and broke the lock, and
      // whatever stands there now is theirs. The directory goes only when it is empty. A lock that cannot
      // be given up is left: once this process has exited, the next operation judges it stale.
      try {
        await unlink(path.join(file, marker))
        await removeIfEmpty(file)
      } catch {
        return
      }
    },
  }
}

/**
 * The owner a lock file or marker names, or null when it names none that reads as one. Only a regular file
 * is read, and never with a wait: a FIFO there would block the read until a writer came.
 */
async function readOwner(file: string): Promise<LockOwner | null> {
  try {
    return parseOwner((await readInputFile(file, {limit: maxOwnerBytes})).bytes.toString('utf8'))
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error
    if (error.code === 'file-not-found') throw error.cause
    if (error.code === 'not-a-regular-file') return null
    throw error.cause ?? error
  }
}

/** More than an owner's JSON ever holds. */
const maxOwnerBytes = 64 * 1024

function parseOwner(text: string): LockOwner | null {
  try {
    const value: unknown = JSON.parse(text)
    if (typeof value !== 'object' || value === null) return null
    const {pid, host, token, boot, started} = value as Record<string, unknown>
    if (!Number.isSafeInteger(pid) || (pid as number) <= 0 || typeof host !== 'string' || typeof token !== 'string') return null
    return {pid: pid as number, host, token, ...(typeof boot === 'string' ? {boot} : {}), ...(typeof started === 'string' ? {started} : {})}
  } catch {
    return null
  }
}

/**
 * True when the owner ran on this host and its process is gone: it ran in an earlier boot, its pid runs no
 * process, or the process that has its pid now started at another time than the owner did.
 */
function isAbandoned(owner: LockOwner): boolean {
  if (owner.host !== hostname()) return false
  const now = processIdentity(owner.pid)
  if (owner.boot !== undefined && now.boot !== undefined && owner.boot !== now.boot) return true
  if (!isProcessAlive(owner.pid)) return true
  return owner.started !== undefined && now.started !== undefined && owner.started !== now.started
}

/**
 * The boot of this system and the start of process `pid` in it, where the system says (Linux's
 * `/proc/sys/kernel/random/boot_id` and field 22 of `/proc/<pid>/stat`); empty elsewhere, or for a pid that
 * runs no process.
 */
function processIdentity(pid: number): {boot?: string; started?: string} {
  if (process.platform !== 'linux') return {}
  bootId ??= readSystemFile('/proc/sys/kernel/random/boot_id')?.trim() ?? ''
  const boot = bootId
  const stat = readSystemFile(`/proc/${pid}/stat`)
  // The command name, in parentheses, may hold spaces and parentheses: the fields after it are counted from its end.
  const started = stat?.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  return {...(boot ? {boot} : {}), ...(started !== undefined && /^\d+$/.test(started) ? {started} : {})}
}

/** This system's boot id, read once ('' where it cannot be read). */
let bootId: string | undefined

/** A small file of the system's (procfs), or null when it cannot be read. */
function readSystemFile(file: string): string | null {
  try {
    return readFileSync(file, 'latin1')
  } catch {
    return null
  }
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
