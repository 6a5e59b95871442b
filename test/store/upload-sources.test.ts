import assert from 'node:assert/strict'
import {mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {Readable} from 'node:stream'
import {ReadableStream} from 'node:stream/web'
import {after, before, describe, it} from 'node:test'
import fc from 'fast-check'
import {ArchiveError} from '../../src/archive/errors.js'
import {InputFileError} from '../../src/fs/input.js'
import type {UploadReport} from '../../src/store/report.js'
import {verifyUpload, type Upload, type VerifyUploadOptions} from '../../src/store/verify-upload.js'
import {tempDir} from '../helpers/cli.js'
import {formatMiB} from '../../src/quantities.js'
import {flipByte} from '../signing/artifacts.js'
import {createPki, testNow} from '../signing/pki.js'
import {account, signedUpload, unsignedUpload, writeArtifact} from './uploads.js'

const pki = createPki()
let dir: string
let cleanup: () => Promise<void>
/** Upload files of every kind of verdict: accepted, refused, tampered, cut short, not a ZIP. */
const uploads: string[] = []

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-upload-sources-'))
  const accepted = await writeArtifact(path.join(dir, 'accepted.svcPlugin'), await signedUpload(pki))
  const bytes = await readFile(accepted)
  uploads.push(accepted, await writeArtifact(path.join(dir, 'unsigned.svcPlugin'), unsignedUpload({omit: ['runtimes/win-x64/WeatherStation.exe']})))
  for (const [name, content] of [
    ['tampered.svcPlugin', flipByte(bytes, Math.floor(bytes.length / 3))],
    ['cut.svcPlugin', bytes.subarray(0, bytes.length - 7)],
    ['text.svcPlugin', Buffer.from('plain text, not a ZIP\n')],
  ] as const) {
    await writeFile(path.join(dir, name), content)
    uploads.push(path.join(dir, name))
  }
})
after(async () => cleanup())

const judge = (upload: Upload, options: Partial<VerifyUploadOptions> = {}): Promise<UploadReport> => verifyUpload(upload, {account, trust: pki.trust, now: testNow, ...options})

/** The spool folders present in the system's temporary folder. */
async function spools(): Promise<string[]> {
  return (await readdir(tmpdir())).filter((name) => name.startsWith('svc-plugin-spool-')).sort()
}

/** `bytes` cut at `cuts` (offsets, in any order), as the chunks a stream gives. */
function chunked(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const ends = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
  const chunks: Uint8Array[] = []
  let start = 0
  for (const end of [...ends, bytes.length]) {
    if (end > start) chunks.push(bytes.subarray(start, end))
    start = end
  }
  return chunks
}

function webStream(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let next = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < chunks.length) controller.enqueue(chunks[next++]!)
      else controller.close()
    },
  })
}

describe('verifyUpload of bytes and streams', () => {
  it('gives the report of the file for its bytes, a web ReadableStream and a Node Readable of them, however they are chunked, and leaves no temporary file', async () => {
    const before = await spools()
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...uploads), fc.array(fc.nat(), {maxLength: 12}), async (file, cuts) => {
        const bytes = new Uint8Array(await readFile(file))
        const expected = await judge(file)
        const chunks = chunked(bytes, cuts)
        // The messages name the upload: the same label for every source.
        assert.deepEqual(await judge(bytes, {label: file}), expected)
        assert.deepEqual(await judge(webStream(chunks), {label: file}), expected)
        assert.deepEqual(await judge(Readable.from(chunks), {label: file}), expected)
      }),
      {numRuns: 25, seed: 22},
    )
    assert.deepEqual(await spools(), before)
  })

  it('names bytes and streams upload.svcPlugin in its messages unless given a label', async () => {
    const file = await writeArtifact(path.join(dir, 'no-manifest.svcPlugin'), {manifest: null, entries: new Map([['README.md', new Uint8Array(Buffer.from('hello\n'))]])})
    const [problem] = (await judge(await readFile(file))).problems
    assert.equal(problem?.code, 'manifest-missing')
    assert.match(problem?.message ?? '', /^upload\.svcPlugin has no manifest\.json at its root\./)
  })
})

