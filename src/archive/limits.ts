import {ArchiveError} from './errors.js'
import {quoteName} from './path-policy.js'
import type {ArchiveLimits} from './types.js'
import {formatMiB, plural} from '../quantities.js'

const MiB = 1024 * 1024

/** The default limits (docs/artifact-format.md, "Limits"). */
export const defaultArchiveLimits: Readonly<ArchiveLimits> = Object.freeze({
  maxEntries: 20_000,
  maxArchiveBytes: 512 * MiB,
  maxEntryBytes: 512 * MiB,
  maxTotalBytes: 1024 * MiB,
  maxCompressionRatio: 100,
  maxManifestBytes: 8 * MiB,
})

/** The name of the manifest entry, whose size has its own limit. */
export const manifestEntryName = 'manifest.json'

/**
 * The default limits with a caller's overrides applied (undefined fields keep the default).
 * Throws a RangeError for an override that is not a positive number: that is a bug in the caller.
 */
export function resolveLimits(partial: Partial<ArchiveLimits> = {}): ArchiveLimits {
  const limits: ArchiveLimits = {...defaultArchiveLimits}
  for (const key of Object.keys(defaultArchiveLimits) as (keyof ArchiveLimits)[]) {
    const value = partial[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !(value > 0)) throw new RangeError(`Archive limit ${key} must be a positive number, got ${String(value)}.`)
    limits[key] = value
  }
  return limits
}

/** Refuses an archive file larger than the limit. */
export function checkArchiveSize(limits: ArchiveLimits, bytes: number): void {
  if (bytes > limits.maxArchiveBytes) throw archiveTooLarge(limits, bytes)
}

/** The refusal of an archive of `bytes` bytes over the size limit (`atLeast`: of a stream cut off there). */
export function archiveTooLarge(limits: ArchiveLimits, bytes: number, atLeast = false): ArchiveError {
  return new ArchiveError('limit-exceeded', `The archive is ${atLeast ? 'at least ' : ''}${formatMiB(bytes)}; the limit is ${formatMiB(limits.maxArchiveBytes)}.`, {
    reason: 'archive-too-large',
    limit: limits.maxArchiveBytes,
    actual: bytes,
  })
}

/** Refuses more entries than the limit (directory entries count: they cost the reader as much). */
export function checkEntryCount(limits: ArchiveLimits, count: number): void {
  if (count > limits.maxEntries) {
    throw new ArchiveError('limit-exceeded', `The archive has ${plural(count, 'entry', 'entries')}; the limit is ${limits.maxEntries}.`, {
      reason: 'too-many-entries',
      limit: limits.maxEntries,
      actual: count,
    })
  }
}

/** Refuses a total uncompressed size more than `maxCompressionRatio` times the archive's size. */
export function checkCompressionRatio(limits: ArchiveLimits, totalBytes: number, archiveBytes: number): void {
  if (totalBytes > archiveBytes * limits.maxCompressionRatio) {
    const ratio = Math.round((totalBytes / Math.max(archiveBytes, 1)) * 10) / 10
    throw new ArchiveError(
      'limit-exceeded',
      `The archive unpacks to ${formatMiB(totalBytes)} from ${formatMiB(archiveBytes)}, a ratio of ${ratio}; the limit is ${limits.maxCompressionRatio}.`,
      {reason: 'compression-ratio', limit: limits.maxCompressionRatio, actual: ratio, totalBytes, archiveBytes},
    )
  }
}

/**
 * Adds up entry sizes against the per-entry, manifest and total limits, throwing at the first one
 * broken, so that an archive is refused as soon as its central directory says too much.
 */
export class SizeTally {
  /** Uncompressed bytes counted so far. */
  total = 0

  constructor(private readonly limits: ArchiveLimits) {}

  /** Counts one file entry of `size` uncompressed bytes. */
  add(name: string, size: number): void {
    const {limits} = this
    if (name === manifestEntryName && size > limits.maxManifestBytes) {
      throw new ArchiveError('limit-exceeded', `Entry ${quoteName(name)} is ${formatMiB(size)}; the manifest may hold at most ${formatMiB(limits.maxManifestBytes)}.`, {
        reason: 'manifest-too-large',
        entry: name,
        limit: limits.maxManifestBytes,
        actual: size,
      })
    }
    if (size > limits.maxEntryBytes) {
      throw new ArchiveError('limit-exceeded', `Entry ${quoteName(name)} is ${formatMiB(size)} uncompressed; one entry may hold at most ${formatMiB(limits.maxEntryBytes)}.`, {
        reason: 'entry-too-large',
        entry: name,
        limit: limits.maxEntryBytes,
        actual: size,
      })
    }
    this.total += size
    if (this.total > limits.maxTotalBytes) {
      throw new ArchiveError(
        'limit-exceeded',
        `With entry ${quoteName(name)} the archive holds ${formatMiB(this.total)} uncompressed; the limit is ${formatMiB(limits.maxTotalBytes)}.`,
        {reason: 'total-too-large', entry: name, limit: limits.maxTotalBytes, actual: this.total},
      )
    }
  }
}
