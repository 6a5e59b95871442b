/**
 * Mutations of `.svcPlugin` archives: raw edits (bit flips, boundary values written at any offset,
 * truncation, appended and inserted bytes, duplicated ranges), header-field edits at the offsets of real
 * records, and structural edits written back consistently through the ZIP model (duplicated, removed and
 * reordered records, directory entries carrying bytes, comments, extra fields, re-encoded data, data
 * descriptors).
 */
import zlib from 'node:zlib'
import fc from 'fast-check'
import {centralFields, contentOf, endFields, flagDataDescriptor, localFields, parseZip, recordOffsets, serializeZip, type ZipEntry, type ZipModel} from '../helpers/zip-model.js'

/** A value for a header field: a constant, or relative to the field's value or to the file's size. */
export type FieldValue = {constant: number} | {relative: 'current' | 'file-size'; delta: number}

const boundaries = [0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xfffe, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff]
const fieldValueArb: fc.Arbitrary<FieldValue> = fc.oneof(
  fc.constantFrom(...boundaries).map((constant) => ({constant})),
  fc.record({relative: fc.constantFrom('current' as const, 'file-size' as const), delta: fc.integer({min: -64, max: 64})}),
  fc.nat().map((constant) => ({constant})),
)

type LocalField = keyof typeof localFields
type CentralField = keyof typeof centralFields
type EndField = keyof typeof endFields

/** One edit of an archive; indexes (`at`, `entry`) are taken modulo what the archive holds. */
export type ArchiveMutation =
  | {op: 'flip-bit'; at: number; bit: number}
  | {op: 'set-byte'; at: number; value: number}
  | {op: 'set-word'; at: number; width: 2 | 4; value: FieldValue}
  | {op: 'truncate'; at: number}
  | {op: 'append'; bytes: Uint8Array}
  | {op: 'insert'; at: number; bytes: Uint8Array}
  | {op: 'delete'; at: number; length: number}
  | {op: 'duplicate-range'; at: number; length: number; to: number}
  | {op: 'local-field'; entry: number; field: LocalField; value: FieldValue}
  | {op: 'central-field'; entry: number; field: CentralField; value: FieldValue}
  | {op: 'end-field'; field: EndField; value: FieldValue}
  | {op: 'duplicate-entry'; entry: number; rename: 'same' | 'upper' | 'nfd' | 'slash' | 'suffix'}
  | {op: 'remove-entry'; entry: number}
  | {op: 'move-entry'; entry: number; to: number}
  | {op: 'move-central'; entry: number; to: number}
  | {op: 'add-directory'; name: string; data: Uint8Array; method: 0 | 8; declared: 'nothing' | 'honest'}
  | {op: 'add-file'; name: string; content: Uint8Array; method: 0 | 8}
  | {op: 'entry-comment'; entry: number; bytes: Uint8Array}
  | {op: 'extra-field'; entry: number; where: 'local' | 'central' | 'both'; id: number; data: Uint8Array}
  | {op: 'reencode'; entry: number; as: 'stored' | 0 | 1 | 9}
  | {op: 'local-name'; entry: number; name: string}
  | {op: 'gap'; entry: number; bytes: Uint8Array}
  | {op: 'data-descriptor'; entry: number; signature: boolean; honest: boolean}
  | {op: 'archive-comment'; bytes: Uint8Array}
  | {op: 'replace-manifest'; document: Uint8Array; method: 0 | 8}

const smallBytes = (max: number): fc.Arbitrary<Uint8Array> => fc.uint8Array({minLength: 1, maxLength: max})

