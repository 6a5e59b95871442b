import {createHash} from 'node:crypto'
import {constants} from 'node:fs'
import path from 'node:path'
import {isSmallEntry, streamedFirst} from '../archive/entry-stream.js'
import {checkEntryPath} from '../archive/path-policy.js'
import type {ArchiveEntry, EntryDigest, StrictArchive} from '../archive/types.js'
import {throwIfCancelled} from '../cancellation.js'
import {forEachConcurrently} from '../fs/concurrently.js'
import {flushTree} from '../fs/durable.js'
import {FileWriter, worthFileWriter, type NewFile} from '../fs/file-writer.js'
import {chmod, chmodHandle, createFile, createFilesOn, mkdir, writeAll} from '../fs/mutations.js'
import {InstallError} from './errors.js'
import {directoryModes} from './layout.js'

/** Progress of an extraction: after each entry, and every MiB inside a large one. */
export interface ExtractProgress {
  entry: string
  entriesDone: number
  entriesTotal: number
  bytesDone: number
  bytesTotal: number
}

/** Options of {@link extractArchive}. */
export interface ExtractOptions {
  /** Bytes already read into memory for some entries (the manifest): written as they are, not inflated again. */
  preloaded?: ReadonlyMap<string, Uint8Array>
  /** Entries created with mode 0755 (the host's entrypoint); every other file gets 0644. */
  executables?: readonly string[]
  /** Entries written at the same time (default 4). */
  concurrency?: number
  /** Awaited after each entry is on disk, and every MiB written inside a large one. */
  onProgress?: (progress: ExtractProgress) => Promise<void> | void
  /** Stops the extraction before the next entry or directory flush, and every read of the archive (its `AbortError`). */
  signal?: AbortSignal | undefined
}

/** Bytes between two progress reports inside one large entry. */
const progressStepBytes = 1024 * 1024

// Never follow a symbolic link, never open an existing file: every file is new in a fresh directory.
const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0)

/**
 * Judges the set of entry names as a tree before anything is written: a name that is also the directory
 * of another (`a` and `a/b`), or two directory spellings that differ only in case (`A/x`, `a/y`), cannot
 * be extracted faithfully on every file system. Throws `unsafe-entry`.
 */
export function assertExtractableTree(entries: readonly ArchiveEntry[]): void {
  const files = new Set<string>()
  const directories = new Map<string, string>()
  for (const {name} of entries) files.add(name.toLowerCase())
  for (const {name} of entries) {
    const segments = name.split('/')
    for (let depth = 1; depth < segments.length; depth++) {
      const dir = segments.slice(0, depth).join('/')
      const folded = dir.toLowerCase()
      if (files.has(folded)) throw unsafe(name, 'file-directory-conflict', `${name} needs a directory ${dir}, which is also a file in the archive.`)
      const spelled = directories.get(folded)
      if (spelled !== undefined && spelled !== dir) throw unsafe(name, 'case-conflict', `${name} spells the directory ${spelled} as ${dir}.`)
      directories.set(folded, dir)
    }
  }
}

function unsafe(entry: string, reason: string, message: string): InstallError {
  return new InstallError('unsafe-entry', message, {details: {entry, reason}})
}

/**
 * The file an entry becomes under `root`: the name must pass the entry-path policy again,
 * is joined segment by segment, and must still resolve strictly inside `root`.
 */
export function entryDestination(root: string, name: string): string {
  const reason = checkEntryPath(name)
  if (reason !== null) throw unsafe(name, reason, `The entry ${JSON.stringify(name)} is not a safe path (${reason}).`)
  const destination = path.resolve(root, ...name.split('/'))
  const relative = path.relative(root, destination)
  if (relative === '' || path.isAbsolute(relative) || relative.split(path.sep)[0] === '..') {
    throw unsafe(name, 'outside-root', `The entry ${JSON.stringify(name)} would be written outside the version directory.`)
  }
  return destination
}

/**
 * Extracts every entry of `archive` into the new directory `root`: each through the archive's
 * verified stream (CRC, sizes and caps enforced while inflating) into a file created exclusively with mode
 * 0644 (0755 for `executables`), hashed as it is written; once all are written, every file and directory is
 * flushed to disk together (`flushTree`). Returns each entry's real size
 * and SHA-256. Any failure throws and leaves only what is under `root`.
 */
