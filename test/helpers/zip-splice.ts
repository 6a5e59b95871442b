import {centralHeaderBytes, localHeaderBytes, parseZip, readCentralHeader, readLocalHeader, serializeZip, zipEntry, type ZipEntry} from './zip-model.js'

export {extraField} from './zip-model.js'

/**
 * Byte surgery on a real archive, through the ZIP model (zip-model.ts): splits a ZIP into its records as
 * raw header bytes a test can change, and joins them again with every length, offset and count
 * recomputed, so the only lie in the result is the one the test put there. Assumes the local records lie
 * in central-directory order with nothing between them, as the archive writer makes them.
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

/** Splits `zip` into its records, in central-directory order. */
export function splitZip(zip: Buffer): ZipRecord[] {
  const model = parseZip(zip)
  if (model === null) throw new Error('not an archive laid out as local records, a central directory and an end record')
  return model.centralOrder.map((index) => recordOf(model.entries[index] as ZipEntry))
}

/** Joins records into an archive: local records back to back, the central directory, the end record. */
export function joinZip(records: readonly ZipRecord[]): Buffer {
  const entries = records.map((record) => ({
    local: readLocalHeader(record.localFixed, record.name, record.localExtra),
    data: record.data,
    central: readCentralHeader(record.centralFixed, record.name, record.centralExtra, record.comment),
  }))
  return serializeZip({prefix: Buffer.alloc(0), entries, centralOrder: entries.map((_, index) => index), beforeEnd: Buffer.alloc(0), end: {disk: 0, centralDisk: 0, comment: Buffer.alloc(0)}})
}

/** A new record with the given header values (default: the CRC and sizes of `content` deflated, mode 0o100644). */
export function newRecord(fields: {name: string; content?: Buffer; method?: 0 | 8; data?: Buffer; crc?: number; compressedSize?: number; uncompressedSize?: number; mode?: number}): ZipRecord {
  const {content, data, ...rest} = fields
  return recordOf(zipEntry({...rest, ...(content === undefined ? {} : {data: content}), ...(data === undefined ? {} : {payload: data})}))
}

function recordOf(entry: ZipEntry): ZipRecord {
  return {
    localFixed: localHeaderBytes(entry.local).subarray(0, 30),
    centralFixed: centralHeaderBytes(entry.central, 0).subarray(0, 46),
    name: entry.central.name,
    localExtra: entry.local.extra,
    centralExtra: entry.central.extra,
    comment: entry.central.comment,
    data: entry.data,
  }
}
