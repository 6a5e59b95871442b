import type {Entry, ZipFile} from 'yauzl'
import type {EndRecord} from './end-record.js'
import {checkDeclaredData} from './entry-data.js'
import {ArchiveError} from './errors.js'
import {checkExtraFields} from './extra-fields.js'
import type {ArchiveFileReader} from './file-reader.js'
import {SizeTally, checkCompressionRatio} from './limits.js'
import {EntryNameRegistry} from './names.js'
import {checkEntryPath, describeEntryPathProblem, quoteName} from './path-policy.js'
import type {ArchiveEntry, ArchiveLimits} from './types.js'

/** One central-directory record that passed every check that needs no other bytes of the file. */
export interface CentralRecord {
  name: string
  nameRaw: Buffer
  flags: number
  method: 0 | 8
  crc32: number
  compressedSize: number
  uncompressedSize: number
  localHeaderOffset: number
  /** Where this record starts in the file. */
  offset: number
  /** The file entry handed out to callers; null for a directory entry, which is not handed out (its data is checked on opening). */
  entry: ArchiveEntry | null
}

const flagEncrypted = 0x0001
const flagStrongEncryption = 0x0040
const flagEncryptedCentralDirectory = 0x2000
const flagUtf8 = 0x0800
// Deflate options (bits 1-2), data descriptor (bit 3), UTF-8 names (bit 11): every other bit is reserved
// for features no artifact uses (enhanced deflating, patched data, PKWARE's own) or is encryption.
const flagsUnderstood = 0x0002 | 0x0004 | 0x0008 | flagUtf8
const centralRecordSize = 46
const hostUnix = 3
const hostOsx = 19
// 7-Zip marks Unix mode bits in the high half with this MS-DOS attribute bit, whatever the host.
const dosAttributeUnixExtension = 0x8000

const fileType = 0o170000
const fileTypeReason = new Map<number, 'fifo' | 'character-device' | 'block-device' | 'symlink' | 'socket'>([
  [0o010000, 'fifo'],
  [0o020000, 'character-device'],
  [0o060000, 'block-device'],
  [0o120000, 'symlink'],
  [0o140000, 'socket'],
])
const typeRegular = 0o100000
const specialModeBits = 0o7000
const typeDirectory = 0o040000

const strictUtf8 = new TextDecoder('utf-8', {fatal: true})

/**
 * Reads every central-directory record through yauzl and judges each before any byte is inflated:
 * encryption and flags, method, extra fields, comment, disk, the path policy, Unix file types,
 * declared sizes against the limits and against what their data may hold, duplicate and colliding
 * names; then that the records fill the central directory exactly and that the declared total
 * respects the ratio. `reader` serves the record bytes yauzl does not hand out.
 */
export async function readCentralDirectory(
  zipfile: ZipFile,
  reader: ArchiveFileReader,
  end: EndRecord,
  archiveBytes: number,
  limits: ArchiveLimits,
): Promise<CentralRecord[]> {
  const records: CentralRecord[] = []
  const names = new EntryNameRegistry()
  const sizes = new SizeTally(limits)
  let directoryBytes = 0
  try {
    for await (const raw of zipfile.eachEntry()) {
      const offset = end.centralDirectoryOffset + directoryBytes
      const fixed = await reader.bytesAt(offset, centralRecordSize)
      directoryBytes += centralRecordSize + raw.fileNameLength + raw.extraFieldLength + raw.fileCommentLength
      const record = judgeRecord(raw, fixed, offset)
      if (record.entry !== null) {
        sizes.add(record.name, record.uncompressedSize)
        names.add(record.name)
      }
      records.push(record)
    }
  } catch (error) {
    if (error instanceof ArchiveError) throw error
    throw fromYauzlError(error, await nameOfRecordAt(reader, end.centralDirectoryOffset + directoryBytes))
  }
  if (directoryBytes !== end.centralDirectorySize) {
    throw new ArchiveError(
      'archive-malformed',
      `The ${end.entryCount} central-directory records take ${directoryBytes} bytes, but the end record says ${end.centralDirectorySize}.`,
      {reason: 'central-directory-invalid'},
    )
  }
  checkCompressionRatio(limits, sizes.total, archiveBytes)
  return records
}

