/**
 * The one lenient ZIP model of the tests: an archive as its records, split without judging them and
 * written back with every offset, length and count recomputed, except the ones a model is told to lie
 * about. The hostile corpus (scripts/make-hostile-archives.ts) builds its archives as models, the fuzzer
 * mutates models of real ones (a lie that is consistent gets past the cheap checks and reaches the deep
 * ones), and the splice helper (zip-splice.ts) edits a real archive's records through it. It also counts
 * the bytes of an archive that no signature covers (see {@link freeFormBytes}).
 */
import zlib from 'node:zlib'

/** Local-header fields (APPNOTE 4.3.7), as numbers; the name and extra field are kept as bytes. */
export interface LocalHeader {
  signature: number
  version: number
  flags: number
  method: number
  time: number
  date: number
  crc: number
  compressedSize: number
  uncompressedSize: number
  name: Buffer
  extra: Buffer
}

/** Central-record fields (APPNOTE 4.3.12): a local header's, and those only the central directory has. */
export interface CentralHeader extends LocalHeader {
  madeBy: number
  comment: Buffer
  diskStart: number
  internal: number
  external: number
}

/** One entry: its local header, the bytes after it up to the next record, and its central record. */
export interface ZipEntry {
  local: LocalHeader
  /** Everything between the local header and the next local header (or the central directory). */
  data: Buffer
  central: CentralHeader
  /**
   * A central record that points at this offset (another entry's local record, say) instead of at one of
   * its own: the entry's local header and data are then not written.
   */
  pointsAt?: number
}

/** End-of-central-directory fields that are not derived from the entries. */
export interface EndFields {
  disk: number
  centralDisk: number
  comment: Buffer
  /** Forced counts, size and offset (a lie); derived from the entries when absent. */
  entriesOnDisk?: number
  entries?: number
  centralSize?: number
  centralOffset?: number
  /** Write ZIP64 end records before the end record, and the end record's counts and offsets as 0xff…. */
  zip64?: boolean
}

/** An archive as the tests build and edit it. */
export interface ZipModel {
  /** Bytes before the first local header. */
  prefix: Buffer
  /** Whether the offsets count the prefix (as `zip -A` makes them); default true. */
  prefixInOffsets?: boolean
  /** Entries in local (file) order. */
  entries: ZipEntry[]
  /** The order of the central records, as indexes into `entries`. */
  centralOrder: number[]
  /** Bytes between the last entry's data and the central directory are part of that entry's `data`; these sit between the directory and the end record. */
  beforeEnd: Buffer
  end: EndFields
  /** Bytes after the end record (and its comment). */
  suffix?: Buffer
}

export const localSignature = 0x04034b50
export const centralSignature = 0x02014b50
export const endSignature = 0x06054b50
export const flagDataDescriptor = 0x0008
/** General-purpose flag bit 11: the name is UTF-8. */
export const flagUtf8 = 0x0800
/** Version made by: Unix host, ZIP 2.0. */
export const madeByUnix = (3 << 8) | 20

/**
 * Splits `bytes` into a model, or returns null when they are not laid out as local records, then the
 * central directory, then one end record without a comment that overruns the file. Field values are not
 * judged: a model of a lying archive tells the same lies.
 */
