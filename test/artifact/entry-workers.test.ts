import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {mkdtemp, rm, stat, truncate, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import zlib from 'node:zlib'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {ArchiveError} from '../../src/archive/errors.js'
import {openArchive} from '../../src/archive/reader.js'
import type {DigestOptions} from '../../src/archive/types.js'
import {workerUse} from '../../src/archive/worker-use.js'
import {DigestWorkers, type MemberWant} from '../../src/artifact/entry-workers.js'
import {openArtifact} from '../../src/artifact/open.js'
import {SecretScanner, contentMayHoldSecret} from '../../src/artifact/secrets.js'
import {rejectionOf} from '../helpers/promises.js'
import {serializeZip, zipEntry, type EntryFields} from '../helpers/zip-model.js'
import {credentialSamples, keywordFragments, privateKeyFiles, samplePaths} from './secret-corpus.js'

let dir: string
let workers: DigestWorkers
let counter = 0
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-entry-workers-'))
  workers = new DigestWorkers(2)
})
after(async () => {
  await workers.close()
  await rm(dir, {recursive: true, force: true})
})

/** Writes an archive of `fields` (each entry as `zipEntry` makes it, lies included), in that order. */
async function archiveFile(fields: readonly EntryFields[]): Promise<string> {
  const file = path.join(dir, `archive-${++counter}.zip`)
  const entries = fields.map(zipEntry)
  await writeFile(file, serializeZip({prefix: Buffer.alloc(0), entries, centralOrder: entries.map((_, index) => index), beforeEnd: Buffer.alloc(0), end: {disk: 0, centralDisk: 0, comment: Buffer.alloc(0)}}))
  return file
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex')

/** What digestEntries gives: every digest and the bytes handed to `keep` (by their digest), or the refusal. */
async function digestOutcome(file: string, digestBatch?: DigestOptions['digestBatch']): Promise<unknown> {
  let archive
  try {
    archive = await openArchive(file)
  } catch (error) {
    return {openRefused: (error as ArchiveError).code}
  }
  const kept: [string, string | null][] = []
  try {
    const keep = (entry: {name: string}, bytes: Buffer | null): void => void kept.push([entry.name, bytes === null ? null : sha256(bytes)])
    const digests = await archive.digestEntries({keep, ...(digestBatch === undefined ? {} : {digestBatch})})
    return {digests: [...digests], kept: kept.sort(([a], [b]) => (a < b ? -1 : 1))}
  } catch (error) {
    assert.ok(error instanceof ArchiveError, `not an ArchiveError: ${String(error)}`)
    return {refused: {code: error.code, reason: error.details['reason'], entry: error.details['entry'], message: error.message}}
  } finally {
    await archive.close()
  }
}

/** A lie an entry may tell about its data. */
const lies = ['none', 'crc', 'longer', 'shorter', 'flipped', 'flipped-end', 'cut', 'padded', 'garbage', 'shorter-padded', 'shorter-cut'] as const

/** The fields of an entry with `content` that tells `lie` (its byte `at` where a byte is changed). */
function lyingEntry(name: string, content: Buffer, method: 0 | 8, lie: (typeof lies)[number], at: number): EntryFields {
  const payload = method === 8 ? zlibDeflate(content) : content
  const position = payload.length === 0 ? 0 : at % payload.length
  switch (lie) {
    case 'crc':
      return {name, data: content, method, crc: (zlibCrc(content) + 1) >>> 0}
    case 'longer':
      return {name, data: content, method, uncompressedSize: content.length + 1}
    case 'shorter':
      return {name, data: content, method, uncompressedSize: Math.max(0, content.length - 1)}
    case 'flipped': {
      const changed = Buffer.from(payload)
      if (changed.length > 0) changed[position] = changed[position]! ^ 0x5a
      return {name, data: content, method, payload: changed}
    }
    case 'flipped-end': {
      // The last bytes of a deflate stream end it: a change there may leave every declared byte intact before it.
      const changed = Buffer.from(payload)
      if (changed.length > 0) changed[changed.length - 1] = changed[changed.length - 1]! ^ (1 << (at % 8))
      return {name, data: content, method, payload: changed}
    }
    case 'cut':
      return {name, data: content, method, payload: payload.subarray(0, Math.max(0, payload.length - 1))}
    case 'padded':
      return {name, data: content, method, payload: Buffer.concat([payload, Buffer.from([at & 0xff])])}
    // Two lies at once: the declared size one byte short, and the stream followed by a byte, or cut by one.
    case 'shorter-padded':
      return {name, data: content, method, uncompressedSize: Math.max(0, content.length - 1), payload: Buffer.concat([payload, Buffer.from([at & 0xff])])}
    case 'shorter-cut':
      return {name, data: content, method, uncompressedSize: Math.max(0, content.length - 1), payload: payload.subarray(0, Math.max(0, payload.length - 1))}
    case 'garbage':
      return {name, data: content, method, payload: createHash('sha512').update(String(at)).digest()}
    default:
      return {name, data: content, method}
  }
}

const zlibDeflate = (bytes: Buffer): Buffer => zlib.deflateRawSync(bytes)
const zlibCrc = (bytes: Buffer): number => zlib.crc32(bytes)

/**
 * Contents of 0 to 70 KiB, either side of the size inflated at once on the main thread: random bytes (they do
 * not compress), base64 of them (it compresses a little) or text (it does).
 */
const content = fc.oneof(
  fc.uint8Array({maxLength: 40 * 1024}).map((bytes) => Buffer.from(bytes)),
  fc.uint8Array({minLength: 12 * 1024, maxLength: 30 * 1024}).map((bytes) => Buffer.from(Buffer.from(bytes).toString('base64'))),
  fc.tuple(fc.string({minLength: 1, maxLength: 40}), fc.nat({max: 70 * 1024})).map(([text, length]) => Buffer.from(text.repeat(Math.ceil(length / text.length)).slice(0, length))),
)

const entrySpec = fc.record({content, method: fc.constantFrom<0 | 8>(0, 8, 8), lie: fc.constantFrom(...lies, 'none', 'none', 'none'), at: fc.nat()})

describe('digesting workers', () => {
  it('give every digest, every byte handed on and every refusal of the main thread, whichever thread takes each batch', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entrySpec, {minLength: 1, maxLength: 24}), fc.array(fc.boolean(), {minLength: 1, maxLength: 8}), async (specs, declines) => {
        const file = await archiveFile(specs.map((spec, index) => lyingEntry(`d${index % 3}/f${index}.bin`, spec.content, spec.method, spec.lie, spec.at)))
        const here = await digestOutcome(file)
        let call = 0
        // Each batch goes to a worker, or is declined (then digested on the main thread, inflated into its scratch buffer).
        const elsewhere = (want: MemberWant): DigestOptions['digestBatch'] => (members, compressed) => (declines[call++ % declines.length] ? null : workers.digest(members, compressed, () => want))
        assert.deepEqual(await digestOutcome(file, elsewhere('keep')), here)
        const {kept, ...withoutBytes} = (await digestOutcome(file, elsewhere(null))) as {kept?: [string, string | null][]}
        const {kept: expected, ...rest} = here as {kept?: [string, string | null][]}
        assert.deepEqual(withoutBytes, rest)
        // Bytes not asked for are handed on only by the batches digested on the main thread: the same bytes.
        for (const [name, bytes] of kept ?? []) assert.ok(bytes === null || expected!.some(([other, digest]) => other === name && digest === bytes), name)
      }),
      {numRuns: 40, seed: 0x5eed, endOnFailure: true},
    )
  })

  it('reports the refusal of an entry larger than the main thread inflates at once as the main thread does (deflate damaged, sizes and CRC lies)', async () => {
    const text = Buffer.from('export const forecast = (station) => station.reading * 1.8 + 32\n'.repeat(800))
    // 20,000 bytes of base64, which deflates to about 15 KB: a damaged end of its stream may still inflate every declared byte and one more.
    const base64 = Buffer.from(createHash('sha512').update('seed').digest('hex').repeat(1).concat(...Array.from({length: 400}, (_, row) => createHash('sha512').update(String(row)).digest('base64'))).slice(0, 20000))
    assert.ok(text.length > 16 * 1024 && base64.length === 20000)
    for (const content of [text, base64]) {
      for (const lie of lies) {
        for (const at of [0, 1, 2, 1234]) {
          const file = await archiveFile([{name: 'ok.js', data: text}, lyingEntry('lib/large.js', content, 8, lie, at), {name: 'after.js', data: text}])
          const here = await digestOutcome(file)
          assert.deepEqual(await digestOutcome(file, (members, compressed) => workers.digest(members, compressed, () => 'keep')), here, `${lie} at ${at}`)
          assert.deepEqual(await digestOutcome(file, () => null), here, `${lie} at ${at}, declined`)
          if (lie !== 'none') assert.ok('refused' in (here as object) || 'openRefused' in (here as object), `${lie}: ${JSON.stringify(here)}`)
        }
      }
    }
  })
})

