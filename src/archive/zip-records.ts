import {ArchiveError} from './errors.js'

// The records of a ZIP archive as the writer writes them: fixed dates, Unix modes, UTF-8 names, no extra
// fields, comments, data descriptors or ZIP64.

/** The largest value a 32-bit field holds without deferring to ZIP64, which we never write. */
export const zip32Max = 0xfffffffe
/** The largest entry count a 16-bit field holds without deferring to ZIP64. */
export const zip16Max = 0xfffe

/** The refusal of what only a ZIP64 archive could hold. */
export function zip64(what: string): ArchiveError {
  return new ArchiveError('archive-unsupported', `The archive cannot be written: ${what}, and ZIP64 archives are neither written nor read.`, {reason: 'zip64'})
}

const versionMadeByUnix = (3 << 8) | 63
const versionNeeded = 20
const flagUtf8 = 0x0800
// Every entry is dated 1980-01-01 00:00:00: DOS time 0, DOS date (0 << 9) | (1 << 5) | 1.
const dosTime = 0
const dosDate = 0x0021
/** Bytes of a local header before its name. */
export const localHeaderBytes = 30
const centralHeaderBytes = 46
const endRecordBytes = 22

/** One written entry's facts: its local header, and its central record but for the offset. */
export interface EntryRecord {
  name: string
  /** Length of the name in UTF-8. */
  nameBytes: number
  mode: 0o644 | 0o755
  method: 0 | 8
  crc32: number
  compressedSize: number
  size: number
  /** Offset of the local header in the file it was written to. */
  offset: number
}

/** The local header of an entry, its name included. */
export function localHeader(record: EntryRecord): Buffer {
  const header = Buffer.allocUnsafe(localHeaderBytes + record.nameBytes)
  header.writeUInt32LE(0x04034b50, 0)
  header.writeUInt16LE(versionNeeded, 4)
  header.writeUInt16LE(flagUtf8, 6)
  header.writeUInt16LE(record.method, 8)
  header.writeUInt16LE(dosTime, 10)
  header.writeUInt16LE(dosDate, 12)
  header.writeUInt32LE(record.crc32, 14)
  header.writeUInt32LE(record.compressedSize, 18)
  header.writeUInt32LE(record.size, 22)
  header.writeUInt16LE(record.nameBytes, 26)
  header.writeUInt16LE(0, 28) // extra field length
  header.write(record.name, localHeaderBytes, 'utf8')
  return header
}

/** The central directory: one record per entry, each with the offset of its local header. */
export function centralDirectory(records: readonly {record: EntryRecord; offset: number}[]): Buffer {
  const directory = Buffer.alloc(records.reduce((sum, {record}) => sum + centralHeaderBytes + record.nameBytes, 0))
  let at = 0
  for (const {record, offset} of records) {
    directory.writeUInt32LE(0x02014b50, at)
    directory.writeUInt16LE(versionMadeByUnix, at + 4)
    directory.writeUInt16LE(versionNeeded, at + 6)
    directory.writeUInt16LE(flagUtf8, at + 8)
    directory.writeUInt16LE(record.method, at + 10)
    directory.writeUInt16LE(dosTime, at + 12)
    directory.writeUInt16LE(dosDate, at + 14)
    directory.writeUInt32LE(record.crc32, at + 16)
    directory.writeUInt32LE(record.compressedSize, at + 20)
    directory.writeUInt32LE(record.size, at + 24)
    directory.writeUInt16LE(record.nameBytes, at + 28)
    // Extra field, comment, disk number start and internal attributes stay 0.
    directory.writeUInt32LE(((0o100000 | record.mode) << 16) >>> 0, at + 38)
    directory.writeUInt32LE(offset, at + 42)
    directory.write(record.name, at + centralHeaderBytes, 'utf8')
    at += centralHeaderBytes + record.nameBytes
  }
  return directory
}

/** The end of central directory record: no disk numbers, no comment. */
export function endRecord(count: number, directoryBytes: number, directoryOffset: number): Buffer {
  const end = Buffer.alloc(endRecordBytes)
  end.writeUInt32LE(0x06054b50, 0)
  // Disk numbers stay 0; no comment.
  end.writeUInt16LE(count, 8)
  end.writeUInt16LE(count, 10)
  end.writeUInt32LE(directoryBytes, 12)
  end.writeUInt32LE(directoryOffset, 16)
  return end
}

/** Where an entry's data ends in the file its local header was written to. */
export function dataEnd(record: EntryRecord): number {
  return record.offset + localHeaderBytes + record.nameBytes + record.compressedSize
}