export function parseZip(bytes: Buffer): ZipModel | null {
  const endAt = findEndRecord(bytes)
  if (endAt === null) return null
  const count = bytes.readUInt16LE(endAt + 10)
  const directorySize = bytes.readUInt32LE(endAt + 12)
  const directoryAt = bytes.readUInt32LE(endAt + 16)
  const commentLength = bytes.readUInt16LE(endAt + 20)
  if (directoryAt + directorySize > endAt) return null
  const centrals: Array<{header: CentralHeader; offset: number}> = []
  let at = directoryAt
  for (let i = 0; i < count; i++) {
    if (at + 46 > endAt || bytes.readUInt32LE(at) !== centralSignature) return null
    const nameLength = bytes.readUInt16LE(at + 28)
    const extraLength = bytes.readUInt16LE(at + 30)
    const commentLength = bytes.readUInt16LE(at + 32)
    const next = at + 46 + nameLength + extraLength + commentLength
    if (next > endAt) return null
    const nameAt = at + 46
    centrals.push({
      offset: bytes.readUInt32LE(at + 42),
      header: readCentralHeader(
        bytes.subarray(at, at + 46),
        Buffer.from(bytes.subarray(nameAt, nameAt + nameLength)),
        Buffer.from(bytes.subarray(nameAt + nameLength, nameAt + nameLength + extraLength)),
        Buffer.from(bytes.subarray(nameAt + nameLength + extraLength, next)),
      ),
    })
    at = next
  }
  // Local records in file order; each must start where a central record points, and they may not overlap.
  const byOffset = centrals.map((central, index) => ({...central, index})).sort((a, b) => a.offset - b.offset)
  if (new Set(byOffset.map((item) => item.offset)).size !== byOffset.length) return null
  const firstOffset = byOffset[0]?.offset ?? directoryAt
  if (firstOffset > directoryAt) return null
  const entries: ZipEntry[] = []
  const order: number[] = []
  for (let k = 0; k < byOffset.length; k++) {
    const {offset, header, index} = byOffset[k]!
    const limit = byOffset[k + 1]?.offset ?? directoryAt
    if (offset + 30 > limit || bytes.readUInt32LE(offset) !== localSignature) return null
    const nameLength = bytes.readUInt16LE(offset + 26)
    const extraLength = bytes.readUInt16LE(offset + 28)
    const dataAt = offset + 30 + nameLength + extraLength
    if (dataAt > limit) return null
    entries.push({
      local: readLocalHeader(bytes.subarray(offset, offset + 30), Buffer.from(bytes.subarray(offset + 30, offset + 30 + nameLength)), Buffer.from(bytes.subarray(offset + 30 + nameLength, dataAt))),
      data: Buffer.from(bytes.subarray(dataAt, limit)),
      central: header,
    })
    order[index] = k
  }
  return {
    prefix: Buffer.from(bytes.subarray(0, firstOffset)),
    entries,
    centralOrder: centrals.map((_, index) => order[index]!),
    beforeEnd: Buffer.from(bytes.subarray(at, endAt)),
    end: {
      disk: bytes.readUInt16LE(endAt + 4),
      centralDisk: bytes.readUInt16LE(endAt + 6),
      comment: Buffer.from(bytes.subarray(endAt + 22, endAt + 22 + commentLength)),
      // The end record's own lies about the directory, kept: a count or a size the records do not add up to.
      ...(bytes.readUInt16LE(endAt + 8) === count ? {} : {entriesOnDisk: bytes.readUInt16LE(endAt + 8)}),
      ...(directorySize === at - directoryAt ? {} : {centralSize: directorySize}),
    },
  }
}

/** The end record's offset: the last signature whose comment reaches exactly to the end of the file. */
function findEndRecord(bytes: Buffer): number | null {
  for (let at = bytes.length - 22; at >= 0 && at >= bytes.length - 22 - 0xffff; at--) {
    if (bytes.readUInt32LE(at) === endSignature && at + 22 + bytes.readUInt16LE(at + 20) === bytes.length) return at
  }
  return null
}

/** Writes a model back: offsets, counts, the directory size and every name, extra and comment length are recomputed, unless forced. */
export function serializeZip(model: ZipModel): Buffer {
  const parts: Buffer[] = [model.prefix]
  const base = model.prefixInOffsets === false ? 0 : model.prefix.length
  let offset = base
  const offsets: number[] = []
  for (const entry of model.entries) {
    offsets.push(entry.pointsAt ?? offset)
    if (entry.pointsAt !== undefined) continue
    const header = localHeaderBytes(entry.local)
    parts.push(header, entry.data)
    offset += header.length + entry.data.length
  }
  const directoryAt = offset
  let directorySize = 0
  for (const index of model.centralOrder) {
    const entry = model.entries[index]
    if (entry === undefined) continue
    const record = centralHeaderBytes(entry.central, offsets[index]!)
    parts.push(record)
    directorySize += record.length
  }
  const records = model.centralOrder.filter((index) => model.entries[index] !== undefined).length
  parts.push(model.beforeEnd)
  const {end} = model
  if (end.zip64 === true) parts.push(zip64EndRecords(records, directorySize, directoryAt, directoryAt + directorySize + model.beforeEnd.length))
  parts.push(
    endRecordBytes({
      disk: end.disk,
      centralDisk: end.centralDisk,
      entriesOnDisk: end.entriesOnDisk ?? (end.zip64 === true ? 0xffff : records),
      entries: end.entries ?? (end.zip64 === true ? 0xffff : records),
      centralSize: end.centralSize ?? (end.zip64 === true ? 0xffffffff : directorySize),
      centralOffset: end.centralOffset ?? (end.zip64 === true ? 0xffffffff : directoryAt),
      comment: end.comment,
    }),
    model.suffix ?? Buffer.alloc(0),
  )
  return Buffer.concat(parts)
}