describe('digesting workers, the archive cut short after it was opened', () => {
  it('refuse the first entry the file ends before as the main thread does, naming where the file ended', async () => {
    const fields: EntryFields[] = Array.from({length: 60}, (_, index) => ({name: `lib/m${index}.js`, data: Buffer.from(Array.from({length: 300}, (_, row) => sha256(Buffer.from(`${index}:${row}`))).join('\n'))}))
    for (const cut of [0.3, 0.7]) {
      const outcomes: unknown[] = []
      for (const digestBatch of [undefined, ((members, compressed) => workers.digest(members, compressed, () => null)) satisfies DigestOptions['digestBatch']]) {
        const file = await archiveFile(fields)
        const archive = await openArchive(file)
        try {
          const {size} = await stat(file)
          await truncate(file, Math.floor(size * cut))
          const error = (await rejectionOf(archive.digestEntries(digestBatch === undefined ? {} : {digestBatch}))) as ArchiveError
          outcomes.push({code: error.code, reason: error.details['reason'], entry: error.details['entry'], cause: (error.cause as Error | undefined)?.message})
        } finally {
          await archive.close()
        }
      }
      assert.deepEqual(outcomes[1], outcomes[0], `cut at ${cut}`)
      assert.match(String((outcomes[0] as {cause: string}).cause), /^The file ended at byte \d+/)
    }
  })
})

