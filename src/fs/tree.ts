import {createHash} from 'node:crypto'
import {constants} from 'node:fs'
import {open, readdir, stat, type FileHandle} from 'node:fs/promises'
import path from 'node:path'
import {throwIfCancelled} from '../cancellation.js'
import {openedElsewhere} from './opened-path.js'

/** Size and, when asked for, SHA-256 of one file of a tree. */
export interface TreeFile {
  size: number
  /** `sha256:` + 64 lowercase hex digits; absent when digests were not asked for. */
  sha256?: string
}

/** What a directory holds, by `/`-separated path relative to it. */
export interface Tree {
  /** Every regular file, in path order. */
  files: Map<string, TreeFile>
  /** Paths that are neither a regular file nor a directory (symbolic links, FIFOs, sockets, devices): never followed. */
  unexpected: string[]
}

/** Options of {@link readTree}. */
export interface ReadTreeOptions {
  /** Stream every file through SHA-256 (default: sizes only). */
  digests: boolean
  /** Leave out a path (and, for a directory, everything below it); it is then neither listed nor unexpected. */
  exclude?: (relativePath: string, isDirectory: boolean) => boolean
  /** Hands the bytes of every file of at most `maxBytes` to `use` (the same read that digests it), and awaits it. */
  inspect?: {maxBytes: number; use: (relativePath: string, bytes: Buffer) => Promise<void>}
  /** Cancels the reading: the next folder, file or chunk is not read (the `AbortError` of `src/cancellation.ts`). */
  signal?: AbortSignal | undefined
  /**
   * The paths given are the files' own, free of links ({@link readFiles}): a file reached through a folder
   * replaced by a link since is refused (ELOOP), where the system tells (see `opened-path.ts`).
   */
  exactPaths?: boolean
}

/** Files read at once while digesting: enough to keep the disk and a core busy, few enough to bound memory. */
const digestConcurrency = 4

/**
 * Lists every regular file under `root`, never following a symbolic link, and with `digests` streams each
 * one once through SHA-256 (opened without following a link that replaced it after the listing).
 */
export async function readTree(root: string, options: ReadTreeOptions): Promise<Tree> {
  const found: Array<{name: string; absolute: string}> = []
  const unexpected: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    throwIfCancelled(options.signal)
    const entries = await readdir(dir, {withFileTypes: true})
    for (const entry of entries) {
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      const absolute = path.join(dir, entry.name)
      if (options.exclude?.(name, entry.isDirectory()) === true) continue
      if (entry.isDirectory()) await walk(absolute, name)
      else if (entry.isFile()) found.push({name, absolute})
      else unexpected.push(name)
    }
  }
  await walk(root, '')
  return {files: await readFiles(found, options), unexpected: unexpected.sort()}
}

/**
 * Sizes and, with `digests`, SHA-256 of regular files (each opened without following a link that replaced
 * it), a few at a time, by `/`-separated path in path order; `inspect` sees the bytes of each small one.
 * Once `signal` is aborted, the next file or chunk is not read.
 */
export async function readFiles(found: readonly {name: string; absolute: string}[], options: Omit<ReadTreeOptions, 'exclude'>): Promise<Map<string, TreeFile>> {
  const {signal} = options
  const sizes = new Map<string, TreeFile>()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < found.length) {
      throwIfCancelled(signal)
      const file = found[next++]!
      const size = (await stat(file.absolute)).size
      if (options.inspect !== undefined && size <= options.inspect.maxBytes) {
        const bytes = await readRegular(file.absolute, options.exactPaths === true)
        await options.inspect.use(file.name, bytes)
        sizes.set(file.name, options.digests ? {size: bytes.length, sha256: `sha256:${createHash('sha256').update(bytes).digest('hex')}`} : {size: bytes.length})
      } else {
        sizes.set(file.name, options.digests ? await digestFile(file.absolute, signal, options.exactPaths === true) : {size})
      }
    }
  }
  await Promise.all(Array.from({length: Math.min(digestConcurrency, found.length)}, worker))
  return new Map([...sizes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
}

/** The bytes of one regular file, read whole; a symbolic link that replaced it is not followed. */
async function readRegular(file: string, exactPath: boolean): Promise<Buffer> {
  const handle = await openRegular(file, exactPath)
  try {
    return await handle.readFile()
  } finally {
    await handle.close()
  }
}

/**
 * Size and SHA-256 of one file, streamed; a symbolic link that replaced it is not followed. Once `signal`
 * is aborted, the next chunk is not read.
 */
export async function digestFile(file: string, signal?: AbortSignal, exactPath = false): Promise<{size: number; sha256: string}> {
  const hash = createHash('sha256')
  let size = 0
  const handle = await openRegular(file, exactPath)
  try {
    for await (const chunk of handle.createReadStream({autoClose: false, highWaterMark: 1024 * 1024}) as AsyncIterable<Buffer>) {
      throwIfCancelled(signal)
      hash.update(chunk)
      size += chunk.byteLength
    }
  } finally {
    await handle.close()
  }
  return {size, sha256: `sha256:${hash.digest('hex')}`}
}

/**
 * Opens `file` for reading, not following a link that replaced it: it must still be a regular file and, with
 * `exactPath`, be at `file` itself (see `opened-path.ts`). Refusals carry the code a caller tells them by.
 */
async function openRegular(file: string, exactPath: boolean): Promise<FileHandle> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
  try {
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error(`${file} is no longer a regular file.`), {code: 'EINVAL', path: file, syscall: 'open'})
    if (exactPath && openedElsewhere(handle.fd, file)) {
      throw Object.assign(new Error(`${file} was reached through a link: a folder on its way was replaced since it was listed.`), {code: 'ELOOP', path: file, syscall: 'open'})
    }
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}
