import {statSync} from 'node:fs'
import {lstat, stat} from 'node:fs/promises'
import path from 'node:path'
import {SvcPluginError} from '../errors.js'
import {fsyncDirectory, hasErrno, temporarySibling} from './durable.js'
import {createFile, link, mkdir, rename, rmdir, unlink, writeAll} from './mutations.js'
import {trackCreatedFolder, trackTemporaryFile} from './temporary-files.js'

// Every way a file or folder the library writes comes to exist: exclusive creation, atomic replacement,
// a pair replaced together, an archive moved into place, and the folders created to hold them, one level
// at a time. The primitives throw the system's errors as they are (the data root and the lock give them
// their own codes); OutputScope and the functions that take an output's name answer `write-failed` or
// `output-exists`, naming the output, never a temporary file beside it.

/**
 * Why an output file was not written:
 * - `output-exists`: a file is already there and replacing it was not asked for (or is never done).
 * - `write-failed`: the file or its folder cannot be written: a folder where the file should be, a file
 *   where a folder should be, a folder the file system does not let anyone create files in (`/proc`), no
 *   permission, a read-only or full disk. `details.reason` is the system's error code (`EISDIR`,
 *   `ENOTDIR`, `EACCES`, …).
 */
export type OutputErrorCode = 'output-exists' | 'write-failed'

/** Thrown when an output cannot be written; it names the output, never a temporary file beside it. */
export class OutputError extends SvcPluginError<OutputErrorCode> {}

/** The most folders one output may need created; a deeper path is refused before the first is made. */
export const maxNewFolders = 64

/** The reason code of a path that would need more than {@link maxNewFolders} new folders. */
const tooManyFolders = 'too-many-folders'

/**
 * The reason code of an output path that holds a device, a FIFO or a socket: never replaced (a rename
 * would put a file where `/dev/null` was), never written through.
 */
const notAFile = 'not-a-file'

/** The reason code of an output path that ends in a separator (`dist/`): it names a folder, not the file to write. */
const namesAFolder = 'names-a-folder'

/**
 * The reason code of a file updated in place (read, then replaced) that is a symbolic link: replacing the link
 * would leave the file it points to, which is what was read, as it was.
 */
const symbolicLink = 'symbolic-link'

/** The reason code of a file whose way from the folder it is written in passes a symbolic link. */
const linkOnTheWay = 'link-on-the-way'

/**
 * The reason code of a file updated under a lock beside it (`<file>.lock`) where a symbolic link, a FIFO, a
 * socket or a device stands: never a lock, so waiting for it to be given up would only wait out the timeout.
 */
const lockUnusable = 'lock-unusable'

/** The `write-failed` refusal of `target`, whose lock `lock` is never a lock (see {@link lockUnusable}). */
export function unusableLockOf(target: string, lock: string): OutputError {
  return writeFailed(target, systemError(lockUnusable, lock, 'never a lock'))
}

/** The system's reason a write failed, in words a user can act on. */
function describeWriteFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'ENOENT':
      return parentExists(error) ? 'the file system does not allow creating files or folders there' : 'its folder does not exist'
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file stands where a folder is needed on its path'
    case 'EISDIR':
      return 'it is a folder'
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'EROFS':
      return 'the file system is read-only'
    case 'ENOSPC':
      return 'the disk is full'
    case 'EDQUOT':
      return 'the disk quota is used up'
    case 'ENAMETOOLONG':
      return 'the path is too long'
    case tooManyFolders:
      return `it would need more than ${maxNewFolders} new folders`
    case notAFile:
      return 'it is a device, a FIFO or a socket, not a file'
    case namesAFolder:
      return 'it ends in a separator, which names a folder; name the file itself'
    case symbolicLink:
      return 'it is a symbolic link, and the file it points to would stay as it was; name that file itself'
    case linkOnTheWay:
      return 'a folder on its way is a symbolic link, and an output is never written through one'
    case lockUnusable:
      return `its lock ${(error as NodeJS.ErrnoException).path ?? ''} is a symbolic link, a FIFO, a socket or a device, which is never a lock; remove it`
    case 'EFBIG':
      return 'the file is larger than the system allows (a file size limit)'
    default:
      return code ?? (error instanceof Error ? error.message : String(error))
  }
}

/** True when the folder above the path a system error names exists: the file system itself refused. */
function parentExists(error: unknown): boolean {
  const failed = (error as NodeJS.ErrnoException).path
  if (failed === undefined) return false
  try {
    return statSync(path.dirname(failed)).isDirectory()
  } catch {
    return false
  }
}

