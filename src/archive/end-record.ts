import {ArchiveError} from './errors.js'
import {readAt} from './fd.js'

/** Signatures and sizes of the ZIP records read here (APPNOTE 4.3). */
export const zipSignature = {
  localHeader: 0x04034b50,
  centralHeader: 0x02014b50,
  dataDescriptor: 0x08074b50,
  endRecord: 0x06054b50,
  zip64EndRecord: 0x06064b50,
  zip64Locator: 0x07064b50,
} as const

const endRecordSize = 22
const zip64LocatorSize = 20
const maxCommentLength = 0xffff

/** Where the central directory is, as the end record says after every check of {@link readEndRecord}. */
export interface EndRecord {
  entryCount: number
  centralDirectoryOffset: number
  centralDirectorySize: number
  /** Offset of the end record itself: the archive's size minus 22. */
  offset: number
}

/**
 * Finds and judges the end-of-central-directory record before yauzl sees the file:
 * it must be the last 22 bytes (no comment, nothing appended), describe a single-disk, non-ZIP64
 * archive, and the central directory must end exactly where it starts (nothing in between and,
 * with the layout check of the local headers, nothing prepended).
 */
export async function readEndRecord(fd: number, size: number): Promise<EndRecord> {
  if (size < endRecordSize) throw noEndRecord(size)
  const tailLength = Math.min(size, endRecordSize + maxCommentLength + zip64LocatorSize)
  const tail = await readAt(fd, tailLength, size - tailLength)
  const at = findLastEndRecord(tail)
  if (at === -1) throw noEndRecord(size)

  const end = tail.length - endRecordSize
  if (at !== end) {
    const trailing = tail.length - at - endRecordSize
    if (tail.readUInt16LE(at + 20) === trailing) {
      throw new ArchiveError('archive-malformed', `The archive ends with a ${trailing}-byte comment; artifacts carry none.`, {
        reason: 'archive-comment',
        bytes: trailing,
      })
    }
    throw new ArchiveError('archive-malformed', `${trailing} bytes follow the end-of-central-directory record.`, {reason: 'trailing-bytes', bytes: trailing})
  }
  const commentLength = tail.readUInt16LE(end + 20)
  if (commentLength !== 0) {
    throw new ArchiveError('archive-malformed', `The end record announces a ${commentLength}-byte comment past the end of the file.`, {
      reason: 'end-record-invalid',
    })
  }
  // ZIP64 is refused outright: its locator sits right before the end record, and 0xffffffff fields defer to it.
  if (end >= zip64LocatorSize && tail.readUInt32LE(end - zip64LocatorSize) === zipSignature.zip64Locator) {
    throw zip64('The archive has a ZIP64 end-of-central-directory locator.')
  }
  const centralDirectorySize = tail.readUInt32LE(end + 12)
  const centralDirectoryOffset = tail.readUInt32LE(end + 16)
  if (centralDirectorySize === 0xffffffff || centralDirectoryOffset === 0xffffffff) {
    throw zip64('The end record defers the central directory to a ZIP64 record.')
  }
  const disk = tail.readUInt16LE(end + 4)
  const centralDirectoryDisk = tail.readUInt16LE(end + 6)
  const entriesOnDisk = tail.readUInt16LE(end + 8)
  const entryCount = tail.readUInt16LE(end + 10)
  if (disk !== 0 || centralDirectoryDisk !== 0 || entriesOnDisk !== entryCount) {
    throw new ArchiveError('archive-unsupported', 'The archive spans several disks.', {reason: 'multi-disk'})
  }

  const offset = size - endRecordSize
  if (centralDirectoryOffset + centralDirectorySize !== offset) {
    // An archive with bytes glued in front and offsets left unadjusted: the central directory
    // really starts `shift` bytes later than the end record says.
    const actualStart = offset - centralDirectorySize
    if (centralDirectoryOffset < actualStart && entryCount > 0) {
      const probe = await readAt(fd, 4, actualStart)
      if (probe.length === 4 && probe.readUInt32LE(0) === zipSignature.centralHeader) {
        throw new ArchiveError('archive-malformed', `${actualStart - centralDirectoryOffset} bytes precede the archive's first entry.`, {
          reason: 'prepended-bytes',
          bytes: actualStart - centralDirectoryOffset,
        })
      }
    }
    throw new ArchiveError(
      'archive-malformed',
      `The central directory (offset ${centralDirectoryOffset}, ${centralDirectorySize} bytes) does not end where the end record starts (${offset}).`,
      {reason: 'central-directory-misplaced', centralDirectoryOffset, centralDirectorySize},
    )
  }
  return {entryCount, centralDirectoryOffset, centralDirectorySize, offset}
}

/** The offset in `tail` of the last end-record signature with room for its 22 bytes, or -1. */
function findLastEndRecord(tail: Buffer): number {
  for (let at = tail.length - endRecordSize; at >= 0; at--) {
    if (tail.readUInt32LE(at) === zipSignature.endRecord) return at
  }
  return -1
}

function noEndRecord(size: number): ArchiveError {
  return new ArchiveError('not-an-artifact', `No ZIP end-of-central-directory record: this is not a .svcPlugin archive (${size} bytes).`, {
    reason: 'no-end-record',
  })
}

function zip64(message: string): ArchiveError {
  return new ArchiveError('archive-unsupported', `${message} ZIP64 archives are not accepted.`, {reason: 'zip64'})
}