/** Names a structural edit adds: directories, hostile member names, names the verifier treats specially, case and Unicode twins. */
const addedNames = ['extra.txt', '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'assets/__proto__', 'certificate.json', 'certificate.sig', 'issuer.json', 'issuer.sig', 'manifest.json', 'MANIFEST.JSON', 'Manifest.json', 'runtimes/linux-x64/x', 'runtimes/win-x64/WeatherStation.exe', 'caf\u00e9.txt', 'cafe\u0301.txt', 'a'.repeat(200)]
const directoryNames = ['junk/', 'assets/', 'runtimes/', 'runtimes/linux-x64/', 'manifest.json/', 'a/b/', '__proto__/', 'certificate.json/']

/**
 * Extra-field ids to add: unknown ones, ZIP64 and Unicode-path (always refused), and the ids of the fields
 * the standard tools write, but then with more bytes than any of those fields has, so that an archive
 * accepting it carries bytes nobody checks.
 */
const extraFieldArb: fc.Arbitrary<{id: number; data: Uint8Array}> = fc.oneof(
  fc.record({id: fc.integer({min: 0x0002, max: 0xfffe}).filter((id) => ![0x000a, 0x5455, 0x5855, 0x7875, 0x7075].includes(id)), data: fc.uint8Array({maxLength: 64})}),
  fc.record({id: fc.constantFrom(0x0001, 0x7075), data: fc.uint8Array({maxLength: 40})}),
  fc.record({id: fc.constantFrom(0x000a, 0x5455, 0x5855, 0x7875), data: fc.uint8Array({minLength: 40, maxLength: 200})}),
)

const localFieldArb = fc.constantFrom(...(Object.keys(localFields) as LocalField[]))
const centralFieldArb = fc.constantFrom(...(Object.keys(centralFields) as CentralField[]))
const endFieldArb = fc.constantFrom(...(Object.keys(endFields) as EndField[]))

/** Archive mutations; `documents` are manifests a mutation may put in place of the archive's own. */
export const archiveMutationArb = (documents: fc.Arbitrary<Uint8Array>): fc.Arbitrary<ArchiveMutation> => fc.oneof(
  {weight: 3, arbitrary: fc.record({op: fc.constant('flip-bit' as const), at: fc.nat(), bit: fc.nat(7)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('set-byte' as const), at: fc.nat(), value: fc.nat(255)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('set-word' as const), at: fc.nat(), width: fc.constantFrom(2 as const, 4 as const), value: fieldValueArb})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('truncate' as const), at: fc.nat()})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('append' as const), bytes: smallBytes(64)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('insert' as const), at: fc.nat(), bytes: smallBytes(64)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({min: 1, max: 128})})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('duplicate-range' as const), at: fc.nat(), length: fc.integer({min: 1, max: 512}), to: fc.nat()})},
  {weight: 3, arbitrary: fc.record({op: fc.constant('local-field' as const), entry: fc.nat(), field: localFieldArb, value: fieldValueArb})},
  {weight: 3, arbitrary: fc.record({op: fc.constant('central-field' as const), entry: fc.nat(), field: centralFieldArb, value: fieldValueArb})},
  {weight: 2, arbitrary: fc.record({op: fc.constant('end-field' as const), field: endFieldArb, value: fieldValueArb})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('duplicate-entry' as const), entry: fc.nat(), rename: fc.constantFrom('same' as const, 'upper' as const, 'nfd' as const, 'slash' as const, 'suffix' as const)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('remove-entry' as const), entry: fc.nat()})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('move-entry' as const), entry: fc.nat(), to: fc.nat()})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('move-central' as const), entry: fc.nat(), to: fc.nat()})},
  {weight: 2, arbitrary: fc.record({op: fc.constant('add-directory' as const), name: fc.constantFrom(...directoryNames), data: fc.uint8Array({maxLength: 300}), method: fc.constantFrom(0 as const, 8 as const), declared: fc.constantFrom('nothing' as const, 'honest' as const)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('add-file' as const), name: fc.constantFrom(...addedNames), content: fc.uint8Array({maxLength: 64}), method: fc.constantFrom(0 as const, 8 as const)})},
  {weight: 2, arbitrary: fc.record({op: fc.constant('entry-comment' as const), entry: fc.nat(), bytes: smallBytes(100)})},
  {weight: 2, arbitrary: fc.record({op: fc.constant('extra-field' as const), entry: fc.nat(), where: fc.constantFrom('local' as const, 'central' as const, 'both' as const), field: extraFieldArb}).map(({field, ...rest}) => ({...rest, ...field}))},
  {weight: 1, arbitrary: fc.record({op: fc.constant('reencode' as const), entry: fc.nat(), as: fc.constantFrom('stored' as const, 0 as const, 1 as const, 9 as const)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('local-name' as const), entry: fc.nat(), name: fc.constantFrom(...addedNames)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('gap' as const), entry: fc.nat(), bytes: smallBytes(64)})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('data-descriptor' as const), entry: fc.nat(), signature: fc.boolean(), honest: fc.boolean()})},
  {weight: 1, arbitrary: fc.record({op: fc.constant('archive-comment' as const), bytes: smallBytes(64)})},
  {weight: 3, arbitrary: fc.record({op: fc.constant('replace-manifest' as const), document: documents, method: fc.constantFrom(0 as const, 8 as const)})},
)

