import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {makeBaseArchive, makeHostileArchives, type HostileCase} from '../../scripts/make-hostile-archives.js'
import {inflateChunkBytes} from '../../src/archive/entry-stream.js'
import {ArchiveError} from '../../src/archive/errors.js'
import {openArchive} from '../../src/archive/reader.js'
import {makeTempDir, rejectionOf} from './support.js'

let temp: {dir: string; remove: () => Promise<void>}
let cases: HostileCase[] = []
const byName = (name: string): HostileCase => cases.find((item) => item.name === name)!

before(async () => {
  temp = await makeTempDir('hostile')
  cases = await makeHostileArchives(path.join(temp.dir, 'corpus'))
})
after(async () => {
  await temp.remove()
})

/** The error the strict reader raises for `file`, and whether it came from openArchive or from the entry streams. */
async function refusal(file: string): Promise<{at: 'open' | 'read'; error: ArchiveError}> {
  let archive
  try {
    archive = await openArchive(file)
  } catch (error) {
    assert.ok(error instanceof ArchiveError, `not an ArchiveError: ${String(error)}`)
    return {at: 'open', error}
  }
  try {
    const error = await rejectionOf(archive.digestEntries())
    assert.ok(error instanceof ArchiveError, `not an ArchiveError: ${String(error)}`)
    return {at: 'read', error}
  } finally {
    await archive.close()
  }
}

describe('the hostile corpus', () => {
  it('holds more than 40 archives with distinct names', () => {
    assert.ok(cases.length > 40, `${cases.length} cases`)
    assert.equal(new Set(cases.map((item) => item.name)).size, cases.length)
  })

  it('starts every case from a plugin the reader accepts', async () => {
    const file = path.join(temp.dir, 'base.svcPlugin')
    await makeBaseArchive(file)
    const archive = await openArchive(file)
    try {
      const digests = await archive.digestEntries()
      assert.deepEqual([...digests.keys()], ['manifest.json', 'assets/icon.png', 'runtimes/linux-x64/sample'])
    } finally {
      await archive.close()
    }
  })

  it('reads each entry from its own local header when the central directory lists them in another order', async () => {
    const file = path.join(temp.dir, 'reordered.svcPlugin')
    await makeBaseArchive(file, {reordered: true})
    const archive = await openArchive(file)
    try {
      assert.deepEqual(archive.entries.map((entry) => entry.name), ['runtimes/linux-x64/sample', 'assets/icon.png', 'manifest.json'])
      const digests = await archive.digestEntries()
      const manifest = JSON.parse((await archive.readEntry(archive.get('manifest.json')!)).toString('utf8'))
      for (const file of manifest.files) assert.deepEqual(digests.get(file.path), {size: file.size, sha256: file.sha256}, file.path)
    } finally {
      await archive.close()
    }
  })

  // The cases are generated in before(); their names are fixed, so the tests are declared from this list.
  const expected = [
    'not-a-zip', 'empty-file', 'truncated', 'prepended-bytes', 'prepended-bytes-adjusted', 'trailing-bytes', 'archive-comment',
    'central-directory-misplaced', 'hidden-central-record', 'gap-between-entries', 'multi-disk', 'zip64-eocd', 'zip64-extra-field',
    'encrypted-entry', 'strong-encryption', 'method-bzip2', 'method-lzma', 'unicode-path-extra', 'local-header-name-mismatch',
    'local-header-size-mismatch', 'local-header-method-mismatch', 'local-header-flags-mismatch', 'local-header-crc-mismatch',
    'local-header-signature', 'data-descriptor-mismatch', 'stored-size-mismatch', 'directory-entry-with-data',
    'directory-entry-deflated-junk', 'directory-entry-inflates', 'directory-entry-deflate-trailing', 'directory-entry-crc', 'deflate-padded',
    'deflate-expansion', 'entry-comment', 'entry-on-other-disk', 'unsupported-flags', 'extra-field-unknown', 'local-extra-field-layout',
    'extra-field-duplicate', 'extra-field-leftover', 'overlapping-entries',
    'overlap-bomb', 'ratio-bomb', 'entry-too-large-declared', 'total-too-large', 'manifest-too-large', 'too-many-entries',
    'archive-too-large', 'crc-mismatch', 'deflate-short', 'deflate-trailing-bytes', 'deflate-invalid', 'declared-size-lies',
    'declared-size-short', 'path-traversal-dotdot', 'path-traversal-inner', 'absolute-path', 'unc-path', 'drive-letter', 'backslash',
    'backslash-traversal', 'control-char', 'nul-in-name', 'empty-name', 'too-long-name', 'too-deep', 'trailing-dot', 'trailing-space',
    'reserved-char', 'reserved-char-colon', 'empty-segment', 'dot-segment', 'device-name-con', 'device-name-with-extension',
    'device-name-conin', 'device-name-conout', 'device-name-superscript', 'short-name-alias', 'segment-too-long', 'bidi-override', 'zero-width-space', 'readme-lookalikes',
    'invalid-utf8-name', 'symlink-entry', 'setuid-entry', 'setgid-entry', 'sticky-entry', 'symlink-7zip', 'fifo-mode', 'socket-mode',
    'char-device', 'block-device', 'directory-mode-file', 'duplicate-name', 'case-collision', 'directory-case-collision', 'nfc-collision',
    'file-directory-collision',
  ]

  it('is exactly the list these tests cover', () => {
    assert.deepEqual(cases.map((item) => item.name), expected)
  })

  for (const name of expected) {
    it(`refuses ${name}.svcPlugin with the code and reason it is named for`, async () => {
      const item = byName(name)
      const {at, error} = await refusal(item.file)
      assert.deepEqual(
        {code: error.code, reason: error.details.reason, at},
        {code: item.expect.code, reason: item.expect.reason, at: item.expect.at},
        `${item.description}: ${error.message}`,
      )
      assert.ok(error.message.length > 0)
    })
  }
})