/** The end-of-central-directory record (22 bytes, then the comment), with whatever values it is given. */
export function endRecordBytes(fields: {disk: number; centralDisk: number; entriesOnDisk: number; entries: number; centralSize: number; centralOffset: number; comment: Buffer}): Buffer {
  const record = Buffer.alloc(22)
  record.writeUInt32LE(endSignature, 0)
  record.writeUInt16LE(fields.disk & 0xffff, 4)
  record.writeUInt16LE(fields.centralDisk & 0xffff, 6)
  record.writeUInt16LE(fields.entriesOnDisk & 0xffff, 8)
  record.writeUInt16LE(fields.entries & 0xffff, 10)
  record.writeUInt32LE(fields.centralSize >>> 0, 12)
  record.writeUInt32LE(fields.centralOffset >>> 0, 16)
  record.writeUInt16LE(fields.comment.length & 0xffff, 20)
  return Buffer.concat([record, fields.comment])
}

/** The ZIP64 end record and its locator, for `entries` records of `centralSize` bytes at `centralOffset`; the record itself at `recordOffset`. */
function zip64EndRecords(entries: number, centralSize: number, centralOffset: number, recordOffset: number): Buffer {
  const record = Buffer.alloc(56)
  record.writeUInt32LE(0x06064b50, 0)
  record.writeBigUInt64LE(44n, 4)
  record.writeUInt16LE(madeByUnix, 12)
  record.writeUInt16LE(45, 14)
  record.writeBigUInt64LE(BigInt(entries), 24)
  record.writeBigUInt64LE(BigInt(entries), 32)
  record.writeBigUInt64LE(BigInt(centralSize), 40)
  record.writeBigUInt64LE(BigInt(centralOffset), 48)
  const locator = Buffer.alloc(20)
  locator.writeUInt32LE(0x07064b50, 0)
  locator.writeBigUInt64LE(BigInt(recordOffset), 8)
  locator.writeUInt32LE(1, 16)
  return Buffer.concat([record, locator])
}

/** A local header (30 bytes, then the name and the extra field) with whatever values it holds. */
export function localHeaderBytes(header: LocalHeader): Buffer {
  const fields = {...header, nameLength: header.name.length, extraLength: header.extra.length}
  return Buffer.concat([recordBytes(30, header.signature, localFields, fields), header.name, header.extra])
}

/** A central record (46 bytes, then the name, the extra field and the comment) with whatever values it holds, pointing at `offset`. */
export function centralHeaderBytes(header: CentralHeader, offset: number): Buffer {
  const fields = {...header, nameLength: header.name.length, extraLength: header.extra.length, commentLength: header.comment.length, localOffset: offset}
  return Buffer.concat([recordBytes(46, header.signature, centralFields, fields), header.name, header.extra, header.comment])
}

/** A fixed-size record: its signature, then each field of `layout` at its offset, cut to its width. */
function recordBytes<L extends Record<string, readonly [number, number]>>(size: number, signature: number, layout: L, values: Record<keyof L, number>): Buffer {
  const bytes = Buffer.alloc(size)
  bytes.writeUInt32LE(signature >>> 0, 0)
  for (const [name, [offset, width]] of Object.entries(layout) as [keyof L, readonly [number, number]][]) {
    if (width === 2) bytes.writeUInt16LE(values[name] & 0xffff, offset)
    else bytes.writeUInt32LE(values[name] >>> 0, offset)
  }
  return bytes
}

/** Where each header field sits, for raw field edits: byte offset inside the record and width. */
export const localFields = {version: [4, 2], flags: [6, 2], method: [8, 2], time: [10, 2], date: [12, 2], crc: [14, 4], compressedSize: [18, 4], uncompressedSize: [22, 4], nameLength: [26, 2], extraLength: [28, 2]} as const
export const centralFields = {
  madeBy: [4, 2],
  version: [6, 2],
  flags: [8, 2],
  method: [10, 2],
  time: [12, 2],
  date: [14, 2],
  crc: [16, 4],
  compressedSize: [20, 4],
  uncompressedSize: [24, 4],
  nameLength: [28, 2],
  extraLength: [30, 2],
  commentLength: [32, 2],
  diskStart: [34, 2],
  internal: [36, 2],
  external: [38, 4],
  localOffset: [42, 4],
} as const
export const endFields = {disk: [4, 2], centralDisk: [6, 2], entriesOnDisk: [8, 2], entries: [10, 2], centralSize: [12, 4], centralOffset: [16, 4], commentLength: [20, 2]} as const