/** How an archive mutation reads in a finding. */
export function describeMutation(mutation: ArchiveMutation): string {
  const parts = Object.entries(mutation)
    .filter(([key]) => key !== 'op')
    .map(([key, value]) => `${key}=${value instanceof Uint8Array ? `<${value.length} bytes>` : typeof value === 'object' ? JSON.stringify(value) : typeof value === 'string' && value.length > 30 ? `${value.slice(0, 12)}…` : String(value)}`)
  return `${mutation.op}(${parts.join(' ')})`
}

/** Applies the mutations in order; a structural edit of bytes that no longer split into records is skipped. */
export function mutateArchive(input: Uint8Array, mutations: readonly ArchiveMutation[]): Buffer {
  let bytes: Buffer = Buffer.from(input)
  for (const mutation of mutations) bytes = applyOne(bytes, mutation)
  return bytes
}

const pick = (limit: number, value: number): number => (limit <= 0 ? 0 : value % limit)

function resolve(value: FieldValue, current: number, fileSize: number, width: 2 | 4): number {
  const raw = 'constant' in value ? value.constant : (value.relative === 'current' ? current : fileSize) + value.delta
  const modulus = width === 2 ? 0x10000 : 0x100000000
  return ((raw % modulus) + modulus) % modulus
}

function writeWord(bytes: Buffer, at: number, width: 2 | 4, value: FieldValue): void {
  if (at + width > bytes.length) return
  const current = width === 2 ? bytes.readUInt16LE(at) : bytes.readUInt32LE(at)
  const next = resolve(value, current, bytes.length, width)
  if (width === 2) bytes.writeUInt16LE(next, at)
  else bytes.writeUInt32LE(next, at)
}

function applyOne(input: Buffer, mutation: ArchiveMutation): Buffer {
  const bytes = Buffer.from(input)
  switch (mutation.op) {
    case 'flip-bit':
      if (bytes.length > 0) bytes[pick(bytes.length, mutation.at)]! ^= 1 << mutation.bit
      return bytes
    case 'set-byte':
      if (bytes.length > 0) bytes[pick(bytes.length, mutation.at)] = mutation.value
      return bytes
    case 'set-word':
      writeWord(bytes, pick(bytes.length, mutation.at), mutation.width, mutation.value)
      return bytes
    case 'truncate':
      return bytes.subarray(0, pick(bytes.length, mutation.at))
    case 'append':
      return Buffer.concat([bytes, mutation.bytes])
    case 'insert': {
      const at = pick(bytes.length + 1, mutation.at)
      return Buffer.concat([bytes.subarray(0, at), mutation.bytes, bytes.subarray(at)])
    }
    case 'delete': {
      const at = pick(bytes.length, mutation.at)
      return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + mutation.length)])
    }
    case 'duplicate-range': {
      const from = pick(bytes.length, mutation.at)
      const slice = Buffer.from(bytes.subarray(from, from + mutation.length))
      const to = pick(bytes.length + 1, mutation.to)
      return Buffer.concat([bytes.subarray(0, to), slice, bytes.subarray(to)])
    }
    case 'local-field':
    case 'central-field':
    case 'end-field': {
      const offsets = recordOffsets(bytes)
      if (offsets === null) return bytes
      const [record, [at, width]] =
        mutation.op === 'local-field'
          ? [offsets.local[pick(offsets.local.length, mutation.entry)], localFields[mutation.field]]
          : mutation.op === 'central-field'
            ? [offsets.central[pick(offsets.central.length, mutation.entry)], centralFields[mutation.field]]
            : [offsets.end, endFields[mutation.field]]
      if (record !== undefined) writeWord(bytes, record + at, width, mutation.value)
      return bytes
    }
    default: {
      const model = parseZip(bytes)
      if (model === null) return bytes
      editModel(model, mutation)
      return serializeZip(model)
    }
  }
}