/** Judges one record; `fixed` is its 46 fixed bytes as they lie in the file at `offset`. */
function judgeRecord(raw: Entry, fixed: Buffer, offset: number): CentralRecord {
  const name = raw.fileName
  const flags = raw.generalPurposeBitFlag
  if (flags & (flagEncrypted | flagStrongEncryption | flagEncryptedCentralDirectory)) {
    throw new ArchiveError('archive-unsupported', `Entry ${quoteName(name)} is encrypted.`, {reason: 'encrypted', entry: name})
  }
  if (flags & ~flagsUnderstood) {
    throw new ArchiveError('archive-unsupported', `Entry ${quoteName(name)} sets general-purpose flag bits 0x${(flags & ~flagsUnderstood).toString(16)}, which no artifact uses.`, {
      reason: 'unsupported-flags',
      entry: name,
      flags,
    })
  }
  if (raw.compressionMethod !== 0 && raw.compressionMethod !== 8) {
    throw new ArchiveError('archive-unsupported', `Entry ${quoteName(name)} uses compression method ${raw.compressionMethod}; only stored (0) and deflate (8) are read.`, {
      reason: 'unsupported-method',
      entry: name,
      method: raw.compressionMethod,
    })
  }
  checkExtraFields(raw.extraFieldRaw, name, 'central')
  // The archive comment is refused in the end record; an entry's comment is free text just the same.
  if (raw.fileCommentLength !== 0) {
    throw new ArchiveError('archive-malformed', `Entry ${quoteName(name)} carries a ${raw.fileCommentLength}-byte comment; artifacts carry none.`, {
      reason: 'entry-comment',
      entry: name,
      bytes: raw.fileCommentLength,
    })
  }
  const disk = fixed.readUInt16LE(34)
  if (disk !== 0) {
    throw new ArchiveError('archive-unsupported', `Entry ${quoteName(name)} starts on disk ${disk}; artifacts are single-disk archives.`, {reason: 'multi-disk', entry: name, disk})
  }
  if (raw.compressedSize === 0xffffffff || raw.uncompressedSize === 0xffffffff || raw.relativeOffsetOfLocalHeader === 0xffffffff) {
    throw new ArchiveError('archive-unsupported', `Entry ${quoteName(name)} defers its sizes or offset to ZIP64 fields.`, {reason: 'zip64', entry: name})
  }
  if (flags & flagUtf8 && !isUtf8(raw.fileNameRaw)) {
    throw new ArchiveError('unsafe-entry', `Entry ${quoteName(name)} is flagged UTF-8 but its name bytes (hex ${raw.fileNameRaw.toString('hex')}) are not UTF-8.`, {
      reason: 'invalid-utf8',
      entry: name,
    })
  }

  const isDirectory = name.endsWith('/')
  const judged = isDirectory ? name.slice(0, -1) : name
  const problem = checkEntryPath(judged)
  if (problem !== null) throw new ArchiveError('unsafe-entry', describeEntryPathProblem(name, problem), {reason: problem, entry: name})

  const mode = unixMode(raw)
  checkFileType(name, mode, isDirectory)
  const method = raw.compressionMethod as 0 | 8
  checkDeclaredData({name, method, crc32: raw.crc32, compressedSize: raw.compressedSize, uncompressedSize: raw.uncompressedSize}, isDirectory)

  return {
    name,
    nameRaw: raw.fileNameRaw,
    flags,
    method,
    crc32: raw.crc32,
    compressedSize: raw.compressedSize,
    uncompressedSize: raw.uncompressedSize,
    localHeaderOffset: raw.relativeOffsetOfLocalHeader,
    offset,
    entry: isDirectory
      ? null
      : {name, method, compressedSize: raw.compressedSize, uncompressedSize: raw.uncompressedSize, crc32: raw.crc32, mode},
  }
}

/** The Unix mode in the high half of the external attributes, when the writer says it put one there. */
function unixMode(raw: Entry): number {
  const host = raw.versionMadeBy >>> 8
  const attributes = raw.externalFileAttributes >>> 0
  if (host === hostUnix || host === hostOsx || attributes & dosAttributeUnixExtension) return attributes >>> 16
  return 0
}