export async function extractArchive(archive: StrictArchive, root: string, options: ExtractOptions = {}): Promise<Map<string, EntryDigest>> {
  assertExtractableTree(archive.entries)
  const destinations = archive.entries.map((entry) => ({entry, file: entryDestination(root, entry.name)}))
  await mkdir(root, {mode: directoryModes.shared})
  const directories = new Set<string>([root])
  for (const {file} of destinations) {
    for (let dir = path.dirname(file); !directories.has(dir); dir = path.dirname(dir)) directories.add(dir)
  }
  // Parents before children: shortest paths first.
  for (const dir of [...directories].sort((a, b) => a.length - b.length)) {
    if (dir !== root) await mkdir(dir, {mode: directoryModes.shared})
    // The umask may have narrowed it: every directory of a version is exactly 0755.
    await chmod(dir, directoryModes.shared)
  }

  const executables = new Set(options.executables)
  const digests = new Map<string, EntryDigest>()
  const entriesTotal = destinations.length
  const bytesTotal = archive.entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
  let bytesDone = 0
  let reportedBytes = 0
  let entriesDone = 0
  // The large entries first, so that none is left to stream alone at the end.
  const order = streamedFirst(destinations.map(({entry}) => entry))
  const progress = async (entry: string, bytes: number, finished: boolean): Promise<void> => {
    bytesDone += bytes
    if (finished) entriesDone += 1
    // Large entries report along the way too, so that a progress bar moves and a host can react mid-entry.
    if (!finished && bytesDone - reportedBytes < progressStepBytes) return
    reportedBytes = bytesDone
    await options.onProgress?.({entry, entriesDone, entriesTotal, bytesDone, bytesTotal})
  }
  const modeOf = (entry: ArchiveEntry): number => (executables.has(entry.name) ? 0o755 : 0o644)
  // Hundreds of small files or more are written on a thread of their own (see FileWriter); the rest (and
  // all, when there are few) one file at a time through the thread pool, several at once.
  const small = order.filter((index) => {
    const {entry} = destinations[index]!
    return isSmallEntry(entry) && entry.uncompressedSize <= threadFileMaxBytes && options.preloaded?.get(entry.name) === undefined
  })
  const onThread = worthFileWriter(small.length) ? new Set(small) : new Set<number>()
  const writeOneByOne = (indices: readonly number[]) =>
    forEachConcurrently(indices, options.concurrency ?? 4, async (index) => {
      throwIfCancelled(options.signal)
      const {entry, file} = destinations[index] as {entry: ArchiveEntry; file: string}
      digests.set(entry.name, await writeEntry(archive, entry, file, modeOf(entry), options.preloaded?.get(entry.name), progress))
    })
  // The thread starts while the others are written.
  const starting = onThread.size > 0 ? FileWriter.start({create: createFlags}) : null
  try {
    await writeOneByOne(order.filter((index) => !onThread.has(index)))
    const writer = await starting
    const targets = [...onThread].map((index) => destinations[index] as {entry: ArchiveEntry; file: string})
    // A thread that could not be started (no descriptor or memory left for it) leaves them to be written here.
    if (writer === null) await writeOneByOne([...onThread])
    else await writeSmallOnThread(writer, archive, targets, {modeOf, digests, progress, signal: options.signal})
  } finally {
    await (await starting)?.close()
  }

  // Durability is paid once for the whole version: every file and directory is flushed together, after
  // all are written and before the rename that publishes them.
  await flushTree(root, destinations.map(({file}) => file), [...directories], options.signal)
  // Results in archive order, whatever order the workers finished in.
  return new Map(archive.entries.map((entry) => [entry.name, digests.get(entry.name) as EntryDigest]))
}

/**
 * The entries written on the file-writing thread: files of at most 64 KiB, for which a trip to the thread
 * pool costs more than the writing. Larger ones are written one at a time as before.
 */
const threadFileMaxBytes = 64 * 1024
/** Files a batch holds at most, and bytes (the size of the buffer that carries them). */
const batchFilesMax = 64
const batchBytesMax = 1024 * 1024
/** Batches handed to the thread and not yet written: one being written, one waiting, so that it never idles. */
const batchesInFlight = 2
/** Small entries read ahead of the one taken (see writeSmallOnThread). */
const readsAhead = 8

/** A small entry read, inflated and hashed, waiting in a batch. */
interface ReadEntry {
  entry: ArchiveEntry
  file: string
  data: Buffer
  digest: EntryDigest
}

/**
 * Writes small entries on `writer`'s thread: the main thread reads, inflates and hashes each (as
 * `writeEntry` does), gathers them in batches and hands each to the thread, which creates and writes the
 * files while the next batch is read. The bytes travel in a few buffers that go back and forth. After a
 * failure no batch is handed over any more; once those out are settled, the failure of the earliest entry
 * is thrown, as writing one file after another would meet it: a write's (or the progress hook's) in a
 * batch handed over, else the read's that stopped the reading (what was read before it is handed over
 * first). A cancellation stops at once.
 */