describe('an upload over the archive size limit', () => {
  const limit = 1024
  const chunk = 64

  /** The report's one problem, as a tuple to compare. */
  const refusal = (report: UploadReport) => [report.accepted, report.verdict, report.problems.map((problem) => [problem.code, problem.archiveCode])]

  it('is refused as the archive-size refusal for a path, bytes and a stream alike, reading the stream no further than the limit', async () => {
    // A real artifact, larger than this limit: only its size is wrong.
    const big = uploads[0]!
    assert.ok((await readFile(big)).length > limit)
    const expected = [false, 'Malformed', [['package-unreadable', 'limit-exceeded']]]
    assert.deepEqual(refusal(await judge(big, {limits: {maxArchiveBytes: limit}})), expected)
    assert.deepEqual(refusal(await judge(await readFile(big), {limits: {maxArchiveBytes: limit}})), expected)

    const before = await spools()
    let pulled = 0
    let ended = false
    async function* endless(): AsyncGenerator<Buffer> {
      try {
        for (;;) {
          pulled += chunk
          yield Buffer.alloc(chunk, 0x41)
        }
      } finally {
        ended = true
      }
    }
    const fromNode = await judge(Readable.from(endless()), {limits: {maxArchiveBytes: limit}})
    assert.deepEqual(refusal(fromNode), expected)
    assert.match(fromNode.problems[0]!.message, new RegExp(`at least ${formatMiB(limit + chunk)}; the limit is ${formatMiB(limit)}`))
    // Reading stopped at the first chunk past the limit (a Node stream reads at most its buffer, 16 chunks, ahead), and the stream was ended.
    assert.ok(pulled <= limit + chunk + 16 * chunk, `${pulled} bytes pulled`)
    assert.ok(ended)

    let pulls = 0
    let cancelled = false
    const web = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1
        controller.enqueue(new Uint8Array(chunk))
      },
      cancel() {
        cancelled = true
      },
    }, {highWaterMark: 0})
    assert.deepEqual(refusal(await judge(web, {limits: {maxArchiveBytes: limit}})), expected)
    assert.equal(pulls, limit / chunk + 1)
    assert.ok(cancelled)
    assert.deepEqual(await spools(), before)
  })
})

describe('an upload the store itself cannot read is an error, not a verdict', () => {
  it('throws file-not-found for a path that does not exist', async () => {
    await assert.rejects(judge(path.join(dir, 'missing.svcPlugin')), (error: unknown) => {
      assert.ok(error instanceof ArchiveError)
      assert.equal(error.code, 'file-not-found')
      return true
    })
  })

  it('throws not-an-artifact (not-a-file) for a folder', async () => {
    const folder = path.join(dir, 'folder.svcPlugin')
    await mkdir(folder, {recursive: true})
    await assert.rejects(judge(folder), (error: unknown) => {
      assert.ok(error instanceof ArchiveError)
      assert.deepEqual([error.code, error.details.reason], ['not-an-artifact', 'not-a-file'])
      return true
    })
  })

  it('throws unreadable for a stream that fails, and leaves no temporary file', async () => {
    const before = await spools()
    async function* failing(): AsyncGenerator<Buffer> {
      yield Buffer.from('PK')
      throw new Error('connection reset')
    }
    await assert.rejects(judge(Readable.from(failing())), (error: unknown) => {
      assert.ok(error instanceof InputFileError)
      assert.equal(error.code, 'unreadable')
      assert.match(error.message, /^The upload stream failed: connection reset$/)
      return true
    })
    assert.deepEqual(await spools(), before)
  })

  it('refuses a stream of text with a TypeError: an upload is bytes', async () => {
    await assert.rejects(judge(Readable.from(['PK\u0003\u0004'])), TypeError)
  })
})
