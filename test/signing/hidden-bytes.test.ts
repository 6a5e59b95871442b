import assert from 'node:assert/strict'
import {randomBytes} from 'node:crypto'
import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {ArchiveError} from '../../src/archive/errors.js'
import {openArchive} from '../../src/archive/reader.js'
import {verifyArtifact} from '../../src/signing/verify-artifact.js'
import {extraField, joinZip, newRecord, splitZip, type ZipRecord} from '../helpers/zip-splice.js'
import {writeArtifact} from './artifacts.js'
import {testNow} from './pki.js'
import {tamperContext, type TamperContext} from './tamper-cases.js'

// A signature covers entry names and inflated contents, nothing else. Each case below takes a real
// signed artifact and hides unsigned bytes somewhere else in the file, leaving every signed byte as it
// was: none of them may still verify, or one signature would fit endlessly many files and unsigned
// payload would ride inside a trusted artifact.

let dir: string
let context: TamperContext
let original: Buffer
let counter = 0

before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-hidden-'))
  context = await tamperContext()
  original = await readFile(await writeArtifact(path.join(dir, 'signed.svcPlugin'), context.signed))
})
after(async () => {
  await rm(dir, {recursive: true, force: true})
})

/** The verdict of verifyArtifact on `bytes`, and how the strict reader refuses them (null when it reads every entry). */
async function judge(bytes: Buffer): Promise<{verdict: string; refusal: {code: string; reason: string} | null}> {
  const file = path.join(dir, `mutant-${counter++}.svcPlugin`)
  await writeFile(file, bytes)
  const result = await verifyArtifact(file, {trust: context.pki.trust, now: testNow})
  let refusal: {code: string; reason: string} | null = null
  try {
    const archive = await openArchive(file)
    try {
      await archive.digestEntries()
    } finally {
      await archive.close()
    }
  } catch (error) {
    assert.ok(error instanceof ArchiveError, String(error))
    refusal = {code: error.code, reason: error.details.reason}
  }
  return {verdict: result.verdict, refusal}
}

/** The signed artifact with `edit` applied to its records. */
function edited(edit: (records: ZipRecord[]) => void): Buffer {
  const records = splitZip(original)
  edit(records)
  return joinZip(records)
}

const record = (records: ZipRecord[], name: string): ZipRecord => records.find((item) => item.name.toString('utf8') === name)!

/** Sets the compressed size in both headers of `item` to its data length. */
function fitCompressedSize(item: ZipRecord): void {
  item.localFixed.writeUInt32LE(item.data.length, 18)
  item.centralFixed.writeUInt32LE(item.data.length, 20)
}

describe('unsigned bytes hidden in a signed artifact', () => {
  it('starts from an artifact that verifies, and splits and joins back to the same bytes', async () => {
    assert.ok(joinZip(splitZip(original)).equals(original))
    assert.deepEqual(await judge(original), {verdict: 'Trusted', refusal: null})
  })

  it('refuses a directory entry that claims deflate, 0 bytes and CRC 0 but carries 4,000 bytes of payload', async () => {
    const mutant = edited((records) => records.push(newRecord({name: 'junk/', method: 8, data: randomBytes(4000), crc: 0, uncompressedSize: 0, mode: 0o040755})))
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'directory-entry-with-data'}})
  })

  it('refuses a deflated directory entry whose few bytes are not an empty deflate stream', async () => {
    const mutant = edited((records) => records.push(newRecord({name: 'junk/', method: 8, data: Buffer.from([0x03, 0x00, 0x41, 0x42]), crc: 0, uncompressedSize: 0, mode: 0o040755})))
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'deflate-length-mismatch'}})
  })

  it('accepts a directory entry with the two-byte empty deflate stream Java and .NET write', async () => {
    const mutant = edited((records) => records.push(newRecord({name: 'assets/', method: 8, mode: 0o040755})))
    assert.deepEqual(await judge(mutant), {verdict: 'Trusted', refusal: null})
  })

  it('refuses a file whose deflate stream is padded with empty blocks whose spare bits carry a payload', async () => {
    const hidden = randomBytes(2000)
    const mutant = edited((records) => {
      // The writer deflates only what deflate shrinks: the manifest is deflated, the tiny payload files are stored.
      const item = record(records, 'manifest.json')
      assert.equal(item.centralFixed.readUInt16LE(10), 8, 'premise: manifest.json is deflated')
      // Each non-final empty stored block is 5 bytes; deflate ignores the 5 padding bits after its 3 header bits.
      const padding = Buffer.concat([...hidden].map((byte) => Buffer.from([(byte & 0x1f) << 3, 0x00, 0x00, 0xff, 0xff])))
      item.data = Buffer.concat([padding, item.data])
      fitCompressedSize(item)
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'deflate-expansion'}})
  })

  it('refuses a comment on an entry', async () => {
    const mutant = edited((records) => {
      record(records, 'manifest.json').comment = Buffer.from('unsigned words')
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'entry-comment'}})
  })

  it('refuses an extra field of an unknown kind, in the central record and in the local header', async () => {
    const padding = extraField(0xd935, randomBytes(64))
    for (const where of ['centralExtra', 'localExtra'] as const) {
      const mutant = edited((records) => {
        record(records, 'assets/icon.png')[where] = padding
      })
      assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-unsupported', reason: 'extra-field-unknown'}}, where)
    }
  })

  it('refuses a known extra field longer than its layout allows', async () => {
    const mutant = edited((records) => {
      record(records, 'assets/icon.png').localExtra = extraField(0x5455, Buffer.concat([Buffer.from([1]), randomBytes(400)]))
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'extra-field-layout'}})
  })

  it('refuses bytes left over after the last extra field', async () => {
    const mutant = edited((records) => {
      record(records, 'assets/icon.png').centralExtra = Buffer.from([0x41, 0x42, 0x43])
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'extra-field-invalid'}})
  })

  it('refuses the same extra field twice', async () => {
    const mtime = extraField(0x5455, Buffer.from([1, 0, 0, 0, 0x60]))
    const mutant = edited((records) => {
      record(records, 'assets/icon.png').localExtra = Buffer.concat([mtime, mtime])
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-malformed', reason: 'extra-field-duplicate'}})
  })

  it('accepts the timestamp and owner fields Info-ZIP writes, in both headers', async () => {
    const owner = extraField(0x7875, Buffer.from([1, 4, 0xe8, 3, 0, 0, 4, 0xe8, 3, 0, 0]))
    const mutant = edited((records) => {
      const item = record(records, 'assets/icon.png')
      item.localExtra = Buffer.concat([extraField(0x5455, Buffer.from([3, 1, 2, 3, 4, 5, 6, 7, 8])), owner])
      item.centralExtra = Buffer.concat([extraField(0x5455, Buffer.from([3, 1, 2, 3, 4])), owner])
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Trusted', refusal: null})
  })

  it('refuses a central record that says its entry starts on another disk', async () => {
    const mutant = edited((records) => {
      record(records, 'assets/icon.png').centralFixed.writeUInt16LE(1, 34)
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-unsupported', reason: 'multi-disk'}})
  })

  it('refuses general-purpose flag bits that no reader defines', async () => {
    const mutant = edited((records) => {
      const item = record(records, 'assets/icon.png')
      item.localFixed.writeUInt16LE(item.localFixed.readUInt16LE(6) | 0x4000, 6)
      item.centralFixed.writeUInt16LE(item.centralFixed.readUInt16LE(8) | 0x4000, 8)
    })
    assert.deepEqual(await judge(mutant), {verdict: 'Malformed', refusal: {code: 'archive-unsupported', reason: 'unsupported-flags'}})
  })
})
