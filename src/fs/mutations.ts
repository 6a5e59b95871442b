import * as fs from 'node:fs/promises'
import type {FileHandle} from 'node:fs/promises'
import type {FileWriter, NewFile} from './file-writer.js'

/**
 * Every change the installer makes to a file system goes through this module: creating a directory or a
 * file, writing into a file it created, renaming, linking, changing a mode, removing. One place to read
 * what the installer can do to a disk, and one place where a test can count those changes and stop the
 * process before any one of them (see {@link setMutationHook}) to prove that a kill at any instant leaves
 * a consistent data root. Reads (stat, readdir, readFile) and flushes (fsync) change nothing and do not
 * come through here.
 */

/** What kind of change a mutation is. */
export type MutationKind = 'mkdir' | 'create' | 'write' | 'chmod' | 'rename' | 'link' | 'unlink' | 'rmdir' | 'remove-tree'

/** One change about to be made. */
export interface Mutation {
  readonly kind: MutationKind
  /** The path changed (for a rename or a link, the source). */
  readonly path: string
  /** The new path of a rename or a link. */
  readonly to?: string
}

/**
 * Called before each mutation with its 1-based ordinal since the hook was set. A hook that returns a
 * promise holds the mutation back until it settles: a test delays a step to widen a race.
 */
export type MutationHook = (mutation: Mutation, ordinal: number) => void | Promise<void>

let hook: MutationHook | null = null
let ordinal = 0

/**
 * Installs (or, with null, removes) the function called before every mutation; the count restarts at 1.
 * Production code never sets one: it exists for tests that stop a process at an exact mutation.
 */
export function setMutationHook(next: MutationHook | null): void {
  hook = next
  ordinal = 0
}

async function before(kind: MutationKind, path: string, to?: string): Promise<void> {
  if (hook === null) return
  ordinal += 1
  const pending = hook(to === undefined ? {kind, path} : {kind, path, to}, ordinal)
  if (pending !== undefined) await pending
}

/** Creates a directory (its parent must exist unless `recursive`). */
export async function mkdir(dir: string, options: {mode?: number; recursive?: boolean} = {}): Promise<void> {
  await before('mkdir', dir)
  await fs.mkdir(dir, options)
}

/** Opens a file for writing with these flags (which include O_CREAT, usually O_EXCL). */
export async function createFile(file: string, flags: number | string, mode: number): Promise<FileHandle> {
  await before('create', file)
  return fs.open(file, flags, mode)
}

/**
 * Hands `files` to `writer`'s thread, which creates each (new, never through a link, with exactly its mode)
 * and writes its bytes, in order. Resolves once the hook has seen every file's create, chmod and write and
 * the batch is handed over (before any of it is made, so that a process stopped at any of them has made
 * none of the batch), with `written`, which settles as `writer.write` does. Batches handed over one after
 * another are made in that order.
 */
export async function createFilesOn(writer: FileWriter, files: readonly NewFile[]): Promise<{written: Promise<ArrayBuffer[]>}> {
  for (const {file} of files) {
    await before('create', file)
    await before('chmod', file)
    await before('write', file)
  }
  return {written: writer.write(files)}
}

/** Writes all of `data` into a file this process created; `file` names it for the hook. */
export async function writeAll(handle: FileHandle, file: string, data: string | Uint8Array): Promise<void> {
  await before('write', file)
  if (typeof data === 'string') {
    await handle.writeFile(data)
    return
  }
  let offset = 0
  while (offset < data.byteLength) {
    const {bytesWritten} = await handle.write(data, offset, data.byteLength - offset)
    offset += bytesWritten
  }
}

/** Sets the permission bits of an open file. */
export async function chmodHandle(handle: FileHandle, file: string, mode: number): Promise<void> {
  await before('chmod', file)
  await handle.chmod(mode)
}

/** Sets the permission bits of a path. */
export async function chmod(target: string, mode: number): Promise<void> {
  await before('chmod', target)
  await fs.chmod(target, mode)
}

/** Renames `from` to `to` (one atomic step on one file system; a link is moved, never followed). */
export async function rename(from: string, to: string): Promise<void> {
  await before('rename', from, to)
  await fs.rename(from, to)
}

/** Makes a hard link `to` of `existing`. */
export async function link(existing: string, to: string): Promise<void> {
  await before('link', existing, to)
  await fs.link(existing, to)
}

/** Removes a file or a symbolic link (never what it points to). */
export async function unlink(file: string): Promise<void> {
  await before('unlink', file)
  await fs.unlink(file)
}

/** Removes an empty directory. */
export async function rmdir(dir: string): Promise<void> {
  await before('rmdir', dir)
  await fs.rmdir(dir)
}

/**
 * Removes `target` and everything under it; an absent target is fine. Node looks at every level with
 * lstat: a symbolic link, at the top or inside, is removed as a link and never followed. The caller
 * checks that the directories above `target` are real ones.
 */
export async function removeTree(target: string): Promise<void> {
  await before('remove-tree', target)
  // Retries briefly on Windows' transient sharing errors.
  await fs.rm(target, {recursive: true, force: true, maxRetries: 3})
}