/** The file offsets of every record of a well-laid-out archive, for raw field edits. */
export interface RecordOffsets {
  local: number[]
  central: number[]
  end: number
}

/** Record offsets of `bytes`, or null when {@link parseZip} cannot split them. */
export function recordOffsets(bytes: Buffer): RecordOffsets | null {
  const model = parseZip(bytes)
  if (model === null) return null
  const local: number[] = []
  let at = model.prefix.length
  for (const entry of model.entries) {
    local.push(at)
    at += 30 + entry.local.name.length + entry.local.extra.length + entry.data.length
  }
  const central: number[] = []
  for (const index of model.centralOrder) {
    central.push(at)
    const header = model.entries[index]!.central
    at += 46 + header.name.length + header.extra.length + header.comment.length
  }
  return {local, central, end: at + model.beforeEnd.length}
}

/** How the free-form bytes of an archive split up (see {@link freeFormBytes}). */
export interface FreeFormBytes {
  total: number
  /** Extra fields, local and central. */
  extraFields: number
  /** Per-entry comments and the archive comment. */
  comments: number
  /** Data carried by directory entries (names ending in `/`), which no digest covers. */
  directoryData: number
  /** Bytes no record accounts for: before the first record, after an entry's declared data, before the end record. */
  unaccounted: number
}

/**
 * The bytes of an archive that are neither a fixed-size header field, an entry name, nor the compressed
 * data of a file entry (descriptor included): extra fields, comments, directory-entry data and bytes no
 * record accounts for. A signature covers names and inflated contents only, so these are where unsigned
 * bytes can ride; null when the archive cannot be split into records at all.
 */
export function freeFormBytes(bytes: Buffer): FreeFormBytes | null {
  const model = parseZip(bytes)
  if (model === null) return null
  const count = {extraFields: 0, comments: model.end.comment.length, directoryData: 0, unaccounted: model.prefix.length + model.beforeEnd.length}
  for (const entry of model.entries) {
    count.extraFields += entry.local.extra.length + entry.central.extra.length
    count.comments += entry.central.comment.length
    if (entry.central.name.toString('latin1').endsWith('/')) {
      // Java and .NET writers give a directory the 2-byte empty deflate stream: a fixed encoding of nothing.
      const emptyDeflate = entry.central.method === 8 && entry.data.length === 2 && entry.data[0] === 0x03 && entry.data[1] === 0x00
      count.directoryData += emptyDeflate ? 0 : entry.data.length
      continue
    }
    const descriptor = (entry.central.flags & flagDataDescriptor) === 0 ? 0 : entry.data.length >= entry.central.compressedSize + 16 && entry.data.readUInt32LE(entry.central.compressedSize) === 0x08074b50 ? 16 : 12
    count.unaccounted += Math.max(0, entry.data.length - entry.central.compressedSize - descriptor)
  }
  return {...count, total: count.extraFields + count.comments + count.directoryData + count.unaccounted}
}

/** The inflated content of an entry whose data is a complete deflate stream or stored bytes, or null. */
export function contentOf(entry: ZipEntry): Buffer | null {
  const data = entry.data.subarray(0, entry.central.compressedSize)
  if (entry.central.method === 0) return data.length === entry.central.uncompressedSize ? Buffer.from(data) : null
  if (entry.central.method !== 8) return null
  try {
    return zlib.inflateRawSync(data)
  } catch {
    return null
  }
}

/** What {@link zipEntry} builds an entry from: the content, and any header value to state instead of the true one. */
export interface EntryFields {
  name: string | Buffer
  /** Uncompressed content. */
  data?: Buffer
  method?: number
  /** The bytes stored after the local header; default: deflate(data) for method 8, data otherwise. */
  payload?: Buffer
  flags?: number
  crc?: number
  compressedSize?: number
  uncompressedSize?: number
  versionMadeBy?: number
  /** Unix mode for the high half of the external attributes (default 0o100644). */
  mode?: number
  externalAttributes?: number
  centralExtra?: Buffer
  localExtra?: Buffer
  /** The entry's comment in its central record. */
  comment?: Buffer
  /** The central record's "disk number start". */
  disk?: number
  /** Local-header fields that differ from the central record. */
  local?: {name?: string | Buffer; method?: number; flags?: number; crc?: number; compressedSize?: number; uncompressedSize?: number; signature?: number}
  /** Bytes written right after the payload (a data descriptor, or junk). */
  after?: Buffer
  /** Point the central record at this offset and write no local record for it. */
  localHeaderOffset?: number
}

