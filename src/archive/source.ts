import {createHash, type Hash} from 'node:crypto'
import {constants} from 'node:fs'
import {PassThrough, Readable, Transform, type TransformCallback} from 'node:stream'
import {ArchiveError} from './errors.js'
import {FdRangeStream, closeFd, openFd, readAt, statFd} from './fd.js'
import {quoteName} from './path-policy.js'

/** Where the writer takes an entry's bytes from. */
export type WriterSource =
  /** Bytes already in memory (the manifest, a certificate). */
  | {kind: 'buffer'; data: Buffer}
  /** A file hashed earlier by the caller: it is hashed again as it is written and must not have changed. */
  | {kind: 'file'; path: string; size: number; sha256: string}
  /** Bytes from a stream the caller opens on demand (e.g. another archive's entry), held to the same size and digest. */
  | {kind: 'stream'; open: () => Readable | Promise<Readable>; size: number; sha256: string}

/** The declared size of a source. */
export function sourceSize(source: WriterSource): number {
  return source.kind === 'buffer' ? source.data.length : source.size
}

/** The 64 lowercase hex digits of a `sha256:<hex>` (or bare hex) digest; throws a RangeError otherwise. */
export function digestHex(digest: string, name: string): string {
  const match = /^(?:sha256:)?([0-9a-f]{64})$/i.exec(digest)
  if (match === null) throw new RangeError(`The digest given for ${quoteName(name)} is not a SHA-256 digest: ${JSON.stringify(digest)}.`)
  return match[1]!.toLowerCase()
}

// Refuse to follow a symlink swapped in since hashing, and never block opening a FIFO swapped in.
const openFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * Reads a whole source into memory after proving it still has the size and SHA-256 the caller
 * hashed (DESIGN §6: `files[]` must never lie about the archive).
 */
export async function readSource(name: string, source: WriterSource): Promise<Buffer> {
  if (source.kind === 'buffer') return source.data
  if (source.kind === 'stream') {
    const check = new SourceCheck(name, source.size, source.sha256)
    const chunks: Buffer[] = []
    for await (const chunk of pipeSource(await source.open(), check)) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  }
  const fd = await openSourceFile(name, source)
  try {
    // One byte more than expected: a file that grew is caught by the same read.
    const read = await readAt(fd, source.size + 1, 0)
    if (read.length !== source.size) throw sizeChanged(name, source.size, read.length)
    const data = read.subarray(0, source.size)
    const actual = createHash('sha256').update(data).digest('hex')
    if (actual !== digestHex(source.sha256, name)) throw digestChanged(name)
    return data
  } catch (error) {
    throw sourceError(name, source, error)
  } finally {
    await closeFd(fd).catch(() => undefined)
  }
}

/** Streams a source, checking its size and SHA-256 as the bytes pass; the stream errors with an ArchiveError on any change. */
export async function streamSource(name: string, source: WriterSource): Promise<Readable> {
  if (source.kind === 'buffer') {
    const stream = new PassThrough()
    stream.end(source.data)
    return stream
  }
  const check = new SourceCheck(name, source.size, source.sha256)
  if (source.kind === 'stream') return pipeSource(await source.open(), check)
  const fd = await openSourceFile(name, source)
  const file = new FdRangeStream(fd, {start: 0, end: Infinity, ownsFd: true, chunkSize: 256 * 1024})
  file.on('error', (error) => check.destroy(sourceError(name, source, error)))
  check.on('close', () => file.destroy())
  return file.pipe(check)
}

function pipeSource(input: Readable, check: SourceCheck): SourceCheck {
  input.on('error', (error) => check.destroy(error instanceof ArchiveError ? error : sourceError(check.name, null, error)))
  check.on('close', () => input.destroy())
  return input.pipe(check)
}

async function openSourceFile(name: string, source: {path: string; size: number}): Promise<number> {
  let fd: number
  try {
    fd = await openFd(source.path, openFlags)
  } catch (error) {
    throw sourceError(name, source, error)
  }
  try {
    const stats = await statFd(fd)
    if (!stats.isFile()) {
      throw new ArchiveError('source-changed', `${source.path} (entry ${quoteName(name)}) is no longer a regular file.`, {reason: 'source-not-regular', entry: name, path: source.path})
    }
    if (stats.size !== source.size) throw sizeChanged(name, source.size, stats.size)
    return fd
  } catch (error) {
    await closeFd(fd).catch(() => undefined)
    throw sourceError(name, source, error)
  }
}

/** Counts and hashes a source's bytes, failing at the first byte past the expected size and, at the end, on any difference. */
class SourceCheck extends Transform {
  readonly #hash: Hash = createHash('sha256')
  readonly #expectedHex: string
  #size = 0

  constructor(
    readonly name: string,
    readonly expectedSize: number,
    expectedDigest: string,
  ) {
    super()
    this.#expectedHex = digestHex(expectedDigest, name)
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#size += chunk.length
    if (this.#size > this.expectedSize) return callback(sizeChanged(this.name, this.expectedSize, this.#size))
    this.#hash.update(chunk)
    callback(null, chunk)
  }

  override _flush(callback: TransformCallback): void {
    if (this.#size !== this.expectedSize) return callback(sizeChanged(this.name, this.expectedSize, this.#size))
    if (this.#hash.digest('hex') !== this.#expectedHex) return callback(digestChanged(this.name))
    callback()
  }
}

function sizeChanged(name: string, expected: number, actual: number): ArchiveError {
  return new ArchiveError('source-changed', `The source of entry ${quoteName(name)} is now ${actual > expected ? 'larger than' : `${actual} bytes, not`} the ${expected} bytes it had when it was hashed.`, {
    reason: 'size-changed',
    entry: name,
    expected,
    actual,
  })
}

function digestChanged(name: string): ArchiveError {
  return new ArchiveError('source-changed', `The source of entry ${quoteName(name)} changed since it was hashed: its SHA-256 differs.`, {reason: 'digest-changed', entry: name})
}

function sourceError(name: string, source: {path: string} | null, error: unknown): ArchiveError {
  if (error instanceof ArchiveError) return error
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  const where = source === null ? `The source of entry ${quoteName(name)}` : `${source.path} (entry ${quoteName(name)})`
  const path = source === null ? {} : {path: source.path}
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ArchiveError('source-changed', `${where} disappeared since it was hashed.`, {reason: 'source-missing', entry: name, ...path}, {cause: error})
  }
  if (code === 'ELOOP') {
    return new ArchiveError('source-changed', `${where} became a symbolic link since it was hashed.`, {reason: 'source-not-regular', entry: name, ...path}, {cause: error})
  }
  const message = error instanceof Error ? error.message : String(error)
  return new ArchiveError('write-failed', `${where} cannot be read: ${message}`, {reason: 'source-io', entry: name, ...path}, {cause: error})
}
