import {ArchiveError, isArchiveError} from '../archive/errors.js'
import {adviseForeignArchive} from '../archive/foreign.js'
import {cancellable} from '../cancellation.js'
import {resolveLimits} from '../archive/limits.js'
import {isSmallEntry} from '../archive/entry-stream.js'
import {useWorkers} from '../archive/worker-use.js'
import {openArchive} from '../archive/reader.js'
import type {ArchiveEntry, ArchiveLimits, EntryDigest, StrictArchive} from '../archive/types.js'
import {manifestEntryName} from '../manifest/declared-files.js'
import {startContainerEvidence} from './container.js'
import {type ArtifactContents, contentsOf, isKeptSigningFile, manifestRead, type ManifestRead} from './contents.js'
import type {MemberWant} from './entry-workers.js'
import {artifactAdvice, classifyInput, wrongInput} from './input-kind.js'

/** Options of {@link openArtifact}. */
export interface OpenArtifactOptions {
  /** Overrides of the archive limits; each unset field keeps its default. */
  limits?: Partial<ArchiveLimits>
  /** Also compute the SHA-256 of the whole file (`fileSha256`). */
  fileDigest?: boolean
  /**
   * Compute the container evidence of a manifest that claims a container digest (default true). A reader
   * that does not judge the container (`reproduce`) passes false and reads the file once.
   */
  containerEvidence?: boolean
  /**
   * Cancels every read of the artifact, its opening, `contents()` (the secret scan's waits included) and the
   * entry streams of `archive`: each rejects with the `AbortError` of `src/cancellation.ts` once it is aborted.
   */
  signal?: AbortSignal
}

/**
 * A `.svcPlugin` opened once through the strict reader, its manifest read and parsed once. Everything
 * that reads an artifact (validate, inspect, verify, sign, merge, the store, install) goes through this.
 */
export interface OpenedArtifact {
  readonly path: string
  /** Size of the artifact file in bytes. */
  readonly size: number
  /** `sha256:` + hex SHA-256 of the whole file, when asked for; null otherwise. */
  readonly fileSha256: string | null
  readonly limits: ArchiveLimits
  /** Every file entry, in central-directory order. */
  readonly entries: readonly ArchiveEntry[]
  /** manifest.json, null when the artifact has none; it carries the file's container evidence. */
  readonly manifest: ManifestRead | null
  /** The strict archive, for a consumer that streams entries itself (signing, merging, extracting). */
  readonly archive: StrictArchive
  /**
   * Reads every other entry once (inflated, checked, hashed) and returns the contents; the signing files are
   * kept in memory. With `secrets`, the entries are also looked into for secrets (`secrets` of the result).
   */
  contents(options?: {secrets?: boolean}): Promise<ArtifactContents>
  close(): Promise<void>
}

/**
 * Opens an artifact through every check of the strict reader, reads its manifest and starts computing its
 * container evidence (`ManifestRead.container`, in the background). Throws the reader's
 * `ArchiveError` (a missing file, not a ZIP, a hostile archive), with advice when another tool made the
 * archive (`archive/foreign.ts`); the caller closes what it gets.
 */
export async function openArtifact(file: string, options: OpenArtifactOptions = {}): Promise<OpenedArtifact> {
  const limits = resolveLimits(options.limits)
  const archive = await openArchive(file, {limits, fileDigest: options.fileDigest, signal: options.signal}).catch(async (error: unknown) => {
    throw await namedForWhatItIs(adviseForeignArchive(error), file)
  })
  try {
    const entry = archive.get(manifestEntryName)
    if (entry === undefined) return new Opened(archive, limits, null, options.signal)
    const bytes = await archive.readEntry(entry, limits.maxManifestBytes)
    // The container is hashed from now on, while the entries are read (by contents(), or by an installer).
    if (options.containerEvidence === false) return new Opened(archive, limits, manifestRead(bytes), options.signal)
    return new Opened(archive, limits, {...manifestRead(bytes), container: startContainerEvidence(archive, entry, bytes)}, options.signal)
  } catch (error) {
    await archive.close()
    throw adviseForeignArchive(error)
  }
}

/**
 * The reader's `not-an-artifact` for a folder or a manifest, said as what it is and what takes it
 * (`plugin is a folder, not a .svcPlugin artifact. Pack it with …`); any other refusal as it is.
 */
async function namedForWhatItIs(error: unknown, file: string): Promise<unknown> {
  if (!isArchiveError(error, 'not-an-artifact')) return error
  const found = await classifyInput(file, file).catch(() => null)
  if (found !== 'folder' && found !== 'manifest') return error
  const named = wrongInput(file, found, 'artifact', artifactAdvice(file, found))
  return new ArchiveError('not-an-artifact', named.message, {...error.details, found, expected: 'artifact'}, {cause: error})
}

