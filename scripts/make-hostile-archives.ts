/**
 * Generates the hostile `.svcPlugin` corpus: one archive per rule of the entry-path policy and the strict reader, each an
 * otherwise plausible plugin broken in exactly the way its name says. No library writes such
 * files, so they are built record by record with the tests' ZIP model (test tooling: it lives in
 * scripts/, not src/).
 *
 *   node dist/scripts/make-hostile-archives.js <dir>
 */
import {createHash} from 'node:crypto'
import {mkdir, open, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {pathToFileURL} from 'node:url'
import zlib from 'node:zlib'
import type {ArchiveErrorCode, ArchiveErrorReason} from '../src/archive/errors.js'
import {centralHeaderBytes, endRecordBytes, extraField, flagUtf8, localHeaderBytes, serializeZip, zipEntry, type EntryFields} from '../test/helpers/zip-model.js'

/** One archive of the corpus and how the strict reader must refuse it. */
export interface HostileCase {
  /** Absolute path of the generated archive. */
  file: string
  /** The case name, which is also the file's stem. */
  name: string
  /** What is wrong with the archive. */
  description: string
  expect: {
    code: ArchiveErrorCode
    reason: ArchiveErrorReason
    /** `open`: openArchive refuses it before any byte is inflated; `read`: the entry streams do. */
    at: 'open' | 'read'
  }
}

// ---------------------------------------------------------------------------------------------
// Archives as the tests' one ZIP model builds them (test/helpers/zip-model.ts): whatever they are told, lies included.

const MiB = 1024 * 1024

type RawEntry = EntryFields

interface BuildOptions {
  /** Bytes before the first local header. */
  prepend?: Buffer
  /** Shift every offset by the prepended length, as `zip -A` would. */
  adjustOffsets?: boolean
  /** Bytes after the end record. */
  append?: Buffer
  comment?: Buffer
  /** Bytes between the central directory and the end record. */
  beforeEnd?: Buffer
  zip64?: boolean
  /** List the central records in this order of the entries (local records stay in entry order). */
  centralOrder?: readonly number[]
  end?: Partial<{disk: number; centralDisk: number; entriesOnDisk: number; entries: number; centralSize: number; centralOffset: number}>
}

/** Builds a ZIP from raw entries, in the order given, with whatever lies the entries and options carry. */
function buildZip(entries: readonly RawEntry[], options: BuildOptions = {}): Buffer {
  return serializeZip({
    prefix: options.prepend ?? Buffer.alloc(0),
    prefixInOffsets: options.adjustOffsets === true,
    entries: entries.map(zipEntry),
    centralOrder: options.centralOrder === undefined ? entries.map((_, index) => index) : [...options.centralOrder],
    beforeEnd: options.beforeEnd ?? Buffer.alloc(0),
    end: {disk: 0, centralDisk: 0, comment: options.comment ?? Buffer.alloc(0), ...(options.zip64 === true ? {zip64: true} : {}), ...options.end},
    suffix: options.append ?? Buffer.alloc(0),
  })
}

/** Writes stored entries of `size` zero bytes each, leaving the data as holes: a huge archive that takes no disk space. */
async function writeSparseStoredZip(file: string, entries: readonly {name: string; size: number}[]): Promise<void> {
  const handle = await open(file, 'w')
  try {
    const central: Buffer[] = []
    let offset = 0
    for (const {name, size} of entries) {
      const entry = zipEntry({name, method: 0, payload: Buffer.alloc(0), crc: crcOfZeros(size), compressedSize: size, uncompressedSize: size})
      const header = localHeaderBytes(entry.local)
      await handle.write(header, 0, header.length, offset)
      central.push(centralHeaderBytes(entry.central, offset))
      offset += header.length + size
    }
    const directory = Buffer.concat(central)
    const end = endRecordBytes({disk: 0, centralDisk: 0, entriesOnDisk: entries.length, entries: entries.length, centralSize: directory.length, centralOffset: offset, comment: Buffer.alloc(0)})
    const tail = Buffer.concat([directory, end])
    await handle.write(tail, 0, tail.length, offset)
  } finally {
    await handle.close()
  }
}

const zeroMiB = Buffer.alloc(MiB)
function crcOfZeros(size: number): number {
  let crc = 0
  for (let done = 0; done < size; done += MiB) crc = zlib.crc32(zeroMiB.subarray(0, Math.min(MiB, size - done)), crc)
  return crc
}

/** Packs bits least-significant first, as deflate does (RFC 1951 §3.1.1). */
class BitWriter {
  readonly #buffer: Buffer
  #position = 0
  #accumulator = 0
  #count = 0

  constructor(capacity: number) {
    this.#buffer = Buffer.alloc(capacity)
  }

  bits(value: number, count: number): void {
    this.#accumulator |= value << this.#count
    this.#count += count
    while (this.#count >= 8) {
      this.#buffer[this.#position++] = this.#accumulator & 0xff
      this.#accumulator >>>= 8
      this.#count -= 8
    }
  }

  /** A Huffman code, which deflate stores most-significant bit first. */
  code(code: number, count: number): void {
    let reversed = 0
    for (let i = 0; i < count; i++) reversed |= ((code >>> i) & 1) << (count - 1 - i)
    this.bits(reversed, count)
  }

  finish(): Buffer {
    if (this.#count > 0) this.bits(0, 8 - this.#count)
    return this.#buffer.subarray(0, this.#position)
  }
}

/**
 * A raw deflate stream of `size` zero bytes, built directly instead of compressed: one fixed-Huffman
 * block, a literal zero, then <length 258, distance 1> pairs (13 bits per 258 bytes, a ratio of
 * about 160), so a bomb of hundreds of MiB costs a few milliseconds and no memory to build.
 */
function deflateZeros(size: number): Buffer {
  const writer = new BitWriter(Math.ceil(size / 258) * 2 + 600)
  writer.bits(1, 1) // BFINAL
  writer.bits(1, 2) // BTYPE 01: fixed Huffman codes
  let left = size
  if (left > 0) {
    writer.code(0x30, 8) // literal 0
    left--
  }
  for (; left >= 258; left -= 258) {
    writer.code(0xc5, 8) // length code 285: 258 bytes
    writer.code(0, 5) // distance code 0: 1 byte back
  }
  for (; left > 0; left--) writer.code(0x30, 8)
  writer.code(0, 7) // end of block
  return writer.finish()
}

// ---------------------------------------------------------------------------------------------
// The plausible plugin every case starts from.

const executable = Buffer.concat([Buffer.from('7f454c4602010100', 'hex'), Buffer.alloc(4000, 0x90), Buffer.from('weather station\n')])
const icon = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(300, 0x11)])
const payload: RawEntry[] = [
  {name: 'assets/icon.png', data: icon},
  {name: 'runtimes/linux-x64/sample', data: executable, mode: 0o100755},
]