const bytesOf = (value: string | Buffer): Buffer => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value)

/**
 * An entry as a ZIP writer would make it from `fields.data` (deflated, its CRC-32 and sizes, a UTF-8
 * name, mode 0o100644, dated 1980-01-01), with every value `fields` states instead, lies included. With a
 * data descriptor (flag bit 3) the local header's CRC-32 and sizes are 0.
 */
export function zipEntry(fields: EntryFields): ZipEntry {
  const name = bytesOf(fields.name)
  const data = fields.data ?? Buffer.alloc(0)
  const method = fields.method ?? 8
  const payload = fields.payload ?? (method === 8 ? zlib.deflateRawSync(data) : data)
  const flags = fields.flags ?? flagUtf8
  const crc = fields.crc ?? zlib.crc32(data)
  const compressedSize = fields.compressedSize ?? payload.length
  const uncompressedSize = fields.uncompressedSize ?? data.length
  const local = fields.local ?? {}
  const described = (flags & flagDataDescriptor) !== 0
  return {
    local: {
      signature: local.signature ?? localSignature,
      version: 20,
      flags: local.flags ?? flags,
      method: local.method ?? method,
      time: 0,
      date: 0x21,
      crc: local.crc ?? (described ? 0 : crc),
      compressedSize: local.compressedSize ?? (described ? 0 : compressedSize),
      uncompressedSize: local.uncompressedSize ?? (described ? 0 : uncompressedSize),
      name: local.name === undefined ? name : bytesOf(local.name),
      extra: fields.localExtra ?? Buffer.alloc(0),
    },
    data: Buffer.concat([payload, fields.after ?? Buffer.alloc(0)]),
    central: {
      signature: centralSignature,
      madeBy: fields.versionMadeBy ?? madeByUnix,
      version: 20,
      flags,
      method,
      time: 0,
      date: 0x21,
      crc,
      compressedSize,
      uncompressedSize,
      name,
      extra: fields.centralExtra ?? Buffer.alloc(0),
      comment: fields.comment ?? Buffer.alloc(0),
      diskStart: fields.disk ?? 0,
      internal: 0,
      external: fields.externalAttributes ?? ((fields.mode ?? 0o100644) << 16) >>> 0,
    },
    ...(fields.localHeaderOffset === undefined ? {} : {pointsAt: fields.localHeaderOffset}),
  }
}

/** One extra field: its id, its length and `body`. */
export function extraField(id: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4)
  header.writeUInt16LE(id, 0)
  header.writeUInt16LE(body.length, 2)
  return Buffer.concat([header, body])
}

/** Reads the 30 fixed bytes of a local header into its fields; the name and extra field are given apart. */
export function readLocalHeader(fixed: Buffer, name: Buffer, extra: Buffer): LocalHeader {
  return {
    signature: fixed.readUInt32LE(0),
    version: fixed.readUInt16LE(4),
    flags: fixed.readUInt16LE(6),
    method: fixed.readUInt16LE(8),
    time: fixed.readUInt16LE(10),
    date: fixed.readUInt16LE(12),
    crc: fixed.readUInt32LE(14),
    compressedSize: fixed.readUInt32LE(18),
    uncompressedSize: fixed.readUInt32LE(22),
    name,
    extra,
  }
}

/** Reads the 46 fixed bytes of a central record into its fields; the name, extra field and comment are given apart. */
export function readCentralHeader(fixed: Buffer, name: Buffer, extra: Buffer, comment: Buffer): CentralHeader {
  return {
    signature: fixed.readUInt32LE(0),
    madeBy: fixed.readUInt16LE(4),
    version: fixed.readUInt16LE(6),
    flags: fixed.readUInt16LE(8),
    method: fixed.readUInt16LE(10),
    time: fixed.readUInt16LE(12),
    date: fixed.readUInt16LE(14),
    crc: fixed.readUInt32LE(16),
    compressedSize: fixed.readUInt32LE(20),
    uncompressedSize: fixed.readUInt32LE(24),
    diskStart: fixed.readUInt16LE(34),
    internal: fixed.readUInt16LE(36),
    external: fixed.readUInt32LE(38),
    name,
    extra,
    comment,
  }
}
