import type {CentralRecord} from './central-directory.js'
import {zipSignature, type EndRecord} from './end-record.js'
import {DirectoryDataCheck} from './entry-data.js'
import {ArchiveError} from './errors.js'
import {checkExtraFields} from './extra-fields.js'
import {ReusedBuffers, readAt, readAtInto} from './fd.js'
import {quoteName} from './path-policy.js'

const localHeaderSize = 30
const flagDataDescriptor = 0x0008
// Read a little past the name in the same call, so most headers (extra field included) take one read.
const readSlack = 64
// Headers that lie within this many bytes of each other are read with one read (the data between them
// included): an archive of many small entries costs a few reads, not one per entry.
const groupBytes = 1024 * 1024
const parallelReads = 4

/** Where one record's bytes lie in the file, once its local header has been checked. */
interface Span {
  record: CentralRecord
  /** The local header's offset. */
  start: number
  /** First byte of the file data. */
  dataStart: number
  /** First byte after the data and its data descriptor. */
  end: number
}

/**
 * Reads every local header and proves the file holds nothing but the entries the central directory
 * lists, back to back: each local header agrees with its central record (name, method, flags, CRC
 * and sizes, or its data descriptor does) and carries only the extra fields allowed, a deflated
 * directory entry's data is an empty deflate stream, no entry overlaps another (Fifield bombs), the
 * first starts at byte 0 and the last ends where the central directory starts. Returns each
 * record's file-data offset, in record order.
 */
export async function checkLocalHeaders(fd: number, records: readonly CentralRecord[], end: EndRecord): Promise<number[]> {
  const spans = new Array<Span>(records.length)
  const failures = new Map<number, unknown>()
  const directories = new DirectoryDataCheck()
  const groups = headerGroups(records, end.centralDirectoryOffset)
  const buffers = new ReusedBuffers(groupBytes)
  let next = 0
  // Workers never throw: every read settles before the caller may close the descriptor.
  const worker = async (): Promise<void> => {
    while (next < groups.length) {
      const group = groups[next++]!
      const buffer = buffers.take(group.end - group.start)
      const bytes = await readGroup(fd, group, buffer)
      for (const index of group.members) {
        try {
          spans[index] = await readSpan(bytes, records[index]!, end.centralDirectoryOffset, directories)
        } catch (error) {
          failures.set(index, error)
        }
      }
      buffers.give(buffer)
    }
  }
  await Promise.all(Array.from({length: Math.min(parallelReads, groups.length)}, worker))
  // Reads ran in parallel; report the first broken record in directory order, whatever finished first.
  if (failures.size > 0) throw failures.get(Math.min(...failures.keys()))
  checkLayout(spans, end.centralDirectoryOffset)
  return spans.map((span) => span.dataStart)
}

/** Records whose local headers are read with one read of [start, end) of the file. */
interface HeaderGroup {
  start: number
  end: number
  /** Indices of the records, in file order. */
  members: number[]
}

/**
 * The records grouped by where their local headers lie: in file order, a group's range holds the first
 * bytes of each member's header (its fixed part, its name and {@link readSlack} more), spans at most
 * {@link groupBytes} unless it has one member, and never reaches past `limit` (the central directory).
 */
function headerGroups(records: readonly CentralRecord[], limit: number): HeaderGroup[] {
  const order = records.map((_, index) => index).sort((a, b) => records[a]!.localHeaderOffset - records[b]!.localHeaderOffset)
  const groups: HeaderGroup[] = []
  let current: HeaderGroup | null = null
  for (const index of order) {
    const record = records[index]!
    const start = record.localHeaderOffset
    const end = Math.min(limit, start + localHeaderSize + record.nameRaw.length + readSlack)
    if (current !== null && Math.max(current.end, end) - current.start <= groupBytes) {
      current.members.push(index)
      current.end = Math.max(current.end, end)
    } else {
      current = {start, end: Math.max(start, end), members: [index]}
      groups.push(current)
    }
  }
  return groups
}

/** The bytes of a group's range, read into `buffer` ({@link FileBytes}); a read failure is each member's to report. */
async function readGroup(fd: number, group: HeaderGroup, buffer: Buffer): Promise<FileBytes> {
  const bytes = group.end > group.start ? await readAtInto(fd, buffer, group.end - group.start, group.start).catch(() => Buffer.alloc(0)) : Buffer.alloc(0)
  return new FileBytes(fd, group.start, bytes)
}

/** Bytes of the file: from a range read before when they lie in it, else read now. */
class FileBytes {
  constructor(
    private readonly fd: number,
    private readonly start: number,
    private readonly bytes: Buffer,
  ) {}

  /** Up to `length` bytes at `position` (fewer only where the file ends). */
  at(position: number, length: number): Buffer | Promise<Buffer> {
    const from = position - this.start
    if (from >= 0 && from + length <= this.bytes.length) return this.bytes.subarray(from, from + length)
    return readAt(this.fd, length, position)
  }
}