/** The `write-failed` error for `target`, whatever file the system call was about; an OutputError passes. */
export function writeFailed(target: string, error: unknown): OutputError {
  if (error instanceof OutputError) return error
  const reason = (error as NodeJS.ErrnoException | undefined)?.code ?? 'unknown'
  return new OutputError('write-failed', `${target} cannot be written: ${describeWriteFailure(error)}.`, {cause: error, details: {path: target, reason}})
}

/** A system error for `target` with this errno code, for what a check finds before the system would. */
function systemError(code: string, target: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}, '${target}'`), {code, path: target})
}

/**
 * Where an output goes when the user named `output`: an existing folder, or a path ending in a
 * separator (`dist/`), means "the file `name` in that folder"; anything else is the file itself.
 */
export async function resolveOutputFile(output: string, name: string, cwd = process.cwd()): Promise<string> {
  const resolved = path.resolve(cwd, output)
  if (/[\\/]$/.test(output)) return path.join(resolved, name)
  return (await isFolder(resolved)) ? path.join(resolved, name) : resolved
}

/** What to do about an output that exists, unless the caller says better. */
const keepExisting = 'it is never overwritten. Choose another output or remove it first'

/**
 * The refusal for an output path that something already holds: `write-failed` when it is a folder,
 * `output-exists` (with `advice`, e.g. how to replace it) otherwise.
 */
export async function outputTaken(output: string, advice = keepExisting, cause?: unknown): Promise<OutputError> {
  if (await isFolder(output)) return new OutputError('write-failed', `${output} cannot be written: it is a folder.`, {cause, details: {path: output, reason: 'EISDIR'}})
  if (await isSpecialFile(output)) return writeFailed(output, systemError(notAFile, output, 'not a regular file'))
  return new OutputError('output-exists', `${output} already exists; ${advice}.`, {cause, details: {path: output}})
}

/**
 * Refuses an output path that is a folder or a device, FIFO or socket (`write-failed`), or that exists at all (a file, a link, even
 * a dangling one) unless `replace` was asked for (`output-exists`, with `advice`).
 */
export async function checkOutputFree(output: string, options: {replace?: boolean; advice?: string} = {}): Promise<void> {
  assertNamesAFile(output)
  if (!(await lstat(output).then(() => true, () => false))) return
  const taken = await outputTaken(output, options.advice)
  if (taken.code === 'write-failed' || options.replace !== true) throw taken
}

/**
 * Refuses (`write-failed`, naming `file`) a file to be written inside the folder `root` when a folder on its
 * way below `root` is there but is not a real folder (a symbolic link, a file): what a command creates inside
 * a folder stays inside it, never written through a link to somewhere else.
 */
export async function assertFoldersWithin(root: string, file: string): Promise<void> {
  const top = path.resolve(root)
  for (let dir = path.dirname(path.resolve(file)); dir.startsWith(`${top}${path.sep}`); dir = path.dirname(dir)) {
    const stats = await lstat(dir).catch(() => null)
    if (stats === null || stats.isDirectory()) continue
    throw writeFailed(file, stats.isSymbolicLink() ? systemError(linkOnTheWay, dir, 'a symbolic link on the way') : systemError('ENOTDIR', dir, 'not a folder'))
  }
}

/**
 * The refusal (`write-failed`) of an output that is one of the command's own inputs (`what` says which, e.g.
 * `a file of the plugin being packed`): writing it would destroy what the command reads.
 */
export function inputAsOutput(output: string, what: string): OutputError {
  return new OutputError('write-failed', `${output} cannot be written: it is ${what}. Choose another output.`, {details: {path: output, reason: 'is-input'}})
}

/**
 * Refuses (`write-failed`) an output path that ends in a separator: `out/` names a folder, and a command that
 * writes one named file never writes a file called `out` for it. (pack, which puts its artifact in a folder
 * it is given, resolves such a path first: see {@link resolveOutputFile}.)
 */
export function assertNamesAFile(output: string): void {
  if (/[\\/]$/.test(output)) throw writeFailed(output, systemError(namesAFolder, output, 'the path ends in a separator'))
}

/** True when `target` itself (not a link's target) is a device, a FIFO or a socket. */
async function isSpecialFile(target: string): Promise<boolean> {
  return lstat(target).then(
    (stats) => stats.isCharacterDevice() || stats.isBlockDevice() || stats.isFIFO() || stats.isSocket(),
    () => false,
  )
}

async function isFolder(target: string): Promise<boolean> {
  return stat(target).then(
    (stats) => stats.isDirectory(),
    () => false,
  )
}

/** What stands at `target`, following links; a missing folder on the way counts as missing. */
async function kindOf(target: string): Promise<'folder' | 'other' | 'missing'> {
  try {
    return (await stat(target)).isDirectory() ? 'folder' : 'other'
  } catch (error) {
    if (hasErrno(error, 'ENOENT', 'ENOTDIR')) return 'missing'
    throw error
  }
}

/**
 * Creates folder `dir` and the missing folders above it, one level at a time, the topmost first, and
 * returns those it created (topmost first; none when `dir` existed). Each missing level is one mkdir(2),
 * never retried, and at most {@link maxNewFolders} are made, so this ends whatever the file system
 * answers (a recursive mkdir spins forever where the system refuses a folder whose parent exists, as
 * `/proc` does). A folder another process makes meanwhile is used and not counted as created. System
 * errors are thrown as they are (`ENOTDIR` naming a file that stands where a folder is needed); on
 * failure, the folders already made are removed again.
 */
export async function createFolders(dir: string): Promise<string[]> {
  const missing: string[] = []
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    const kind = await kindOf(current)
    if (kind === 'folder') break
    if (kind === 'other') throw systemError('ENOTDIR', current, 'not a directory')
    if (missing.length === maxNewFolders) throw systemError(tooManyFolders, dir, 'too many folders to create')
    missing.push(current)
    // A missing root (a drive that does not exist) is left to mkdir to refuse.
    if (path.dirname(current) === current) break
  }
  const created: string[] = []
  try {
    for (const folder of missing.reverse()) {
      try {
        await mkdir(folder)
        created.push(folder)
      } catch (error) {
        if (!hasErrno(error, 'EEXIST') || (await kindOf(folder)) !== 'folder') throw error
      }
    }
  } catch (error) {
    await removeEmptyFolders(created)
    throw error
  }
  return created
}

/** Removes the folders `created` (topmost first) from the deepest up, each only when it is empty. */
async function removeEmptyFolders(created: readonly string[]): Promise<void> {
  for (const folder of [...created].reverse()) await rmdir(folder).catch(() => undefined)
}

/** Hard links unsupported, or refused, by the file system: the exclusive create falls back to O_EXCL. */
const noHardLinks = ['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'ENOSYS'] as const

/** Options of {@link createFileExclusive}. */
export interface CreateExclusiveOptions {
  /** The file's permission bits, given to open(2) (so a private key is never readable by others). Default 0o644. */
  mode?: number
  /** Flush the bytes to disk before the file appears. Default true. */
  flush?: boolean
  /** Called synchronously as soon as the file exists, before anything else runs (to track it). */
  onCreated?: () => void
}

/**
 * Creates `file` holding `content`, exclusively and whole: the bytes go to a temporary sibling, which is
 * then hard-linked to `file`; link(2) fails when anything (a file, a folder, a link, even a dangling one)
 * is there, like O_EXCL. So `file` is never seen empty or half-written, even when the writer is killed.
 * Returns true when `file` was created, false when something was there. On a file system without hard
 * links, `file` is created with O_EXCL and then written, so a writer killed in between leaves it short.
 * The temporary never outlives the call (nor a Ctrl-C). Other system errors are thrown as they are
 * (`ENOENT` when the folder is missing). The exclusive create of outputs and of lock files.
 */
export async function createFileExclusive(file: string, content: string | Uint8Array, options: CreateExclusiveOptions = {}): Promise<boolean> {
  const {mode = 0o644, flush = true} = options
  const temp = temporarySibling(file)
  const forget = trackTemporaryFile(temp)
  try {
    await writeNew(temp, content, mode, flush)
    try {
      await link(temp, file)
    } catch (error) {
      if (hasErrno(error, 'EEXIST')) return false
      if (!hasErrno(error, ...noHardLinks)) throw error
      return await createThenWrite(file, content, mode, flush, options.onCreated)
    }
    options.onCreated?.()
    return true
  } finally {
    await unlink(temp).catch(() => undefined)
    forget()
  }
}

/** Creates `file` with O_EXCL and writes it; false when something is there. */
async function createThenWrite(file: string, content: string | Uint8Array, mode: number, flush: boolean, onCreated?: () => void): Promise<boolean> {
  try {
    await writeNew(file, content, mode, flush, onCreated)
    return true
  } catch (error) {
    if (hasErrno(error, 'EEXIST')) return false
    throw error
  }
}

/** Creates `file` exclusively and writes `content` into it; a failure after creating it removes it. */
async function writeNew(file: string, content: string | Uint8Array, mode: number, flush: boolean, onCreated?: () => void): Promise<void> {
  const handle = await createFile(file, 'wx', mode)
  onCreated?.()
  try {
    try {
      await writeAll(handle, file, content)
      if (flush) await handle.sync()
    } finally {
      await handle.close()
    }
  } catch (error) {
    await unlink(file).catch(() => undefined)
    throw error
  }
}

/**
 * Replaces `file` atomically: the bytes go to a temporary sibling created exclusively, are flushed, then
 * renamed over `file`, and the folder is flushed. A reader (or a process killed at any instant) sees the
 * old content or the new one, never a torn file. A killed writer leaves its temporary behind; the next
 * writer under the same lock removes it (names are recognised with `isTemporarySiblingOf`). System errors
 * are thrown as they are.
 */
export async function writeFileAtomic(file: string, bytes: string | Uint8Array, mode = 0o644): Promise<void> {
  const temp = temporarySibling(file)
  const forget = trackTemporaryFile(temp)
  try {
    const handle = await createFile(temp, 'wx', mode)
    try {
      try {
        await writeAll(handle, temp, bytes)
        await handle.sync()
      } finally {
        await handle.close()
      }
      await rename(temp, file)
    } catch (error) {
      await unlink(temp).catch(() => undefined)
      throw error
    }
  } finally {
    forget()
  }
  await fsyncDirectory(path.dirname(file))
}

/** One file of a pair {@link replaceFilePair} writes. */
export interface PairMember {
  file: string
  content: string | Uint8Array
}

/**
 * Replaces two files that are only valid together (a list and its signature): both go to temporary
 * siblings first (flushed), then each is renamed over its file, so neither is ever half-written. Should
 * the second rename fail, the first is undone from a hard-link backup. A process killed between the two
 * renames leaves the new first beside the old second: a pair that fails verification, never one that
 * verifies with the wrong content. A failure is `write-failed` naming the member it concerns.
 */
export async function replaceFilePair(first: PairMember, second: PairMember): Promise<void> {
  const temps = [temporarySibling(first.file), temporarySibling(second.file), temporarySibling(first.file)] as const
  const [firstTemp, secondTemp, backup] = temps
  const forget = temps.map((temp) => trackTemporaryFile(temp))
  let concerned = first.file
  try {
    for (const member of [first, second]) {
      concerned = member.file
      await assertUpdatable(member.file)
    }
    concerned = first.file
    await writeNew(firstTemp, first.content, 0o644, true)
    concerned = second.file
    await writeNew(secondTemp, second.content, 0o644, true)
    concerned = first.file
    const hadFirst = await linkIfPresent(first.file, backup)
    await rename(firstTemp, first.file)
    concerned = second.file
    try {
      await rename(secondTemp, second.file)
    } catch (error) {
      if (hadFirst) await rename(backup, first.file)
      else await unlink(first.file).catch(() => undefined)
      throw error
    }
    await fsyncDirectory(path.dirname(first.file))
    if (path.dirname(second.file) !== path.dirname(first.file)) await fsyncDirectory(path.dirname(second.file))
  } catch (error) {
    throw writeFailed(concerned, error)
  } finally {
    await Promise.all(temps.map((temp) => unlink(temp).catch(() => undefined)))
    for (const done of forget) done()
  }
}

/**
 * Refuses a file that is updated in place (read, then replaced by a rename) unless it is a regular file or
 * not there: a symbolic link (replacing it would leave what was read as it was), a folder, a device, a FIFO
 * or a socket.
 */
async function assertUpdatable(file: string): Promise<void> {
  const stats = await lstat(file).catch(() => null)
  if (stats === null || stats.isFile()) return
  if (stats.isSymbolicLink()) throw systemError(symbolicLink, file, 'a symbolic link')
  if (stats.isDirectory()) throw systemError('EISDIR', file, 'a folder')
  throw systemError(notAFile, file, 'not a regular file')
}

async function linkIfPresent(file: string, backup: string): Promise<boolean> {
  try {
    await link(file, backup)
    return true
  } catch (error) {
    if (hasErrno(error, 'ENOENT')) return false
    throw error
  }
}

/**
 * Moves the complete file `temp` onto `target`. With `overwrite`, one rename replaces whatever file is
 * there; without it, a hard link puts it in place only when nothing is there (`output-exists` otherwise,
 * with no window in which a file appearing is clobbered; on a file system without hard links, a check and
 * then a rename). Failures are `write-failed` naming `target`.
 */
export async function placeFile(temp: string, target: string, overwrite: boolean): Promise<void> {
  try {
    if (overwrite) {
      if (await isSpecialFile(target)) throw await outputTaken(target)
      return await rename(temp, target)
    }
    try {
      await link(temp, target)
    } catch (error) {
      if (hasErrno(error, 'EEXIST')) throw await outputTaken(target, undefined, error)
      if (!hasErrno(error, ...noHardLinks)) throw error
      if (await lstat(target).then(() => true, () => false)) throw await outputTaken(target, undefined, error)
      return await rename(temp, target)
    }
    await unlink(temp)
  } catch (error) {
    throw writeFailed(target, error)
  }
}

/** Something an {@link OutputScope} created, and the function that stops tracking it for Ctrl-C. */
interface Created {
  readonly path: string
  readonly kind: 'file' | 'folder'
  readonly forget: () => void
}

/**
 * The outputs of one operation: the folders it creates to hold them and the files it creates. Until
 * {@link keep}, each is removed by {@link discard} (newest first; a folder only when empty) and by an
 * interrupted command's cleanup, so a failed or cancelled operation leaves nothing, not even a folder.
 * Every failure is `write-failed` or `output-exists`, naming the output. See {@link withOutputs}.
 */
export class OutputScope {
  readonly #created: Created[] = []

  /**
   * Creates folder `dir` and the folders missing above it (see {@link createFolders}); a failure is
   * `write-failed` naming `output` (the file the folder is for; default `dir`). Returns the topmost folder
   * created (to tell the user once), or null when `dir` existed.
   */
  async folder(dir: string, output: string = dir): Promise<string | null> {
    let created: string[]
    try {
      created = await createFolders(dir)
    } catch (error) {
      throw writeFailed(output, error)
    }
    for (const folder of created) this.#add(folder, 'folder')
    return created[0] ?? null
  }

  /** Creates the folder that holds the file `output` (see {@link folder}). */
  folderOf(output: string): Promise<string | null> {
    return this.folder(path.dirname(path.resolve(output)), output)
  }

  /**
   * Makes ready to write the file `output`: creates its folder ({@link folderOf}) and proves that a file
   * can be created there (a temporary beside it, created and removed at once), so that an output that
   * cannot be written is refused before any input is read. Returns the topmost folder created, or null.
   */
  async prepare(output: string): Promise<string | null> {
    assertNamesAFile(output)
    const created = await this.folderOf(output)
    const probe = temporarySibling(path.resolve(output))
    const forget = trackTemporaryFile(probe)
    try {
      await (await createFile(probe, 'wx', 0o600)).close()
    } catch (error) {
      throw writeFailed(output, error)
    } finally {
      await unlink(probe).catch(() => undefined)
      forget()
    }
    return created
  }

  /**
   * Creates `file` with `content` and `mode` exclusively and whole ({@link createFileExclusive}): never
   * replacing anything (`output-exists`; `write-failed` when a folder is there), flushed to disk.
   */
  async newFile(file: string, content: string | Uint8Array, mode = 0o644): Promise<void> {
    assertNamesAFile(file)
    let created: boolean
    try {
      created = await createFileExclusive(file, content, {mode, onCreated: () => this.#add(file, 'file')})
    } catch (error) {
      throw writeFailed(file, error)
    }
    if (!created) throw await outputTaken(file)
  }

  /** Counts `file`, which the caller put in place (an archive), among the outputs removed unless kept. */
  adopt(file: string): void {
    this.#add(file, 'file')
  }

  /** Keeps every output: the operation succeeded. */
  keep(): void {
    for (const created of this.#created.splice(0)) created.forget()
  }

  /** Removes every file and folder created, the newest first (a folder only when it is empty). */
  async discard(): Promise<void> {
    for (const created of this.#created.splice(0).reverse()) {
      await (created.kind === 'file' ? unlink(created.path) : rmdir(created.path)).catch(() => undefined)
      created.forget()
    }
  }

  #add(target: string, kind: 'file' | 'folder'): void {
    const forget = kind === 'file' ? trackTemporaryFile(target) : trackCreatedFolder(target)
    this.#created.push({path: target, kind, forget})
  }
}

/**
 * Runs `work` with a fresh {@link OutputScope}: keeps what it created when `work` succeeds, removes it
 * all (files, then the folders made for them) when `work` throws, and rethrows.
 */
export async function withOutputs<T>(work: (outputs: OutputScope) => Promise<T>): Promise<T> {
  const outputs = new OutputScope()
  try {
    const result = await work(outputs)
    outputs.keep()
    return result
  } catch (error) {
    await outputs.discard()
    throw error
  }
}