function entryOf(model: ZipModel, index: number): ZipEntry | undefined {
  return model.entries[pick(model.entries.length, index)]
}

function copyEntry(entry: ZipEntry): ZipEntry {
  return {local: {...entry.local, name: Buffer.from(entry.local.name), extra: Buffer.from(entry.local.extra)}, data: Buffer.from(entry.data), central: {...entry.central, name: Buffer.from(entry.central.name), extra: Buffer.from(entry.central.extra), comment: Buffer.from(entry.central.comment)}}
}

/** A new entry, consistent in both headers: the data and declared sizes and CRC as given. */
function newEntry(name: string, data: Buffer, fields: {method: number; crc: number; compressedSize: number; uncompressedSize: number; mode: number}): ZipEntry {
  const raw = Buffer.from(name, 'utf8')
  const common = {version: 20, flags: 0x0800, method: fields.method, time: 0, date: 0x21, crc: fields.crc, compressedSize: fields.compressedSize, uncompressedSize: fields.uncompressedSize}
  return {
    local: {signature: 0x04034b50, ...common, name: raw, extra: Buffer.alloc(0)},
    data,
    central: {signature: 0x02014b50, madeBy: (3 << 8) | 20, ...common, name: Buffer.from(raw), extra: Buffer.alloc(0), comment: Buffer.alloc(0), diskStart: 0, internal: 0, external: (fields.mode << 16) >>> 0},
  }
}

function insertEntry(model: ZipModel, entry: ZipEntry, at: number): void {
  const index = pick(model.entries.length + 1, at)
  model.entries.splice(index, 0, entry)
  model.centralOrder = model.centralOrder.map((i) => (i >= index ? i + 1 : i))
  model.centralOrder.splice(pick(model.centralOrder.length + 1, at), 0, index)
}

function renamed(name: Buffer, rename: 'same' | 'upper' | 'nfd' | 'slash' | 'suffix'): Buffer {
  const text = name.toString('utf8')
  switch (rename) {
    case 'same':
      return Buffer.from(name)
    case 'upper':
      return Buffer.from(text.toUpperCase(), 'utf8')
    case 'nfd':
      return Buffer.from(text.normalize('NFD').replace(/e/, 'e\u0301'), 'utf8')
    case 'slash':
      return Buffer.from(`${text}/`, 'utf8')
    case 'suffix':
      return Buffer.from(`${text}.copy`, 'utf8')
  }
}