describe('bombs', () => {
  it('refuses the ratio bomb from its central directory, before any stream is opened', async () => {
    const error = await rejectionOf(openArchive(byName('ratio-bomb').file))
    assert.equal(error.code, 'limit-exceeded')
    assert.equal(error.details.reason, 'compression-ratio')
    assert.ok((error.details.actual as number) > 100)
  })

  it('would open the ratio bomb under a raised ratio limit: the ratio alone refused it', async () => {
    const archive = await openArchive(byName('ratio-bomb').file, {limits: {maxCompressionRatio: 1000}})
    try {
      assert.equal(archive.get('data/zeros.bin')?.uncompressedSize, 400 * 1024 * 1024)
      const manifest = await archive.readEntry(archive.get('manifest.json')!)
      assert.equal(JSON.parse(manifest.toString('utf8')).id, 'com.example.hostile-sample')
    } finally {
      await archive.close()
    }
  })

  it('refuses the overlap bomb from its central directory, whatever the ratio limit', async () => {
    const error = await rejectionOf(openArchive(byName('overlap-bomb').file, {limits: {maxCompressionRatio: 1e6}}))
    assert.equal(error.code, 'limit-exceeded')
    assert.equal(error.details.reason, 'total-too-large')
  })

  it('still refuses the overlap bomb once every size limit is lifted: its records share one local header', async () => {
    const error = await rejectionOf(openArchive(byName('overlap-bomb').file, {limits: {maxCompressionRatio: 1e6, maxTotalBytes: 2 ** 40}}))
    assert.equal(error.code, 'archive-malformed')
    assert.equal(error.details.reason, 'local-header-name-mismatch')
  })

  it('cuts a stream that inflates past its declared size without handing out a byte too many', async () => {
    const archive = await openArchive(byName('declared-size-lies').file)
    try {
      const entry = archive.get('notes.txt')!
      const stream = await archive.openEntry(entry)
      let received = 0
      const error = await rejectionOf(
        (async () => {
          for await (const chunk of stream) received += (chunk as Buffer).length
        })(),
      )
      assert.equal(error.details.reason, 'entry-larger-than-declared')
      assert.ok(received <= entry.uncompressedSize, `${received} bytes handed out`)
      assert.ok((error.details.atLeast as number) <= entry.uncompressedSize + inflateChunkBytes, `${error.details.atLeast} bytes inflated`)
    } finally {
      await archive.close()
    }
  })

  it('reports the earliest failing entry from digestEntries', async () => {
    const error = await rejectionOf(
      (async () => {
        const archive = await openArchive(byName('crc-mismatch').file)
        try {
          return await archive.digestEntries()
        } finally {
          await archive.close()
        }
      })(),
    )
    assert.equal(error.details.entry, 'notes.txt')
  })
})