/** Opens an artifact, hands it to `use` and closes it, whatever `use` does. */
export async function withArtifact<T>(file: string, options: OpenArtifactOptions, use: (artifact: OpenedArtifact) => Promise<T>): Promise<T> {
  const artifact = await openArtifact(file, options)
  try {
    return await use(artifact)
  } finally {
    await artifact.close()
  }
}

/**
 * Worth starting digesting workers for: at least this many small entries, holding at least this many bytes,
 * this many a piece on average, and at least half of all the bytes to read. Starting a worker costs about
 * what digesting a few MiB of entries does; the main thread's own work per entry (its digest recorded, its
 * name judged) stays, so for entries of a few hundred bytes workers only add it (measured on 19,990 of 512
 * bytes: 1.09 to 1.14 of the time without); and where large entries make up most of the bytes, they keep the
 * thread pool busy already (measured on a tree of two native libraries of 20 MiB beside 500 small files: 1.03).
 */
const workerEntriesMin = 128
const workerBytesMin = 4 * 1024 * 1024
const workerBytesPerEntryMin = 8 * 1024

/** Whether the small entries among `entries` are worth starting digesting workers for (`entry-workers.ts`; see `workerUse`). */
function worthDigestWorkers(entries: readonly ArchiveEntry[]): boolean {
  const small = entries.filter(isSmallEntry)
  const bytes = small.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
  const total = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
  return useWorkers(small.length >= workerEntriesMin && bytes >= workerBytesMin && bytes >= workerBytesPerEntryMin * small.length && 2 * bytes >= total, small.length > 0)
}

class Opened implements OpenedArtifact {
  readonly path: string
  readonly size: number
  readonly fileSha256: string | null
  readonly entries: readonly ArchiveEntry[]
  readonly #contents: {plain?: Promise<ArtifactContents>; withSecrets?: Promise<ArtifactContents>} = {}

  constructor(
    readonly archive: StrictArchive,
    readonly limits: ArchiveLimits,
    readonly manifest: ManifestRead | null,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.path = archive.path
    this.size = archive.size
    this.fileSha256 = archive.fileSha256
    this.entries = archive.entries
  }

  contents(options: {secrets?: boolean} = {}): Promise<ArtifactContents> {
    const key = options.secrets === true ? 'withSecrets' : 'plain'
    // Contents read with secrets serve a caller without them too.
    const cached = this.#contents.withSecrets ?? (key === 'plain' ? this.#contents.plain : undefined)
    if (cached !== undefined) return cached
    const read = this.#read(options.secrets === true).catch((error: unknown) => {
      throw adviseForeignArchive(error)
    })
    this.#contents[key] = read
    return read
  }

  async #read(secrets: boolean): Promise<ArtifactContents> {
    const kept = new Map<string, Uint8Array>()
    // The secret scanner is loaded only by the commands that look for secrets.
    const scanner = secrets ? new (await import('./secrets.js')).SecretScanner() : null
    const judged = new Set<string>()
    const skip = new Set([manifestEntryName])
    // Not async: a promise is made only when there is something to wait for (once per entry, it cost more
    // than judging a small entry's bytes).
    const keep = (entry: ArchiveEntry, bytes: Buffer | null): Promise<void> | undefined => {
      // A copy: the bytes may be a view of a larger buffer (a batch of entries read at once).
      if (bytes !== null && isKeptSigningFile(entry.name, entry.uncompressedSize)) kept.set(entry.name, Uint8Array.prototype.slice.call(bytes))
      scanner?.add(entry.name, bytes)
      judged.add(entry.name)
      const room = scanner?.room()
      return room === undefined ? undefined : cancellable(room, this.signal)
    }
    // Many small entries are checked and hashed on every core, each first looked at there for secrets.
    const workers = worthDigestWorkers(this.entries.filter((entry) => !skip.has(entry.name))) ? new (await import('./entry-workers.js')).DigestWorkers() : null
    const want = (entry: ArchiveEntry): MemberWant => (isKeptSigningFile(entry.name, entry.uncompressedSize) ? 'keep' : scanner === null ? null : 'look')
    let files: Map<string, EntryDigest>
    try {
      files = await this.archive.digestEntries({skip, keep, ...(workers === null ? {} : {digestBatch: (members, compressed) => workers.digest(members, compressed, want)})})
    } finally {
      await workers?.close()
    }
    // An entry too large to be held whole is still judged by its name.
    if (scanner !== null) for (const name of files.keys()) if (!judged.has(name)) scanner.add(name, null)
    const contents = await contentsOf(this.manifest, files, (name) => kept.get(name) ?? this.archive.readEntry(this.archive.get(name)!, this.limits.maxManifestBytes))
    return scanner === null ? contents : {...contents, secrets: await cancellable(scanner.findings(), this.signal)}
  }

  close(): Promise<void> {
    return this.archive.close()
  }
}