async function readSpan(file: FileBytes, record: CentralRecord, limit: number, directories: DirectoryDataCheck): Promise<Span> {
  const {name} = record
  const start = record.localHeaderOffset
  const room = limit - start
  let header = room >= localHeaderSize ? await file.at(start, Math.min(localHeaderSize + record.nameRaw.length + readSlack, room)) : Buffer.alloc(0)
  if (header.length < localHeaderSize || header.readUInt32LE(0) !== zipSignature.localHeader) {
    throw new ArchiveError('archive-malformed', `Entry ${quoteName(name)} points at offset ${start}, where there is no local file header.`, {
      reason: 'local-header-invalid',
      entry: name,
      offset: start,
    })
  }
  const nameLength = header.readUInt16LE(26)
  const extraLength = header.readUInt16LE(28)
  const headerLength = localHeaderSize + nameLength + extraLength
  if (headerLength > room) {
    throw new ArchiveError('archive-malformed', `The local header of entry ${quoteName(name)} runs into the central directory.`, {
      reason: 'local-header-invalid',
      entry: name,
      offset: start,
    })
  }
  if (headerLength > header.length) header = await file.at(start, headerLength)

  const flags = header.readUInt16LE(6)
  if (flags !== record.flags) throw mismatch(name, 'local-header-flags-mismatch', 'general-purpose flags', flags, record.flags)
  const method = header.readUInt16LE(8)
  if (method !== record.method) throw mismatch(name, 'local-header-method-mismatch', 'compression method', method, record.method)
  const localName = header.subarray(localHeaderSize, localHeaderSize + nameLength)
  if (!localName.equals(record.nameRaw)) {
    throw new ArchiveError('archive-malformed', `The local header of entry ${quoteName(name)} names it ${quoteName(localName.toString('utf8'))}.`, {
      reason: 'local-header-name-mismatch',
      entry: name,
    })
  }
  const hasDescriptor = (flags & flagDataDescriptor) !== 0
  // With a data descriptor the local fields may be zero; they must never hold other values.
  const agrees = (local: number, central: number): boolean => local === central || (hasDescriptor && local === 0)
  const crc = header.readUInt32LE(14)
  if (!agrees(crc, record.crc32)) throw mismatch(name, 'local-header-crc-mismatch', 'CRC-32', crc, record.crc32)
  const compressed = header.readUInt32LE(18)
  if (!agrees(compressed, record.compressedSize)) throw mismatch(name, 'local-header-size-mismatch', 'compressed size', compressed, record.compressedSize)
  const uncompressed = header.readUInt32LE(22)
  if (!agrees(uncompressed, record.uncompressedSize)) throw mismatch(name, 'local-header-size-mismatch', 'uncompressed size', uncompressed, record.uncompressedSize)
  checkExtraFields(header.subarray(localHeaderSize + nameLength, headerLength), name, 'local')

  const dataStart = start + headerLength
  const dataEnd = dataStart + record.compressedSize
  // A directory's few data bytes usually came with the header; data running past the entries is left to the layout check.
  if (record.entry === null && record.compressedSize > 0 && dataEnd <= limit) {
    const inHeader = headerLength + record.compressedSize <= header.length
    directories.check(name, inHeader ? header.subarray(headerLength, headerLength + record.compressedSize) : await file.at(dataStart, record.compressedSize))
  }
  const descriptor = hasDescriptor ? await descriptorLength(file, record, dataEnd, limit) : 0
  return {record, start, dataStart, end: dataEnd + descriptor}
}

/** The length of the data descriptor at `at` (16 with its optional signature, 12 without); it must repeat the central record. */
async function descriptorLength(file: FileBytes, record: CentralRecord, at: number, limit: number): Promise<number> {
  const bytes = at < limit ? await file.at(at, Math.min(16, limit - at)) : Buffer.alloc(0)
  const repeats = (offset: number): boolean =>
    bytes.length >= offset + 12 &&
    bytes.readUInt32LE(offset) === record.crc32 &&
    bytes.readUInt32LE(offset + 4) === record.compressedSize &&
    bytes.readUInt32LE(offset + 8) === record.uncompressedSize
  if (bytes.length >= 4 && bytes.readUInt32LE(0) === zipSignature.dataDescriptor && repeats(4)) return 16
  if (repeats(0)) return 12
  throw new ArchiveError('archive-malformed', `The data descriptor of entry ${quoteName(record.name)} does not repeat its CRC-32 and sizes.`, {
    reason: 'data-descriptor-mismatch',
    entry: record.name,
  })
}

function checkLayout(records: readonly Span[], centralDirectoryOffset: number): void {
  // The central directory may list entries in any order; the file must hold them back to back.
  const spans = [...records].sort((a, b) => a.start - b.start)
  const first = spans[0]
  if ((first?.start ?? centralDirectoryOffset) !== 0) {
    const bytes = first?.start ?? centralDirectoryOffset
    throw new ArchiveError('archive-malformed', `${bytes} bytes precede the archive's first entry.`, {reason: 'prepended-bytes', bytes})
  }
  for (let i = 0; i < spans.length; i++) {
    const span = spans[i]!
    const following = spans[i + 1]
    const nextStart = following?.start ?? centralDirectoryOffset
    // Fifield bomb: entries must not overlap, or a few bytes on disk unpack as many entries.
    if (span.end > nextStart) {
      const other = following === undefined ? 'the central directory' : `entry ${quoteName(following.record.name)}`
      throw new ArchiveError('archive-malformed', `Entry ${quoteName(span.record.name)} overlaps ${other}.`, {
        reason: 'overlapping-entries',
        entry: span.record.name,
        ...(following === undefined ? {} : {other: following.record.name}),
      })
    }
    if (span.end < nextStart) {
      throw new ArchiveError('archive-malformed', `${nextStart - span.end} unaccounted bytes follow entry ${quoteName(span.record.name)}.`, {
        reason: 'gap-between-entries',
        entry: span.record.name,
        bytes: nextStart - span.end,
      })
    }
  }
}

function mismatch(name: string, reason: 'local-header-flags-mismatch' | 'local-header-method-mismatch' | 'local-header-crc-mismatch' | 'local-header-size-mismatch', what: string, local: number, central: number): ArchiveError {
  return new ArchiveError('archive-malformed', `The local header of entry ${quoteName(name)} gives ${what} ${local}; the central directory says ${central}.`, {
    reason,
    entry: name,
    local,
    central,
  })
}