function editModel(model: ZipModel, mutation: ArchiveMutation): void {
  switch (mutation.op) {
    case 'duplicate-entry': {
      const entry = entryOf(model, mutation.entry)
      if (entry === undefined) return
      const copy = copyEntry(entry)
      copy.central.name = renamed(entry.central.name, mutation.rename)
      copy.local.name = Buffer.from(copy.central.name)
      insertEntry(model, copy, mutation.entry + 1)
      return
    }
    case 'remove-entry': {
      const index = pick(model.entries.length, mutation.entry)
      if (model.entries.length === 0) return
      model.entries.splice(index, 1)
      model.centralOrder = model.centralOrder.filter((i) => i !== index).map((i) => (i > index ? i - 1 : i))
      return
    }
    case 'move-entry': {
      if (model.entries.length < 2) return
      const from = pick(model.entries.length, mutation.entry)
      const to = pick(model.entries.length, mutation.to)
      const [moved] = model.entries.splice(from, 1)
      model.entries.splice(to, 0, moved!)
      const position = (i: number): number => {
        if (i === from) return to
        const without = i > from ? i - 1 : i
        return without >= to ? without + 1 : without
      }
      model.centralOrder = model.centralOrder.map(position)
      return
    }
    case 'move-central': {
      if (model.centralOrder.length < 2) return
      const [moved] = model.centralOrder.splice(pick(model.centralOrder.length, mutation.entry), 1)
      model.centralOrder.splice(pick(model.centralOrder.length + 1, mutation.to), 0, moved!)
      return
    }
    case 'add-directory': {
      const data = Buffer.from(mutation.data)
      const payload = mutation.method === 8 ? Buffer.concat([zlib.deflateRawSync(Buffer.alloc(0)), data]) : data
      const declared = mutation.declared === 'honest' ? payload.length : 0
      insertEntry(model, newEntry(mutation.name, payload, {method: mutation.method, crc: 0, compressedSize: declared, uncompressedSize: 0, mode: 0o040755}), model.entries.length)
      return
    }
    case 'add-file': {
      const content = Buffer.from(mutation.content)
      const data = mutation.method === 8 ? zlib.deflateRawSync(content) : content
      insertEntry(model, newEntry(mutation.name, data, {method: mutation.method, crc: zlib.crc32(content), compressedSize: data.length, uncompressedSize: content.length, mode: 0o100644}), model.entries.length)
      return
    }
    case 'entry-comment': {
      const entry = entryOf(model, mutation.entry)
      if (entry !== undefined) entry.central.comment = Buffer.from(mutation.bytes)
      return
    }
    case 'extra-field': {
      const entry = entryOf(model, mutation.entry)
      if (entry === undefined) return
      const field = Buffer.alloc(4 + mutation.data.length)
      field.writeUInt16LE(mutation.id, 0)
      field.writeUInt16LE(mutation.data.length, 2)
      field.set(mutation.data, 4)
      if (mutation.where !== 'central') entry.local.extra = Buffer.concat([entry.local.extra, field])
      if (mutation.where !== 'local') entry.central.extra = Buffer.concat([entry.central.extra, field])
      return
    }
    case 'reencode': {
      // The same content in another encoding: the signature still covers it, so this must stay Trusted.
      const entry = entryOf(model, mutation.entry)
      if (entry === undefined || (entry.central.flags & flagDataDescriptor) !== 0) return
      const content = contentOf(entry)
      if (content === null || content.length !== entry.central.uncompressedSize) return
      const data = mutation.as === 'stored' ? content : zlib.deflateRawSync(content, {level: mutation.as})
      const method = mutation.as === 'stored' ? 0 : 8
      entry.data = Buffer.concat([data, entry.data.subarray(entry.central.compressedSize)])
      for (const header of [entry.local, entry.central]) {
        header.method = method
        header.compressedSize = data.length
      }
      return
    }
    case 'local-name': {
      const entry = entryOf(model, mutation.entry)
      if (entry !== undefined) entry.local.name = Buffer.from(mutation.name, 'utf8')
      return
    }
    case 'gap': {
      const entry = entryOf(model, mutation.entry)
      if (entry !== undefined) entry.data = Buffer.concat([entry.data, mutation.bytes])
      return
    }
    case 'data-descriptor': {
      const entry = entryOf(model, mutation.entry)
      if (entry === undefined || (entry.central.flags & flagDataDescriptor) !== 0) return
      const descriptor = Buffer.alloc(mutation.signature ? 16 : 12)
      let at = 0
      if (mutation.signature) descriptor.writeUInt32LE(0x08074b50, (at += 4) - 4)
      descriptor.writeUInt32LE(mutation.honest ? entry.central.crc : (entry.central.crc ^ 0x5a5a5a5a) >>> 0, at)
      descriptor.writeUInt32LE(entry.central.compressedSize, at + 4)
      descriptor.writeUInt32LE(entry.central.uncompressedSize, at + 8)
      const end = entry.central.compressedSize
      entry.data = Buffer.concat([entry.data.subarray(0, end), descriptor, entry.data.subarray(end)])
      entry.local.flags |= flagDataDescriptor
      entry.central.flags |= flagDataDescriptor
      return
    }
    case 'archive-comment':
      model.end.comment = Buffer.from(mutation.bytes)
      return
    case 'replace-manifest': {
      // Another manifest, stored consistently: what the readers then judge is the manifest, not the container.
      const content = Buffer.from(mutation.document)
      const data = mutation.method === 8 ? zlib.deflateRawSync(content) : content
      const fields = {method: mutation.method, crc: zlib.crc32(content), compressedSize: data.length, uncompressedSize: content.length}
      const entry = model.entries.find((candidate) => candidate.central.name.toString('latin1') === 'manifest.json')
      if (entry === undefined) {
        insertEntry(model, newEntry('manifest.json', data, {...fields, mode: 0o100644}), 0)
        return
      }
      entry.data = data
      entry.local.flags &= ~flagDataDescriptor
      entry.central.flags &= ~flagDataDescriptor
      Object.assign(entry.local, fields)
      Object.assign(entry.central, fields)
      return
    }
    default:
      return
  }
}
