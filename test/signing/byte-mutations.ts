import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {artifactDigestOf} from '../../src/artifact/artifact-digest.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {writeArtifact} from './artifacts.js'
import {testNow} from './pki.js'
import {tamperContext, type TamperContext} from './tamper-cases.js'

/**
 * The property every byte of a signed artifact must keep: a mutant of the file either fails to
 * verify, or verifies Trusted with the original's canonical digest (the changed byte lay in a header
 * field the signature does not need, or in deflate data that still inflates to the same content). A
 * mutant that adds bytes (inserted or appended) must never verify: it would hide unsigned bytes.
 */

/** One way to derive a mutant from the original bytes. */
export interface Mutation {
  /** e.g. `xor 0xff at 123`. */
  label: string
  /** True when the mutant holds more bytes than the original. */
  adds: boolean
  /** For a mutation that changes one byte in place: its offset. */
  offset?: number
  apply: (original: Buffer) => Buffer
}

export const flip = (offset: number, mask: number): Mutation => ({
  label: `xor 0x${mask.toString(16)} at ${offset}`,
  adds: false,
  offset,
  apply: (original) => {
    const copy = Buffer.from(original)
    copy[offset] = copy[offset]! ^ mask
    return copy
  },
})

export const insert = (offset: number, value: number): Mutation => ({
  label: `insert 0x${value.toString(16)} at ${offset}`,
  adds: true,
  apply: (original) => Buffer.concat([original.subarray(0, offset), Buffer.from([value]), original.subarray(offset)]),
})

export const append = (bytes: Buffer): Mutation => ({
  label: `append ${bytes.length} bytes`,
  adds: true,
  apply: (original) => Buffer.concat([original, bytes]),
})

/** What a run over some mutations found. */
export interface MutationReport {
  /** How many mutants verified Trusted (with the original's digest). */
  trusted: number
  /** The header fields (or entry data) where a changed byte still verified Trusted. */
  freeFields: Set<string>
  /** Every mutant that broke the property, with why. */
  violations: string[]
}

/**
 * The header fields of fixed size that no check needs: a byte changed there may still verify (the
 * signature does not cover them and they cannot carry more than their few bytes). Entry data may
 * change too when it still inflates to the same content, which the digest comparison proves.
 */
export const freeFields: ReadonlySet<string> = new Set([
  'local version needed',
  'local time',
  'local date',
  'central version made by',
  'central version needed',
  'central time',
  'central date',
  'central internal attributes',
  'central external attributes',
  'entry data',
])

const localFields: [number, number, string][] = [
  [0, 4, 'signature'], [4, 2, 'version needed'], [6, 2, 'flags'], [8, 2, 'method'], [10, 2, 'time'], [12, 2, 'date'], [14, 4, 'CRC-32'],
  [18, 4, 'compressed size'], [22, 4, 'uncompressed size'], [26, 2, 'name length'], [28, 2, 'extra length'],
]
const centralFields: [number, number, string][] = [
  [0, 4, 'signature'], [4, 2, 'version made by'], [6, 2, 'version needed'], [8, 2, 'flags'], [10, 2, 'method'], [12, 2, 'time'], [14, 2, 'date'],
  [16, 4, 'CRC-32'], [20, 4, 'compressed size'], [24, 4, 'uncompressed size'], [28, 2, 'name length'], [30, 2, 'extra length'],
  [32, 2, 'comment length'], [34, 2, 'disk number start'], [36, 2, 'internal attributes'], [38, 4, 'external attributes'], [42, 4, 'local header offset'],
]
const endFields: [number, number, string][] = [
  [0, 4, 'signature'], [4, 2, 'disk number'], [6, 2, 'central directory disk'], [8, 2, 'entries on disk'], [10, 2, 'entries'],
  [12, 4, 'central directory size'], [16, 4, 'central directory offset'], [20, 2, 'comment length'],
]

/** The ZIP field each byte of `zip` belongs to (an archive as the writer makes it: no comments, no descriptors). */
export function fieldsOf(zip: Buffer): string[] {
  const fields = new Array<string>(zip.length).fill('unlabelled')
  const label = (start: number, table: [number, number, string][], prefix: string): void => {
    for (const [offset, length, name] of table) fields.fill(`${prefix} ${name}`, start + offset, start + offset + length)
  }
  const end = zip.length - 22
  label(end, endFields, 'end record')
  let at = zip.readUInt32LE(end + 16)
  while (at < end) {
    const nameLength = zip.readUInt16LE(at + 28)
    const extraLength = zip.readUInt16LE(at + 30)
    label(at, centralFields, 'central')
    fields.fill('central name', at + 46, at + 46 + nameLength)
    fields.fill('central extra field', at + 46 + nameLength, at + 46 + nameLength + extraLength)
    const local = zip.readUInt32LE(at + 42)
    const localName = zip.readUInt16LE(local + 26)
    const localExtra = zip.readUInt16LE(local + 28)
    label(local, localFields, 'local')
    fields.fill('local name', local + 30, local + 30 + localName)
    fields.fill('local extra field', local + 30 + localName, local + 30 + localName + localExtra)
    const dataStart = local + 30 + localName + localExtra
    fields.fill('entry data', dataStart, dataStart + zip.readUInt32LE(at + 20))
    at += 46 + nameLength + extraLength + zip.readUInt16LE(at + 32)
  }
  return fields
}

/** A signed sample artifact on disk, its bytes, its trust store and its canonical digest. */
export interface SignedOriginal {
  dir: string
  bytes: Buffer
  /** The field of each byte (see {@link fieldsOf}). */
  fields: string[]
  context: TamperContext
  digest: string
  remove: () => Promise<void>
}

export async function signedOriginal(): Promise<SignedOriginal> {
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-mutations-'))
  const context = await tamperContext()
  const file = await writeArtifact(path.join(dir, 'original.svcPlugin'), context.signed)
  const bytes = await readFile(file)
  const {sha256} = await artifactDigestOf(file)
  return {dir, bytes, fields: fieldsOf(bytes), context, digest: sha256, remove: () => rm(dir, {recursive: true, force: true})}
}

/** Runs `mutations` one after another over the same scratch file and checks the property on each. */
export async function checkMutations(original: SignedOriginal, mutations: Iterable<Mutation>): Promise<MutationReport> {
  const file = path.join(original.dir, 'mutant.svcPlugin')
  const report: MutationReport = {trusted: 0, freeFields: new Set(), violations: []}
  for (const mutation of mutations) {
    await writeFile(file, mutation.apply(original.bytes))
    const result = await verifyArtifact(file, {trust: original.context.pki.trust, now: testNow})
    if (result.verdict !== 'Trusted') continue
    report.trusted++
    if (mutation.adds) {
      report.violations.push(`${mutation.label}: verifies Trusted with the added byte(s) hidden in it`)
      continue
    }
    const {sha256} = await artifactDigestOf(file)
    if (sha256 !== original.digest) report.violations.push(`${mutation.label}: verifies Trusted with digest ${sha256}, not ${original.digest}`)
    const field = mutation.offset === undefined ? 'unknown' : original.fields[mutation.offset]!
    report.freeFields.add(field)
    if (!freeFields.has(field)) report.violations.push(`${mutation.label}: verifies Trusted although it changed the ${field}`)
  }
  return report
}
