import {SvcPluginError} from '../errors.js'
import type {EntryPathProblem} from './path-policy.js'

/**
 * What went wrong with an archive, coarse enough to act on:
 * - `not-an-artifact`: not a ZIP at all (no end record) or not a regular file; the CLI exits 3.
 * - `file-not-found`: the archive does not exist; `unreadable`: it exists but cannot be read.
 * - `unsafe-entry`: an entry breaks the path policy or is a symlink, FIFO, socket or device (see docs/artifact-format.md).
 * - `limit-exceeded`: an archive limit is broken, declared or real.
 * - `archive-malformed`: the structure lies: stray bytes, headers that disagree, overlaps,
 *   CRC or size lies, duplicate or colliding names, or it holds bytes no header accounts for (entry
 *   comments, extra fields outside their layout, data in a directory entry, padded deflate streams).
 * - `archive-unsupported`: well-formed but outside what we read: ZIP64, encryption, methods other
 *   than stored/deflate, reserved flag bits, extra fields other than the timestamp and owner fields
 *   common writers add (the Info-ZIP Unicode-path field included), multi-disk archives.
 * - `source-changed`: (writer) a file changed between being hashed and being written.
 * - `unreadable` with reason `source-io`: (writer) a source file could not be read.
 *
 * An output the writer cannot write is an OutputError (`output-exists`, `write-failed`), as it is for
 * every other file the library writes.
 */
export type ArchiveErrorCode =
  | 'not-an-artifact'
  | 'file-not-found'
  | 'unreadable'
  | 'unsafe-entry'
  | 'limit-exceeded'
  | 'archive-malformed'
  | 'archive-unsupported'
  | 'source-changed'

/** The fine-grained reason carried in `details.reason`; tests and callers may branch on it. */
export type ArchiveErrorReason =
  // not-an-artifact / file-not-found / unreadable
  | 'no-end-record'
  | 'not-a-file'
  | 'missing'
  | 'io-error'
  | 'archive-closed'
  // unsafe-entry: the path policy, then types and encodings
  | EntryPathProblem
  | 'symlink'
  | 'fifo'
  | 'socket'
  | 'character-device'
  | 'block-device'
  | 'not-a-regular-file'
  | 'special-mode-bits'
  | 'invalid-utf8'
  // limit-exceeded
  | 'too-many-entries'
  | 'archive-too-large'
  | 'entry-too-large'
  | 'total-too-large'
  | 'compression-ratio'
  | 'manifest-too-large'
  | 'read-limit'
  // archive-malformed: layout
  | 'prepended-bytes'
  | 'trailing-bytes'
  | 'archive-comment'
  | 'end-record-invalid'
  | 'central-directory-invalid'
  | 'central-directory-misplaced'
  | 'extra-field-invalid'
  | 'extra-field-duplicate'
  | 'extra-field-layout'
  | 'entry-comment'
  | 'local-header-invalid'
  | 'local-header-name-mismatch'
  | 'local-header-method-mismatch'
  | 'local-header-flags-mismatch'
  | 'local-header-size-mismatch'
  | 'local-header-crc-mismatch'
  | 'data-descriptor-mismatch'
  | 'stored-size-mismatch'
  | 'directory-entry-with-data'
  | 'deflate-expansion'
  | 'overlapping-entries'
  | 'gap-between-entries'
  // archive-malformed: names
  | 'duplicate-name'
  | 'case-collision'
  | 'nfc-collision'
  | 'file-directory-collision'
  // archive-malformed: data, found while streaming
  | 'crc-mismatch'
  | 'deflate-length-mismatch'
  | 'deflate-invalid'
  | 'entry-larger-than-declared'
  | 'entry-smaller-than-declared'
  | 'file-changed'
  // archive-unsupported
  | 'zip64'
  | 'encrypted'
  | 'unsupported-method'
  | 'unicode-path-extra'
  | 'extra-field-unknown'
  | 'unsupported-flags'
  | 'multi-disk'
  // writer
  | 'size-changed'
  | 'digest-changed'
  | 'source-missing'
  | 'source-not-regular'
  | 'source-moved'
  | 'source-io'

/** Machine-readable facts of an {@link ArchiveError}: always a reason, the entry name when one is to blame. */
export interface ArchiveErrorDetails {
  reason: ArchiveErrorReason
  entry?: string
  [key: string]: unknown
}

/** Thrown (or emitted by an entry stream) when an archive cannot be read or written safely. */
export class ArchiveError extends SvcPluginError<ArchiveErrorCode> {
  declare readonly details: Readonly<ArchiveErrorDetails>

  constructor(code: ArchiveErrorCode, message: string, details: ArchiveErrorDetails, options: {cause?: unknown} = {}) {
    super(code, message, {details, cause: options.cause})
  }
}

/** True when `error` is an {@link ArchiveError}, optionally with the given code. */
export function isArchiveError(error: unknown, code?: ArchiveErrorCode): error is ArchiveError {
  return error instanceof ArchiveError && (code === undefined || error.code === code)
}

/**
 * True when the archive's file itself could not be read: it is missing, it is not a regular file (a folder,
 * a FIFO), or reading it failed (an I/O error). That is a fault of where the file is kept, not of its bytes;
 * bytes that are not a ZIP, or a ZIP that lies, are judged instead.
 */
export function isUnreadableFile(error: unknown): error is ArchiveError {
  if (!(error instanceof ArchiveError)) return false
  return error.code === 'file-not-found' || error.code === 'unreadable' || (error.code === 'not-an-artifact' && error.details.reason === 'not-a-file')
}