function checkFileType(name: string, mode: number, isDirectory: boolean): void {
  // setuid, setgid and sticky bits: an installer never grants them, and an archive asking for them is hostile.
  if ((mode & specialModeBits) !== 0) {
    throw new ArchiveError('unsafe-entry', `Entry ${quoteName(name)} asks for the setuid, setgid or sticky bit (mode 0o${mode.toString(8)}); no entry may.`, {
      reason: 'special-mode-bits',
      entry: name,
      mode,
    })
  }
  const type = mode & fileType
  if (type === 0 || type === typeRegular || (isDirectory && type === typeDirectory)) return
  const reason = fileTypeReason.get(type) ?? 'not-a-regular-file'
  const what = reason === 'not-a-regular-file' ? `file type 0o${type.toString(8)}` : reason.replace('-', ' ')
  throw new ArchiveError('unsafe-entry', `Entry ${quoteName(name)} is a ${what} (mode 0o${mode.toString(8)}); only regular files are extracted.`, {
    reason,
    entry: name,
    mode,
  })
}

function isUtf8(bytes: Buffer): boolean {
  try {
    strictUtf8.decode(bytes)
    return true
  } catch {
    return false
  }
}

/**
 * Maps the errors yauzl raises while reading the central directory to our codes. yauzl's errors
 * carry no code, only a message, so this matches the message prefixes of yauzl 3.x; anything
 * unknown is a malformed central directory.
 */
function fromYauzlError(error: unknown, entry: string | undefined): ArchiveError {
  const message = error instanceof Error ? error.message : String(error)
  const which = entry === undefined ? 'An entry' : `Entry ${quoteName(entry)}`
  const at = entry === undefined ? {} : {entry}
  // yauzl's own name check (validateFileName, strictFileNames: true) ends the message with the name:
  // judge that name again so the reason is the policy's own.
  for (const prefix of ['invalid characters in fileName: ', 'absolute path: ', 'invalid relative path: ']) {
    if (message.startsWith(prefix)) {
      const name = message.slice(prefix.length)
      const problem = checkEntryPath(name) ?? 'parent-segment'
      return new ArchiveError('unsafe-entry', describeEntryPathProblem(name, problem), {reason: problem, entry: name}, {cause: error})
    }
  }
  if (message.startsWith('strong encryption')) {
    return new ArchiveError('archive-unsupported', `${which} uses strong encryption.`, {reason: 'encrypted', ...at}, {cause: error})
  }
  if (message.startsWith('zip64 ')) {
    return new ArchiveError('archive-unsupported', `${which} carries an incomplete ZIP64 extra field; ZIP64 archives are not accepted.`, {reason: 'zip64', ...at}, {cause: error})
  }
  if (message.startsWith('compressed/uncompressed size mismatch for stored file')) {
    return new ArchiveError('archive-malformed', `${which} is stored but declares different compressed and uncompressed sizes (${message.split(': ')[1]}).`, {reason: 'stored-size-mismatch', ...at}, {cause: error})
  }
  if (message.startsWith('extra field length exceeds')) {
    return new ArchiveError('archive-malformed', `${which} has extra fields that overrun their declared length.`, {reason: 'extra-field-invalid', ...at}, {cause: error})
  }
  return new ArchiveError('archive-malformed', `The central directory cannot be read: ${message}.`, {reason: 'central-directory-invalid', ...at}, {cause: error})
}

/** The name of the central-directory record at `offset`, for messages about a record yauzl refused; undefined when unreadable. */
async function nameOfRecordAt(reader: ArchiveFileReader, offset: number): Promise<string | undefined> {
  try {
    const header = await reader.bytesAt(offset, centralRecordSize)
    if (header.length < centralRecordSize || header.readUInt32LE(0) !== 0x02014b50) return undefined
    const raw = await reader.bytesAt(offset + centralRecordSize, header.readUInt16LE(28))
    return header.readUInt16LE(8) & flagUtf8 ? raw.toString('utf8') : raw.toString('latin1')
  } catch {
    return undefined
  }
}
