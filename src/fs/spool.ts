import {mkdtemp, open, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {throwIfCancelled} from '../cancellation.js'
import {InputFileError} from './input.js'
import {writeFailed} from './output.js'
import {trackCreatedFolder, trackTemporaryFile} from './temporary-files.js'

/**
 * Bytes a reader that works on a file (the strict archive reader: positioned reads on one descriptor) is
 * handed in memory or as a stream: they are written to a private temporary file first, read from there, and
 * the file is removed afterwards, whatever happens.
 */

/** Bytes in memory, or a stream of them: a web `ReadableStream`, a Node `Readable`, any async iterable of `Uint8Array`. */
export type SpoolSource = Uint8Array | AsyncIterable<unknown>

/** Options of {@link withSpooledFile}. */
export interface SpoolOptions {
  /** The most bytes the file may hold; a source with more is refused at the first chunk past it, nothing more read. */
  maxBytes: number
  /** The error for a source of more than `maxBytes` (`atLeast` bytes so far). */
  tooLarge: (atLeast: number) => Error
  /** Cancels the spooling between chunks (the `AbortError` of `src/cancellation.ts`). */
  signal?: AbortSignal
  /** The file's name in its private folder (default `upload.svcPlugin`). */
  name?: string
}

/**
 * Writes `source` to a new file in a folder of its own under the system's temporary folder (readable by
 * this user alone: the folder 0700, the file 0600), hands its path to `use`, and removes both afterwards
 * whether `use` succeeded or not (and on Ctrl-C of a command). Memory stays bounded by one chunk of the
 * stream. A stream that fails is `unreadable` (an InputFileError: the upload could not be read); a chunk that
 * is not bytes is a TypeError; a temporary file that cannot be written is `write-failed`.
 */
export async function withSpooledFile<T>(source: SpoolSource, options: SpoolOptions, use: (file: string) => Promise<T>): Promise<T> {
  throwIfCancelled(options.signal)
  // Bytes in memory over the limit are refused before anything is written.
  if (source instanceof Uint8Array && source.byteLength > options.maxBytes) throw options.tooLarge(source.byteLength)
  let folder: string
  try {
    folder = await mkdtemp(path.join(tmpdir(), 'svc-plugin-spool-'))
  } catch (error) {
    throw writeFailed(path.join(tmpdir(), 'svc-plugin-spool-*'), error)
  }
  const forgetFolder = trackCreatedFolder(folder)
  const file = path.join(folder, options.name ?? 'upload.svcPlugin')
  const forgetFile = trackTemporaryFile(file)
  try {
    await spool(source, file, options)
    return await use(file)
  } finally {
    await rm(folder, {recursive: true, force: true}).catch(() => undefined)
    forgetFile()
    forgetFolder()
  }
}

/** Writes every chunk of `source` to the new file `file`, holding the limit and the signal between chunks. */
async function spool(source: SpoolSource, file: string, options: SpoolOptions): Promise<void> {
  const handle = await open(file, 'wx', 0o600).catch((error: unknown) => {
    throw writeFailed(file, error)
  })
  try {
    const chunks: AsyncIterable<unknown> | Iterable<Uint8Array> = source instanceof Uint8Array ? [source] : source
    let written = 0
    for await (const chunk of streamChunks(chunks)) {
      throwIfCancelled(options.signal)
      if (!(chunk instanceof Uint8Array)) throw new TypeError(`An upload stream must give bytes (Uint8Array or Buffer), not ${describe(chunk)}.`)
      written += chunk.byteLength
      // Leaving the loop ends the stream: nothing past the limit is read.
      if (written > options.maxBytes) throw options.tooLarge(written)
      await handle.write(chunk).catch((error: unknown) => {
        throw writeFailed(file, error)
      })
    }
  } finally {
    await handle.close().catch(() => undefined)
  }
}

/** The chunks of a stream; a failure of the stream itself becomes `unreadable`. */
async function* streamChunks(chunks: AsyncIterable<unknown> | Iterable<Uint8Array>): AsyncGenerator<unknown> {
  const iterator = Symbol.asyncIterator in chunks ? chunks[Symbol.asyncIterator]() : chunks[Symbol.iterator]()
  try {
    for (;;) {
      let next: IteratorResult<unknown>
      try {
        next = await iterator.next()
      } catch (error) {
        throw new InputFileError('unreadable', `The upload stream failed: ${error instanceof Error ? error.message : String(error)}`, {cause: error, details: {path: null}})
      }
      if (next.done === true) return
      yield next.value
    }
  } finally {
    // Stops the stream (a web stream is cancelled, a Node stream destroyed) when reading ends early.
    await Promise.resolve(iterator.return?.()).catch(() => undefined)
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'string') return 'a string (set no encoding on the stream)'
  return typeof value === 'object' ? `an object (${(value as object).constructor?.name ?? 'Object'})` : `a ${typeof value}`
}
