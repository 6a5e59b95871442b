import zlib from 'node:zlib'
import {centralHeader, flagUtf8, localHeader, madeByUnix} from '../../scripts/make-hostile-archives.js'

/**
 * Byte surgery on a real archive: splits a ZIP into its records, lets a test change any of their
 * bytes, and joins them again with every length, offset and count recomputed, so the only lie in the
 * result is the one the test put there. Assumes the local records lie in central-directory order
 * with nothing between them, as the archive writer makes them.
 */
export interface ZipRecord {
  /** The 30 fixed bytes of the local header (its name and extra lengths are rewritten on output). */
  localFixed: Buffer
  /** The 46 fixed bytes of the central record (its lengths and local-header offset are rewritten on output). */
  centralFixed: Buffer
  name: Buffer
  localExtra: Buffer
  centralExtra: Buffer
  comment: Buffer
  /** Everything between the local header and the next record: the file data and any data descriptor. */
  data: Buffer
}

/** Splits `zip` into its records. */
export function splitZip(zip: Buffer): ZipRecord[] {
  const end = zip.length - 22
  if (zip.readUInt32LE(end) !== 0x06054b50) throw new Error('no end record in the last 22 bytes')
  const count = zip.readUInt16LE(end + 10)
  const directoryStart = zip.readUInt32LE(end + 16)
  const records: ZipRecord[] = []
  let at = directoryStart
  const offsets: number[] = []
  for (let i = 0; i < count; i++) {
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    const commentLength = zip.readUInt16LE(at + 32)
    const local = zip.readUInt32LE(at + 42)
    const localName = zip.readUInt16LE(local + 26)
    const localExtra = zip.readUInt16LE(local + 28)
    offsets.push(local)
    records.push({
      localFixed: Buffer.from(zip.subarray(local, local + 30)),
      centralFixed: Buffer.from(zip.subarray(at, at + 46)),
      name: Buffer.from(zip.subarray(at + 46, at + 46 + nameLength)),
      localExtra: Buffer.from(zip.subarray(local + 30 + localName, local + 30 + localName + localExtra)),
      centralExtra: Buffer.from(zip.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength)),
      comment: Buffer.from(zip.subarray(at + 46 + nameLength + extraLength, at + 46 + nameLength + extraLength + commentLength)),
      data: Buffer.alloc(0),
    })
    at += 46 + nameLength + extraLength + commentLength
  }
  records.forEach((record, i) => {
    const start = offsets[i]! + 30 + record.localFixed.readUInt16LE(26) + record.localFixed.readUInt16LE(28)
    record.data = Buffer.from(zip.subarray(start, offsets[i + 1] ?? directoryStart))
  })
  return records
}

/** Joins records into an archive: local records back to back, the central directory, the end record. */
export function joinZip(records: readonly ZipRecord[]): Buffer {
  const parts: Buffer[] = []
  const central: Buffer[] = []
  let offset = 0
  for (const record of records) {
    const local = Buffer.from(record.localFixed)
    local.writeUInt16LE(record.name.length, 26)
    local.writeUInt16LE(record.localExtra.length, 28)
    const fixed = Buffer.from(record.centralFixed)
    fixed.writeUInt16LE(record.name.length, 28)
    fixed.writeUInt16LE(record.centralExtra.length, 30)
    fixed.writeUInt16LE(record.comment.length, 32)
    fixed.writeUInt32LE(offset, 42)
    parts.push(local, record.name, record.localExtra, record.data)
    central.push(fixed, record.name, record.centralExtra, record.comment)
    offset += local.length + record.name.length + record.localExtra.length + record.data.length
  }
  const directory = Buffer.concat(central)
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(records.length, 8)
  end.writeUInt16LE(records.length, 10)
  end.writeUInt32LE(directory.length, 12)
  end.writeUInt32LE(offset, 16)
  return Buffer.concat([...parts, directory, end])
}

/** A new record with the given header values (default: the CRC and sizes of `content` deflated, mode 0o100644). */
export function newRecord(fields: {name: string; content?: Buffer; method?: 0 | 8; data?: Buffer; crc?: number; compressedSize?: number; uncompressedSize?: number; mode?: number}): ZipRecord {
  const content = fields.content ?? Buffer.alloc(0)
  const method = fields.method ?? 8
  const data = fields.data ?? (method === 8 ? zlib.deflateRawSync(content) : content)
  const header = {
    flags: flagUtf8,
    method,
    crc: fields.crc ?? zlib.crc32(content),
    compressedSize: fields.compressedSize ?? data.length,
    uncompressedSize: fields.uncompressedSize ?? content.length,
    name: Buffer.from(fields.name, 'utf8'),
    extra: Buffer.alloc(0),
  }
  return {
    localFixed: localHeader(header).subarray(0, 30),
    centralFixed: centralHeader({...header, madeBy: madeByUnix, external: ((fields.mode ?? 0o100644) << 16) >>> 0, offset: 0}).subarray(0, 46),
    name: header.name,
    localExtra: Buffer.alloc(0),
    centralExtra: Buffer.alloc(0),
    comment: Buffer.alloc(0),
    data,
  }
}

/** One extra field: its id, its length and `body`. */
export function extraField(id: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4)
  header.writeUInt16LE(id, 0)
  header.writeUInt16LE(body.length, 2)
  return Buffer.concat([header, body])
}