async function writeSmallOnThread(
  writer: FileWriter,
  archive: StrictArchive,
  targets: ReadonlyArray<{entry: ArchiveEntry; file: string}>,
  {modeOf, digests, progress, signal}: {modeOf: (entry: ArchiveEntry) => number; digests: Map<string, EntryDigest>; progress: EntryProgress; signal: AbortSignal | undefined},
): Promise<void> {
  const spare: ArrayBuffer[] = []
  const inFlight: Array<Promise<void>> = []
  // Batches settle in the order they were handed over: the first failure recorded is the earliest entry's.
  let failure: {error: unknown} | null = null
  const handOver = async (batch: readonly ReadEntry[]): Promise<void> => {
    const bytes = new Uint8Array(spare.pop() ?? new ArrayBuffer(batchBytesMax))
    let offset = 0
    const files: NewFile[] = batch.map(({entry, file, data}) => {
      bytes.set(data, offset)
      offset += data.byteLength
      return {file, mode: modeOf(entry), bytes: bytes.subarray(offset - data.byteLength, offset)}
    })
    const {written} = await createFilesOn(writer, files)
    const reported = written.then(async (buffers) => {
      spare.push(...buffers)
      for (const {entry, data, digest} of batch) {
        digests.set(entry.name, digest)
        await progress(entry.name, data.byteLength, false)
        await progress(entry.name, 0, true)
      }
    })
    inFlight.push(
      reported.catch((error: unknown) => {
        failure ??= {error}
      }),
    )
    while (inFlight.length >= batchesInFlight) await inFlight.shift()
  }
  let readFailure: {error: unknown} | null = null
  // Entries are read a few ahead of the one taken, in order: their reads and inflates overlap, while each is
  // still taken (and its failure met) in turn. A read started ahead and not taken is only ever awaited.
  const reads = new Map<number, Promise<{data: Buffer; digest: EntryDigest}>>()
  const readAhead = (index: number): void => {
    if (index >= targets.length) return
    const read = archive.readSmall(targets[index]!.entry)
    read.catch(() => undefined)
    reads.set(index, read)
  }
  for (let index = 0; index < readsAhead; index++) readAhead(index)
  try {
    let batch: ReadEntry[] = []
    let batchBytes = 0
    for (const [index, {entry, file}] of targets.entries()) {
      if (failure !== null) break
      throwIfCancelled(signal)
      let read: {data: Buffer; digest: EntryDigest}
      try {
        read = await reads.get(index)!
        reads.delete(index)
        readAhead(index + readsAhead)
      } catch (error) {
        readFailure = {error}
        break
      }
      if (batch.length === batchFilesMax || batchBytes + read.data.byteLength > batchBytesMax) {
        await handOver(batch)
        batch = []
        batchBytes = 0
      }
      batch.push({entry, file, ...read})
      batchBytes += read.data.byteLength
    }
    if (failure === null && batch.length > 0) {
      throwIfCancelled(signal)
      await handOver(batch)
    }
  } finally {
    // Nothing is written any more once this returns or throws: the batches out settle, and the reads ahead.
    await Promise.all([...inFlight, ...[...reads.values()].map((read) => read.catch(() => undefined))])
  }
  const first = failure ?? readFailure
  if (first !== null) throw (first as {error: unknown}).error
}

/** Reports bytes written to an entry; `finished` once the entry is complete (flushed later, with all the others). */
type EntryProgress = (entry: string, bytes: number, finished: boolean) => Promise<void>

async function writeEntry(
  archive: StrictArchive,
  entry: ArchiveEntry,
  file: string,
  mode: number,
  preloaded: Uint8Array | undefined,
  progress: EntryProgress,
): Promise<EntryDigest> {
  let digest: EntryDigest | null = null
  const handle = await createFile(file, createFlags, mode)
  try {
    // The umask may have narrowed the creation mode; installed files are exactly 0755 (the entrypoint) or 0644.
    await chmodHandle(handle, file, mode)
    if (preloaded !== undefined) {
      await writeAll(handle, file, preloaded)
      digest = {size: preloaded.byteLength, sha256: `sha256:${createHash('sha256').update(preloaded).digest('hex')}`}
      await progress(entry.name, preloaded.byteLength, false)
    } else if (isSmallEntry(entry)) {
      // One read, one inflate, one write: a small entry costs a few trips to the thread pool, not a stream.
      const small = await archive.readSmall(entry)
      await writeAll(handle, file, small.data)
      digest = small.digest
      await progress(entry.name, small.data.byteLength, false)
    } else {
      const stream = await archive.openEntry(entry)
      try {
        // One chunk at a time: memory stays bounded whatever the entry's size. The verified stream
        // hashes as it inflates, so the bytes written are hashed exactly once.
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          await writeAll(handle, file, chunk)
          await progress(entry.name, chunk.byteLength, false)
        }
        digest = stream.digest
      } finally {
        stream.destroy()
      }
    }
  } finally {
    await handle.close()
  }
  if (digest === null) throw new InstallError('io-error', `${entry.name} ended without a digest.`, {details: {entry: entry.name}})
  await progress(entry.name, 0, true)
  return digest
}
