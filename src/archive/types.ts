import type {Readable} from 'node:stream'
import type {ByteRange} from './file-digest.js'

/** Archive limits; every field is overridable by a library caller. */
export interface ArchiveLimits {
  maxEntries: number
  maxArchiveBytes: number
  maxEntryBytes: number
  maxTotalBytes: number
  /** Total uncompressed bytes ÷ archive bytes above this is refused. */
  maxCompressionRatio: number
  maxManifestBytes: number
}

/** One file entry of an archive, as its central directory declares it (directory entries are dropped). */
export interface ArchiveEntry {
  /** The entry's path, already judged by the entry-path policy. */
  name: string
  method: 0 | 8
  compressedSize: number
  uncompressedSize: number
  crc32: number
  /** Unix mode bits from the external attributes (type and permissions, e.g. 0o100755), 0 when the archive carries none. */
  mode: number
}

/** Size and digest of one entry's real bytes. */
export interface EntryDigest {
  size: number
  /** `sha256:` + 64 lowercase hex digits. */
  sha256: string
}

/** A stream of one entry's verified bytes (it errors with an ArchiveError on any lie). */
export interface EntryStream extends Readable {
  /** The entry's real size and SHA-256, set once the stream has ended without error; null before. */
  readonly digest: EntryDigest | null
}

/** Where an entry's records and data lie in the archive file (byte offsets). */
export interface EntryLocation {
  /** The entry's local file header. */
  localHeader: number
  /** The first byte of its file data (compressed, or stored as it is). */
  data: number
  /** Its central-directory record. */
  centralRecord: number
}

/** Options of {@link StrictArchive.digestEntries}. */
export interface DigestOptions {
  /** Entries not to digest (one whose bytes the caller already read, such as the manifest). */
  skip?: ReadonlySet<string>
  /**
   * Handed the verified bytes of each small entry (at most 1 MiB) as it is digested, so a caller can keep
   * (a copy of) or look into a few without inflating them again; awaited, so what it holds is bounded by the
   * reads in flight. The bytes may be a view of a buffer the reader reuses as soon as the call returns (before
   * its promise settles): a caller reads them at once, or copies them. Null for an entry whose bytes
   * `digestBatch` did not hand on.
   */
  keep?: (entry: ArchiveEntry, bytes: Buffer | null) => void | Promise<void>
  /**
   * Verifies and digests small entries elsewhere (on worker threads) instead of on this thread, a batch at
   * a time: given the batch's members and its bytes as the file holds them (a buffer of their own), it
   * resolves to each member's digest and the bytes it hands on to `keep` (null for none), in order, or
   * rejects with the ArchiveError of the first member that lies, the one this thread would have found.
   * Null: it declines the batch (its threads are busy), which is then digested on this thread.
   */
  digestBatch?: (members: readonly BatchMember[], compressed: Buffer) => Promise<DigestedMember[]> | null
}

/** A small entry of a batch, and where its data starts in the batch's bytes. */
export interface BatchMember {
  entry: ArchiveEntry
  offset: number
}

/** A batch member's digest, and its verified bytes when they are handed on. */
export interface DigestedMember {
  digest: EntryDigest
  bytes: Buffer | null
}

/**
 * An archive that passed every structural check of the strict reader that can be made before
 * inflating. Bytes handed out are checked while they stream (CRC, exact sizes, caps).
 */
export interface StrictArchive {
  readonly path: string
  /** Size of the archive file in bytes. */
  readonly size: number
  /** `sha256:` + hex SHA-256 of the whole file, when it was asked for when opening; null otherwise. */
  readonly fileSha256: string | null
  readonly limits: ArchiveLimits
  /** File entries in central-directory order. */
  readonly entries: readonly ArchiveEntry[]
  /** The entry with exactly this name, if any. */
  get(name: string): ArchiveEntry | undefined
  /** Streams an entry's verified bytes; the stream errors with an ArchiveError on any lie. */
  openEntry(entry: ArchiveEntry): Promise<EntryStream>
  /**
   * Reads a small entry (at most 1 MiB compressed and inflated, see `isSmallEntry`) in one piece: one read,
   * one inflate, the same checks as a stream. Returns its verified bytes and their digest; a larger entry is
   * a RangeError (stream it instead).
   */
  readSmall(entry: ArchiveEntry): Promise<{data: Buffer; digest: EntryDigest}>
  /** Reads a whole entry into memory; refuses entries declared larger than `maxBytes`. */
  readEntry(entry: ArchiveEntry, maxBytes?: number): Promise<Buffer>
  /** Reads every entry once (but those skipped) and returns each one's real size and SHA-256, in archive order. */
  digestEntries(options?: DigestOptions): Promise<Map<string, EntryDigest>>
  /** Where the entry's local header, data and central record lie in the file. */
  locate(entry: ArchiveEntry): EntryLocation
  /**
   * Streams an entry's data exactly as the archive holds it (compressed, unchecked: whoever copies it must
   * have verified the entry, or verify the copy), for copying it into another archive without inflating it.
   */
  openCompressed(entry: ArchiveEntry): Readable
  /**
   * Starts hashing the whole file through the descriptor it was opened with, each byte of `zeroed` counted
   * as 0x00 (see `archive/file-digest.ts`); resolves to 64 lowercase hex digits. A file over 1 MiB is read on
   * the thread pool, in order, while the caller reads entries; closing the archive stops it.
   */
  digestFile(zeroed: readonly ByteRange[]): Promise<string>
  close(): Promise<void>
}