describe('the first look for secrets', () => {
  const findingsOf = async (name: string, bytes: Buffer | null): Promise<unknown> => {
    const scanner = new SecretScanner()
    scanner.add(name, bytes)
    return scanner.findings()
  }

  /** The invariant the workers rely on: where the first look finds nothing, the name alone finds what the bytes do. */
  const sameWithoutBytes = async (name: string, bytes: Buffer): Promise<void> => {
    if (contentMayHoldSecret(name, bytes)) return
    assert.deepEqual(await findingsOf(name, bytes), await findingsOf(name, null), name)
  }

  it('lets through every credential and private key of the corpus', async () => {
    for (const sample of credentialSamples) assert.ok(contentMayHoldSecret(sample.file, Buffer.from(sample.text)), sample.rule)
    for (const key of privateKeyFiles()) assert.ok(contentMayHoldSecret(key.file, key.bytes), key.name)
  })

  it('declines only content in which the scanner finds nothing (texts made of the rules\' keywords, and random bytes)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...samplePaths, 'keys/x.key', '.env'), fc.array(fc.constantFrom(...keywordFragments, 'abc', 'Zq8mN3vR7tY2wK9pL4xC6bH1jF5gD0sA'), {maxLength: 30}), async (name, parts) => {
        await sameWithoutBytes(name, Buffer.from(parts.join('')))
      }),
      {numRuns: 300, seed: 7},
    )
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({maxLength: 2048}), async (bytes) => sameWithoutBytes('data/blob.bin', Buffer.from(bytes))),
      {numRuns: 200, seed: 11},
    )
  })
})

describe('reading an artifact with digesting workers', () => {
  it('finds the same files, signing files and secrets with workers as without, a batch taken by the main thread or a worker', async () => {
    const line = (index: number, row: number): string => `module.exports.v${row} = '${sha256(Buffer.from(`${index}:${row}`))}' // https://docs.example.com/api#${row}\n`
    const clean = (index: number): Buffer => Buffer.from(Array.from({length: 20 + index}, (_, row) => line(index, row)).join(''))
    const fields: EntryFields[] = [{name: 'manifest.json', data: Buffer.from('{"manifestVersion": 1}\n')}, {name: 'certificate.json', data: Buffer.from('{"not": "checked here"}')}]
    for (let index = 0; index < 300; index++) fields.push({name: `lib/m${index}.js`, data: clean(index)})
    for (const sample of credentialSamples) fields.push({name: `leaks/${sample.file}`, data: Buffer.from(sample.text)})
    for (const key of privateKeyFiles()) fields.push({name: `leaks/${key.file}`, data: key.bytes})
    fields.push({name: 'config/.env.production', data: Buffer.from('TOKEN=1\n')})
    const file = await archiveFile(fields)
    const read = async (when: 'always' | 'never'): Promise<unknown> => {
      workerUse.when = when
      try {
        const artifact = await openArtifact(file)
        try {
          const {files, signingFiles, secrets} = await artifact.contents({secrets: true})
          return {files: [...files], signingFiles: [...signingFiles], secrets}
        } finally {
          await artifact.close()
        }
      } finally {
        workerUse.when = 'auto'
      }
    }
    const without = (await read('never')) as {secrets: unknown[]}
    assert.ok(without.secrets.length >= credentialSamples.length, `${without.secrets.length} secrets`)
    assert.deepEqual(await read('always'), without)
  })

  it('stops at the signal with its AbortError, the workers stopped with it', async () => {
    const fields: EntryFields[] = [{name: 'manifest.json', data: Buffer.from('{}')}]
    for (let index = 0; index < 400; index++) fields.push({name: `lib/m${index}.js`, data: Buffer.from(Array.from({length: 300}, (_, row) => sha256(Buffer.from(`${index}:${row}`))).join('\n'))})
    const file = await archiveFile(fields)
    workerUse.when = 'always'
    try {
      // Aborted before the reading starts, while the worker starts, and while batches are out.
      for (const after of [0, 5, 40]) {
        const controller = new AbortController()
        const artifact = await openArtifact(file, {signal: controller.signal})
        try {
          const aborting = setTimeout(() => controller.abort(), after)
          await assert.rejects(artifact.contents({secrets: true}), {name: 'AbortError', code: 'cancelled'})
          clearTimeout(aborting)
        } finally {
          await artifact.close()
        }
      }
    } finally {
      workerUse.when = 'auto'
    }
  })
})