function manifestBytes(extra: Record<string, unknown> = {}): Buffer {
  const files = payload.map((entry) => ({
    path: String(entry.name),
    sha256: `sha256:${createHash('sha256').update(entry.data!).digest('hex')}`,
    size: entry.data!.length,
  }))
  const manifest = {
    manifestVersion: 1,
    id: 'com.example.hostile-sample',
    name: 'Hostile Sample',
    version: '1.0.0',
    description: 'An otherwise valid plugin, broken in one way for the strict reader to refuse.',
    icon: 'assets/icon.png',
    publisher: {name: 'Example Labs', id: 'com.example'},
    entrypoints: {'linux-x64': {executable: 'runtimes/linux-x64/sample'}},
    files,
    ...extra,
  }
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`)
}

const manifest: RawEntry = {name: 'manifest.json', data: manifestBytes()}

/** The plugin with `extra` entries appended. */
function plugin(...extra: RawEntry[]): RawEntry[] {
  return [manifest, ...payload, ...extra]
}

const note = Buffer.from('A small text file.\n'.repeat(20))

/** One entry with a hostile name and an ordinary body. */
function named(name: string | Buffer, extra: Partial<RawEntry> = {}): RawEntry[] {
  return plugin({name, data: note, ...extra})
}

/** One regular-looking entry with a hostile Unix mode. */
function moded(mode: number, extra: Partial<RawEntry> = {}): RawEntry[] {
  return plugin({name: 'runtimes/linux-x64/extra', data: Buffer.from('/etc/passwd'), mode, ...extra})
}

function unicodePathExtra(rawName: Buffer, unicodeName: string): Buffer {
  const body = Buffer.concat([Buffer.from([1]), Buffer.alloc(4), Buffer.from(unicodeName, 'utf8')])
  body.writeUInt32LE(zlib.crc32(rawName), 1)
  const header = Buffer.alloc(4)
  header.writeUInt16LE(0x7075, 0)
  header.writeUInt16LE(body.length, 2)
  return Buffer.concat([header, body])
}

function zip64Extra(uncompressed: number, compressed: number): Buffer {
  const field = Buffer.alloc(20)
  field.writeUInt16LE(0x0001, 0)
  field.writeUInt16LE(16, 2)
  field.writeBigUInt64LE(BigInt(uncompressed), 4)
  field.writeBigUInt64LE(BigInt(compressed), 12)
  return field
}

function dataDescriptor(crc: number, compressedSize: number, uncompressedSize: number): Buffer {
  const descriptor = Buffer.alloc(16)
  descriptor.writeUInt32LE(0x08074b50, 0)
  descriptor.writeUInt32LE(crc >>> 0, 4)
  descriptor.writeUInt32LE(compressedSize, 8)
  descriptor.writeUInt32LE(uncompressedSize, 12)
  return descriptor
}

/** `deflated` behind one non-final empty stored block per byte of `hidden`: 5 bytes that inflate to nothing, whose 5 spare bits carry 5 bits of it. */
function paddedDeflate(deflated: Buffer, hidden: Buffer): Buffer {
  return Buffer.concat([...[...hidden].map((bits) => Buffer.from([(bits & 0x1f) << 3, 0x00, 0x00, 0xff, 0xff])), deflated])
}

/** A directory entry with whatever data and header values it is given. */
function directory(fields: Partial<RawEntry>): RawEntry {
  return {name: 'assets/', crc: 0, uncompressedSize: 0, mode: 0o040755, ...fields}
}

// ---------------------------------------------------------------------------------------------
// The corpus.

type Build = Buffer | ((file: string) => Promise<void>)

interface CaseDefinition {
  name: string
  description: string
  code: ArchiveErrorCode
  reason: ArchiveErrorReason
  at?: 'open' | 'read'
  build: () => Build
}

const text = Buffer.from('The quick brown fox jumps over the lazy dog.\n'.repeat(400))

const definitions: CaseDefinition[] = [
  // Not a ZIP at all.
  {name: 'not-a-zip', description: 'a text file', code: 'not-an-artifact', reason: 'no-end-record', build: () => Buffer.from('This is not a ZIP archive.\n'.repeat(10))},
  {name: 'empty-file', description: 'zero bytes', code: 'not-an-artifact', reason: 'no-end-record', build: () => Buffer.alloc(0)},
  {name: 'truncated', description: 'a valid archive cut in half', code: 'not-an-artifact', reason: 'no-end-record', build: () => {
    const whole = buildZip(plugin())
    return whole.subarray(0, whole.length >> 1)
  }},

  // Strict reading: nothing before, after or around the archive.
  {name: 'prepended-bytes', description: 'a stub glued before the archive, offsets left as they were', code: 'archive-malformed', reason: 'prepended-bytes', build: () => buildZip(plugin(), {prepend: Buffer.from('#!/bin/sh\nexec unzip "$0"\n')})},
  {name: 'prepended-bytes-adjusted', description: 'a stub before the archive with every offset shifted to match (zip -A)', code: 'archive-malformed', reason: 'prepended-bytes', build: () => buildZip(plugin(), {prepend: Buffer.from('MZ self-extractor stub....'), adjustOffsets: true})},
  {name: 'trailing-bytes', description: 'bytes appended after the end record', code: 'archive-malformed', reason: 'trailing-bytes', build: () => buildZip(plugin(), {append: Buffer.from('appended payload')})},
  {name: 'archive-comment', description: 'a non-empty archive comment', code: 'archive-malformed', reason: 'archive-comment', build: () => buildZip(plugin(), {comment: Buffer.from('comment')})},
  {name: 'central-directory-misplaced', description: 'junk between the central directory and the end record', code: 'archive-malformed', reason: 'central-directory-misplaced', build: () => buildZip(plugin(), {beforeEnd: Buffer.from('hidden bytes')})},
  {name: 'hidden-central-record', description: 'the end record counts one central record fewer than the directory holds', code: 'archive-malformed', reason: 'central-directory-invalid', build: () => buildZip(plugin(), {end: {entries: 2, entriesOnDisk: 2}})},
  {name: 'gap-between-entries', description: 'unlisted bytes between two entries', code: 'archive-malformed', reason: 'gap-between-entries', build: () => buildZip([manifest, {...payload[0]!, after: Buffer.from('smuggled bytes')}, payload[1]!])},
  {name: 'multi-disk', description: 'an end record that names another disk', code: 'archive-unsupported', reason: 'multi-disk', build: () => buildZip(plugin(), {end: {disk: 1, centralDisk: 1}})},
  {name: 'zip64-eocd', description: 'a ZIP64 end record and locator', code: 'archive-unsupported', reason: 'zip64', build: () => buildZip(plugin(), {zip64: true})},
  {name: 'zip64-extra-field', description: 'an entry whose sizes are 0xffffffff, deferred to a ZIP64 extra field', code: 'archive-unsupported', reason: 'zip64', build: () => {
    const data = Buffer.from('zip64 sized entry\n')
    const compressed = zlib.deflateRawSync(data)
    return buildZip(plugin({name: 'notes.txt', data, payload: compressed, compressedSize: 0xffffffff, uncompressedSize: 0xffffffff, centralExtra: zip64Extra(data.length, compressed.length), local: {compressedSize: 0xffffffff, uncompressedSize: 0xffffffff}, localExtra: zip64Extra(data.length, compressed.length)}))
  }},

  // Encryption, methods, second names.
  {name: 'encrypted-entry', description: 'traditional PKWARE encryption (flag bit 0)', code: 'archive-unsupported', reason: 'encrypted', build: () => buildZip(plugin({name: 'secret.txt', data: note, flags: flagUtf8 | 0x1}))},
  {name: 'strong-encryption', description: 'strong encryption (flag bits 0 and 6)', code: 'archive-unsupported', reason: 'encrypted', build: () => buildZip(plugin({name: 'secret.txt', data: note, flags: flagUtf8 | 0x41}))},
  {name: 'method-bzip2', description: 'compression method 12 (bzip2)', code: 'archive-unsupported', reason: 'unsupported-method', build: () => buildZip(plugin({name: 'notes.txt', data: note, method: 12, payload: Buffer.from('BZh91AY&SY fake')}))},
  {name: 'method-lzma', description: 'compression method 14 (LZMA)', code: 'archive-unsupported', reason: 'unsupported-method', build: () => buildZip(plugin({name: 'notes.txt', data: note, method: 14, payload: Buffer.from('fake lzma data')}))},
  {name: 'unicode-path-extra', description: 'an Info-ZIP Unicode-path extra field giving the entry a second name', code: 'archive-unsupported', reason: 'unicode-path-extra', build: () => {
    const raw = Buffer.from('notes.txt')
    return buildZip(plugin({name: raw, data: note, centralExtra: unicodePathExtra(raw, 'runtimes/linux-x64/sample2')}))
  }},

  // Local headers that disagree with the central directory.
  {name: 'local-header-name-mismatch', description: 'the local header names another file than the central record', code: 'archive-malformed', reason: 'local-header-name-mismatch', build: () => buildZip(plugin({name: 'notes.txt', data: note, local: {name: 'other.exe'}}))},
  {name: 'local-header-size-mismatch', description: 'the local header declares other sizes', code: 'archive-malformed', reason: 'local-header-size-mismatch', build: () => buildZip(plugin({name: 'notes.txt', data: note, local: {uncompressedSize: 5}}))},
  {name: 'local-header-method-mismatch', description: 'the local header says stored, the central record deflate', code: 'archive-malformed', reason: 'local-header-method-mismatch', build: () => buildZip(plugin({name: 'notes.txt', data: note, local: {method: 0}}))},
  {name: 'local-header-flags-mismatch', description: 'the local header has other general-purpose flags', code: 'archive-malformed', reason: 'local-header-flags-mismatch', build: () => buildZip(plugin({name: 'notes.txt', data: note, local: {flags: flagUtf8 | 0x2}}))},
  {name: 'local-header-crc-mismatch', description: 'the local header declares another CRC-32', code: 'archive-malformed', reason: 'local-header-crc-mismatch', build: () => buildZip(plugin({name: 'notes.txt', data: note, local: {crc: 0x12345678}}))},
  {name: 'local-header-signature', description: 'the central record points at bytes that are not a local header', code: 'archive-malformed', reason: 'local-header-invalid', build: () => buildZip(plugin({name: 'notes.txt', data: note, local: {signature: 0x0badf00d}}))},
  {name: 'data-descriptor-mismatch', description: 'a data descriptor that contradicts the central record', code: 'archive-malformed', reason: 'data-descriptor-mismatch', build: () => {
    const compressed = zlib.deflateRawSync(note)
    return buildZip(plugin({name: 'notes.txt', data: note, flags: flagUtf8 | 0x8, payload: compressed, after: dataDescriptor(0xdeadbeef, compressed.length, note.length)}))
  }},
  {name: 'stored-size-mismatch', description: 'a stored entry whose compressed and uncompressed sizes differ', code: 'archive-malformed', reason: 'stored-size-mismatch', build: () => buildZip(plugin({name: 'notes.txt', data: note, method: 0, uncompressedSize: note.length * 2}))},
  {name: 'directory-entry-with-data', description: 'a directory entry that carries bytes', code: 'archive-malformed', reason: 'directory-entry-with-data', build: () => buildZip(plugin({name: 'assets/', data: Buffer.from('data'), method: 0, mode: 0o040755}))},

  // Bytes no signature covers: a signature covers names and inflated contents only.
  {name: 'directory-entry-deflated-junk', description: 'a directory entry declaring deflate, 0 bytes and CRC 0 over 4,000 bytes of payload', code: 'archive-malformed', reason: 'directory-entry-with-data', build: () => buildZip(plugin(directory({method: 8, payload: Buffer.from(text.subarray(0, 4000))})))},
  {name: 'directory-entry-inflates', description: 'a deflated directory entry declaring 0 bytes whose 3 bytes inflate to one', code: 'archive-malformed', reason: 'directory-entry-with-data', build: () => buildZip(plugin(directory({method: 8, payload: zlib.deflateRawSync(Buffer.from('x'))})))},
  {name: 'directory-entry-deflate-trailing', description: 'a deflated directory entry whose empty deflate stream is followed by 2 more bytes', code: 'archive-malformed', reason: 'deflate-length-mismatch', build: () => buildZip(plugin(directory({method: 8, payload: Buffer.from([0x03, 0x00, 0x41, 0x42])})))},
  {name: 'directory-entry-crc', description: 'an empty stored directory entry declaring a CRC-32 other than 0', code: 'archive-malformed', reason: 'crc-mismatch', build: () => buildZip(plugin(directory({method: 0, crc: 0x5eed})))},
  {name: 'deflate-padded', description: 'a deflate stream behind 600 empty stored blocks whose spare bits carry a payload', code: 'archive-malformed', reason: 'deflate-expansion', build: () => buildZip(plugin({name: 'notes.txt', data: note, payload: paddedDeflate(zlib.deflateRawSync(note), text.subarray(0, 600))}))},
  {name: 'deflate-expansion', description: 'an entry declaring 1,000 bytes whose deflate stream inflates to 1 MiB (refused before inflating)', code: 'archive-malformed', reason: 'deflate-expansion', build: () => buildZip(plugin({name: 'notes.txt', payload: deflateZeros(MiB), crc: crcOfZeros(1000), uncompressedSize: 1000}))},
  {name: 'entry-comment', description: 'a comment on an entry', code: 'archive-malformed', reason: 'entry-comment', build: () => buildZip(plugin({name: 'notes.txt', data: note, comment: Buffer.from('unsigned words')}))},
  {name: 'entry-on-other-disk', description: 'a central record whose entry starts on disk 1', code: 'archive-unsupported', reason: 'multi-disk', build: () => buildZip(plugin({name: 'notes.txt', data: note, disk: 1}))},
  {name: 'unsupported-flags', description: 'a reserved general-purpose flag bit (14) in both headers', code: 'archive-unsupported', reason: 'unsupported-flags', build: () => buildZip(plugin({name: 'notes.txt', data: note, flags: flagUtf8 | 0x4000}))},
  {name: 'extra-field-unknown', description: 'a 64-byte zipalign padding field (0xd935) in a central record', code: 'archive-unsupported', reason: 'extra-field-unknown', build: () => buildZip(plugin({name: 'notes.txt', data: note, centralExtra: extraField(0xd935, text.subarray(0, 64))}))},
  {name: 'local-extra-field-layout', description: 'a 401-byte extended-timestamp field (0x5455) in a local header', code: 'archive-malformed', reason: 'extra-field-layout', build: () => buildZip(plugin({name: 'notes.txt', data: note, localExtra: extraField(0x5455, Buffer.concat([Buffer.from([1]), text.subarray(0, 400)]))}))},
  {name: 'extra-field-duplicate', description: 'the extended-timestamp field twice in one central record', code: 'archive-malformed', reason: 'extra-field-duplicate', build: () => {
    const mtime = extraField(0x5455, Buffer.from([1, 0, 0, 0, 0x60]))
    return buildZip(plugin({name: 'notes.txt', data: note, centralExtra: Buffer.concat([mtime, mtime])}))
  }},
  {name: 'extra-field-leftover', description: '3 bytes after the last extra field of a central record', code: 'archive-malformed', reason: 'extra-field-invalid', build: () => buildZip(plugin({name: 'notes.txt', data: note, centralExtra: Buffer.concat([extraField(0x5455, Buffer.from([1, 0, 0, 0, 0x60])), Buffer.from('abc')])}))},

  // Fifield bombs and overlaps.
  {name: 'overlapping-entries', description: 'a stored entry whose data quotes the next entry whole', code: 'archive-malformed', reason: 'overlapping-entries', build: () => {
    const inner = {name: 'inner.txt', data: note}
    const innerRecord = localHeaderBytes(zipEntry({...inner, method: 0}).local)
    const outerName = 'outer.bin'
    const quoted = Buffer.concat([innerRecord, note])
    return buildZip([
      {name: outerName, data: quoted, method: 0},
      {...inner, method: 0, localHeaderOffset: 30 + outerName.length},
      manifest,
      ...payload,
    ])
  }},
  {name: 'overlap-bomb', description: 'twelve entries sharing one 256 MiB deflate kernel: about 3 GiB declared from 1.6 MB', code: 'limit-exceeded', reason: 'total-too-large', build: () => {
    const size = 256 * MiB
    const kernel = deflateZeros(size)
    const crc = crcOfZeros(size)
    const copies = Array.from({length: 12}, (_, i): RawEntry => ({name: `data/blob-${String(i).padStart(2, '0')}.bin`, payload: kernel, crc, uncompressedSize: size, localHeaderOffset: 0, local: {name: 'data/blob-00.bin'}}))
    return buildZip([{...copies[0]!, localHeaderOffset: undefined, local: undefined}, ...copies.slice(1), manifest, ...payload])
  }},
  {name: 'ratio-bomb', description: 'one honest deflate stream of 400 MiB of zeros in 2.6 MB', code: 'limit-exceeded', reason: 'compression-ratio', build: () => {
    const size = 400 * MiB
    return buildZip(plugin({name: 'data/zeros.bin', payload: deflateZeros(size), crc: crcOfZeros(size), uncompressedSize: size}))
  }},
  {name: 'entry-too-large-declared', description: 'an entry declaring 600 MiB uncompressed', code: 'limit-exceeded', reason: 'entry-too-large', build: () => buildZip(plugin({name: 'data/huge.bin', data: note, uncompressedSize: 600 * MiB}))},
  {name: 'total-too-large', description: 'three entries declaring 400 MiB each', code: 'limit-exceeded', reason: 'total-too-large', build: () => buildZip(plugin(...[1, 2, 3].map((i) => ({name: `data/part${i}.bin`, data: note, uncompressedSize: 400 * MiB}))))},
  {name: 'manifest-too-large', description: 'a 9 MiB manifest.json (a valid manifest padded with whitespace)', code: 'limit-exceeded', reason: 'manifest-too-large', build: () => {
    const padded = Buffer.concat([manifestBytes(), Buffer.alloc(9 * MiB, 0x20)])
    return buildZip([{name: 'manifest.json', data: padded}, ...payload])
  }},
  {name: 'too-many-entries', description: '20,001 tiny stored entries', code: 'limit-exceeded', reason: 'too-many-entries', build: () => {
    const one = Buffer.from('x')
    const many = Array.from({length: 20_001 - 3}, (_, i): RawEntry => ({name: `data/${String(i).padStart(5, '0')}.txt`, data: one, method: 0}))
    return buildZip(plugin(...many))
  }},
  {name: 'archive-too-large', description: 'a 540 MiB archive (sparse on disk) of three stored 180 MiB entries', code: 'limit-exceeded', reason: 'archive-too-large', build: () => async (file) => {
    await writeSparseStoredZip(file, [
      {name: 'manifest.json', size: 0},
      ...[1, 2, 3].map((i) => ({name: `data/part${i}.bin`, size: 180 * MiB})),
    ])
  }},

  // Lies found while streaming.
  {name: 'crc-mismatch', description: 'an entry whose bytes fail their (consistently declared) CRC-32', code: 'archive-malformed', reason: 'crc-mismatch', at: 'read', build: () => buildZip(plugin({name: 'notes.txt', data: note, crc: zlib.crc32(note) ^ 1}))},
  {name: 'deflate-short', description: 'a deflate stream cut short: it wants more bytes than the compressed size declares', code: 'archive-malformed', reason: 'deflate-length-mismatch', at: 'read', build: () => {
    const compressed = zlib.deflateRawSync(text)
    return buildZip(plugin({name: 'notes.txt', data: text, payload: compressed.subarray(0, compressed.length >> 1)}))
  }},
  {name: 'deflate-trailing-bytes', description: 'a deflate stream that ends before the declared compressed size', code: 'archive-malformed', reason: 'deflate-length-mismatch', at: 'read', build: () => buildZip(plugin({name: 'notes.txt', data: text, payload: Buffer.concat([zlib.deflateRawSync(text), Buffer.from('hidden!')])}))},
  {name: 'deflate-invalid', description: 'bytes that are not a deflate stream', code: 'archive-malformed', reason: 'deflate-invalid', at: 'read', build: () => buildZip(plugin({name: 'notes.txt', data: note, payload: Buffer.alloc(32, 0xff)}))},
  {name: 'declared-size-lies', description: 'an entry declaring 100,000 bytes that inflates to 1 MiB', code: 'archive-malformed', reason: 'entry-larger-than-declared', at: 'read', build: () => buildZip(plugin({name: 'notes.txt', payload: deflateZeros(MiB), crc: crcOfZeros(100_000), uncompressedSize: 100_000}))},
  {name: 'declared-size-short', description: 'an entry declaring more bytes than it inflates to', code: 'archive-malformed', reason: 'entry-smaller-than-declared', at: 'read', build: () => buildZip(plugin({name: 'notes.txt', data: note, uncompressedSize: note.length + 100}))},

  // The entry-path policy: names.
  {name: 'path-traversal-dotdot', description: 'an entry named ../evil.txt', code: 'unsafe-entry', reason: 'parent-segment', build: () => buildZip(named('../evil.txt'))},
  {name: 'path-traversal-inner', description: 'a .. segment inside the path', code: 'unsafe-entry', reason: 'parent-segment', build: () => buildZip(named('assets/../../evil.txt'))},
  {name: 'absolute-path', description: 'an absolute path', code: 'unsafe-entry', reason: 'absolute', build: () => buildZip(named('/etc/cron.d/evil'))},
  {name: 'unc-path', description: 'a Windows UNC path', code: 'unsafe-entry', reason: 'absolute', build: () => buildZip(named('\\\\server\\share\\evil.dll'))},
  {name: 'drive-letter', description: 'a drive-letter path', code: 'unsafe-entry', reason: 'drive-letter', build: () => buildZip(named('C:/Windows/evil.dll'))},
  {name: 'backslash', description: 'a backslash in an archive name', code: 'unsafe-entry', reason: 'backslash', build: () => buildZip(named('runtimes\\win-x64\\evil.dll'))},
  {name: 'backslash-traversal', description: 'a backslash traversal', code: 'unsafe-entry', reason: 'backslash', build: () => buildZip(named('..\\evil.dll'))},
  {name: 'control-char', description: 'a control character (BEL) in a name', code: 'unsafe-entry', reason: 'control-character', build: () => buildZip(named('notes\u0007.txt'))},
  {name: 'nul-in-name', description: 'a NUL byte in a name', code: 'unsafe-entry', reason: 'control-character', build: () => buildZip(named('notes.txt\u0000.exe'))},
  {name: 'empty-name', description: 'an entry with an empty name', code: 'unsafe-entry', reason: 'empty', build: () => buildZip(named(''))},
  {name: 'too-long-name', description: 'a 201-character name', code: 'unsafe-entry', reason: 'too-long', build: () => buildZip(named(`data/${'n'.repeat(192)}.txt`))},
  {name: 'too-deep', description: '33 path segments', code: 'unsafe-entry', reason: 'too-deep', build: () => buildZip(named(`${'d/'.repeat(32)}f.txt`))},
  {name: 'trailing-dot', description: 'a segment ending with a dot', code: 'unsafe-entry', reason: 'trailing-dot-or-space', build: () => buildZip(named('docs./notes.txt'))},
  {name: 'trailing-space', description: 'a name ending with a space', code: 'unsafe-entry', reason: 'trailing-dot-or-space', build: () => buildZip(named('notes.txt '))},
  {name: 'reserved-char', description: 'a reserved character (?) in a name', code: 'unsafe-entry', reason: 'reserved-character', build: () => buildZip(named('what?.txt'))},
  {name: 'reserved-char-colon', description: 'an NTFS alternate data stream name', code: 'unsafe-entry', reason: 'reserved-character', build: () => buildZip(named('notes.txt:hidden'))},
  {name: 'empty-segment', description: 'an empty segment (a//b)', code: 'unsafe-entry', reason: 'empty-segment', build: () => buildZip(named('assets//notes.txt'))},
  {name: 'dot-segment', description: 'a . segment', code: 'unsafe-entry', reason: 'dot-segment', build: () => buildZip(named('./notes.txt'))},
  {name: 'device-name-con', description: 'the Windows device name CON', code: 'unsafe-entry', reason: 'device-name', build: () => buildZip(named('assets/CON'))},
  {name: 'device-name-with-extension', description: 'a device name with an extension (lpt1.txt)', code: 'unsafe-entry', reason: 'device-name', build: () => buildZip(named('lpt1.txt'))},
  {name: 'device-name-conin', description: 'the Windows console input CONIN$', code: 'unsafe-entry', reason: 'device-name', build: () => buildZip(named('assets/CONIN$'))},
  {name: 'device-name-conout', description: 'the Windows console output conout$.log', code: 'unsafe-entry', reason: 'device-name', build: () => buildZip(named('conout$.log'))},
  {name: 'device-name-superscript', description: 'COM¹, a superscript-digit serial port', code: 'unsafe-entry', reason: 'device-name', build: () => buildZip(named('COM¹.txt'))},
  {name: 'short-name-alias', description: 'LONGDI~1, an 8.3 short name that can alias another entry on NTFS', code: 'unsafe-entry', reason: 'short-name-alias', build: () => buildZip(named('LONGDI~1/notes.txt'))},
  {name: 'segment-too-long', description: 'a name of 86 CJK characters: 258 bytes of UTF-8, more than a file system takes for one name', code: 'unsafe-entry', reason: 'segment-too-long', build: () => buildZip(named(`assets/${'漢'.repeat(86)}.txt`))},
  {name: 'bidi-override', description: 'a right-to-left override that displays exe.txt as txt.exe', code: 'unsafe-entry', reason: 'format-character', build: () => buildZip(named('assets/report\u202etxt.exe'))},
  {name: 'zero-width-space', description: 'a zero-width space hiding inside a name', code: 'unsafe-entry', reason: 'format-character', build: () => buildZip(named('runtimes/linux-x64/sam\u200bple'))},
  {
    name: 'readme-lookalikes',
    description: 'README.md beside READ\u034fME.md (a combining grapheme joiner) and README.md\ufe0f (a variation selector): three names that display as README.md',
    code: 'unsafe-entry',
    reason: 'format-character',
    build: () => buildZip(plugin({name: 'README.md', data: note}, {name: 'READ\u034fME.md', data: note}, {name: 'README.md\ufe0f', data: note})),
  },
  {name: 'invalid-utf8-name', description: 'a name flagged UTF-8 whose bytes are not UTF-8', code: 'unsafe-entry', reason: 'invalid-utf8', build: () => buildZip(named(Buffer.from([0x6e, 0x6f, 0x74, 0x65, 0xff, 0xfe, 0x2e, 0x74, 0x78, 0x74])))},

  // The entry-path policy: file types.
  {name: 'symlink-entry', description: 'a symlink to /etc/passwd', code: 'unsafe-entry', reason: 'symlink', build: () => buildZip(moded(0o120777))},
  {name: 'setuid-entry', description: 'a regular file asking for the setuid bit', code: 'unsafe-entry', reason: 'special-mode-bits', build: () => buildZip(moded(0o104755))},
  {name: 'setgid-entry', description: 'a regular file asking for the setgid bit', code: 'unsafe-entry', reason: 'special-mode-bits', build: () => buildZip(moded(0o102755))},
  {name: 'sticky-entry', description: 'a regular file asking for the sticky bit', code: 'unsafe-entry', reason: 'special-mode-bits', build: () => buildZip(moded(0o101644))},
  {name: 'symlink-7zip', description: 'a symlink in 7-Zip\'s convention (MS-DOS host, Unix bits flagged 0x8000)', code: 'unsafe-entry', reason: 'symlink', build: () => buildZip(moded(0, {versionMadeBy: 20, externalAttributes: ((0o120777 << 16) | 0x8000 | 0x20) >>> 0}))},
  {name: 'fifo-mode', description: 'a FIFO', code: 'unsafe-entry', reason: 'fifo', build: () => buildZip(moded(0o010644))},
  {name: 'socket-mode', description: 'a socket', code: 'unsafe-entry', reason: 'socket', build: () => buildZip(moded(0o140755))},
  {name: 'char-device', description: 'a character device', code: 'unsafe-entry', reason: 'character-device', build: () => buildZip(moded(0o020644))},
  {name: 'block-device', description: 'a block device', code: 'unsafe-entry', reason: 'block-device', build: () => buildZip(moded(0o060644))},
  {name: 'directory-mode-file', description: 'a file entry whose mode says directory', code: 'unsafe-entry', reason: 'not-a-regular-file', build: () => buildZip(moded(0o040755))},

  // The entry-path policy: duplicates and collisions.
  {name: 'duplicate-name', description: 'the same name twice', code: 'archive-malformed', reason: 'duplicate-name', build: () => buildZip(plugin({name: 'runtimes/linux-x64/sample', data: Buffer.from('replacement'), mode: 0o100755}))},
  {name: 'case-collision', description: 'README.md and readme.md', code: 'archive-malformed', reason: 'case-collision', build: () => buildZip(plugin({name: 'README.md', data: note}, {name: 'readme.md', data: note}))},
  {name: 'directory-case-collision', description: 'share/a.txt and SHARE/b.txt: two spellings of one folder', code: 'archive-malformed', reason: 'case-collision', build: () => buildZip(plugin({name: 'share/a.txt', data: note}, {name: 'SHARE/b.txt', data: note}))},
  {name: 'nfc-collision', description: 'café.txt in NFC and in NFD', code: 'archive-malformed', reason: 'nfc-collision', build: () => buildZip(plugin({name: 'caf\u00e9.txt', data: note}, {name: 'cafe\u0301.txt', data: note}))},
  {name: 'file-directory-collision', description: 'a file named assets beside assets/icon.png', code: 'archive-malformed', reason: 'file-directory-collision', build: () => buildZip([manifest, {name: 'assets', data: note}, ...payload])},
]

/** Writes every hostile archive into `dir` (created if needed) and returns the cases, in a fixed order. */
export async function makeHostileArchives(dir: string): Promise<HostileCase[]> {
  await mkdir(dir, {recursive: true})
  const cases: HostileCase[] = []
  for (const definition of definitions) {
    const file = path.resolve(dir, `${definition.name}.svcPlugin`)
    const built = definition.build()
    if (Buffer.isBuffer(built)) await writeFile(file, built)
    else await built(file)
    cases.push({
      file,
      name: definition.name,
      description: definition.description,
      expect: {code: definition.code, reason: definition.reason, at: definition.at ?? 'open'},
    })
  }
  return cases
}

/**
 * The plugin every hostile case starts from, as a valid archive (for tests that the base itself is
 * accepted); with `reordered`, its central directory lists the entries in reverse order of their
 * local headers, which ZIP allows.
 */
export async function makeBaseArchive(file: string, options: {reordered?: boolean} = {}): Promise<void> {
  const entries = plugin()
  await writeFile(file, buildZip(entries, options.reordered ? {centralOrder: entries.map((_, i) => entries.length - 1 - i)} : {}))
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const dir = process.argv[2]
  if (dir === undefined) {
    process.stderr.write('usage: node dist/scripts/make-hostile-archives.js <dir>\n')
    process.exit(2)
  }
  const cases = await makeHostileArchives(dir)
  // A closed pipe (`| head`) ends the listing, not the process with an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error
  })
  for (const item of cases) process.stdout.write(`${item.name}\t${item.expect.code}/${item.expect.reason}\t${item.file}\n`)
  process.stderr.write(`${cases.length} hostile archives written to ${path.resolve(dir)}.\n`)
}
