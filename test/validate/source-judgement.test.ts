import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {scratch} from '../pack/support.js'
import {assertHostileFoldersJudgedAlike, assertJudgedAlike, badNames, hostileFolder, type HostileItem} from './source-judgement.js'

describe('validate --level package judges a folder as pack does', () => {
  let work: {dir: string; cleanup: () => Promise<void>}
  let count = 0
  before(async () => {
    work = await scratch('source-judgement')
  })
  after(async () => work.cleanup())

  /** The folder with `items`, judged by both; returns pack's refusal code and validate's error codes. */
  async function judge(items: HostileItem[], limits?: Parameters<typeof hostileFolder>[2]) {
    count += 1
    const root = path.join(work.dir, `single-${count}`)
    const source = await hostileFolder(path.join(root, 'plugin'), items.map((item) => ({ignored: false, item})), limits)
    return assertJudgedAlike(source, path.join(root, 'out.svcPlugin'), limits)
  }

  const rejected = {refusal: 'source-entry-rejected', errors: ['source-entry-rejected']}
  it('refuses a symbolic link, a FIFO and a socket in both, without opening them', async () => {
    for (const to of ['file', 'folder', 'nowhere'] as const) assert.deepEqual(await judge([{kind: 'symlink', to}]), rejected)
    assert.deepEqual(await judge([{kind: 'fifo'}]), rejected)
    assert.deepEqual(await judge([{kind: 'socket'}]), rejected)
  })

  it('refuses a 600 MB file (sparse: never read) with limit-exceeded in both', async () => {
    assert.deepEqual(await judge([{kind: 'oversize', over: 88 * 1024 * 1024}]), {refusal: 'limit-exceeded', errors: ['limit-exceeded']})
  })

  it('refuses too many entries, too many bytes and a packed manifest over its limit in both', async () => {
    const limit = {maxEntries: 10, maxEntryBytes: 512 * 1024 * 1024, maxTotalBytes: 1024 * 1024 * 1024, maxManifestBytes: 8 * 1024 * 1024, maxArchiveBytes: 512 * 1024 * 1024, maxCompressionRatio: 100}
    const files: HostileItem[] = ['a.txt', 'b.txt', 'c.txt'].map((name) => ({kind: 'file', name, content: 'text'}))
    assert.deepEqual(await judge(files, limit), {refusal: 'limit-exceeded', errors: ['limit-exceeded']})
    assert.deepEqual(await judge([{kind: 'oversize', over: 1}], {...limit, maxEntries: 100, maxEntryBytes: 100_000, maxTotalBytes: 90_000}), {refusal: 'limit-exceeded', errors: ['limit-exceeded']})
    assert.deepEqual(await judge(files, {...limit, maxEntries: 100, maxManifestBytes: 2_000}), {refusal: 'limit-exceeded', errors: ['limit-exceeded']})
  })

  it('refuses every name the entry-path policy refuses, a default-ignorable character included, in both', async () => {
    for (const name of badNames) assert.deepEqual(await judge([{kind: 'file', name, content: 'text'}]), rejected, JSON.stringify(name))
  })

  it('refuses README.md beside two names that display as README.md (a combining grapheme joiner, a variation selector) in both', async () => {
    const items: HostileItem[] = [{kind: 'file', name: 'README.md', content: 'text'}, {kind: 'file', name: 'READ\u034fME.md', content: 'text'}, {kind: 'file', name: 'README.md\ufe0f', content: 'text'}]
    assert.deepEqual(await judge(items), {refusal: 'source-entry-rejected', errors: ['source-entry-rejected', 'source-entry-rejected']})
  })

  it('refuses special mode bits, the signer\'s names and colliding names in both', async () => {
    for (const mode of [0o4755, 0o2755, 0o1644]) assert.deepEqual(await judge([{kind: 'mode', mode}]), rejected)
    assert.deepEqual(await judge([{kind: 'signing-name', name: 'certificate.json'}]), rejected)
    assert.deepEqual(await judge([{kind: 'collision', names: ['Readme.md', 'README.md']}]), rejected)
    assert.deepEqual(await judge([{kind: 'collision', names: ['caf\u00e9.txt', 'cafe\u0301.txt']}]), rejected)
  })

  it('refuses a secret in both, and takes an ordinary folder in both', async () => {
    assert.deepEqual(await judge([{kind: 'environment-file'}]), {refusal: 'secret-detected', errors: ['secret-detected']})
    assert.deepEqual(await judge([{kind: 'file', name: 'notes.txt', content: 'secret'}]), {refusal: 'secret-detected', errors: ['secret-detected']})
    assert.deepEqual(await judge([{kind: 'file', name: 'notes.txt', content: 'text'}, {kind: 'mode', mode: 0o755}]), {refusal: null, errors: []})
  })

  it('judges random hostile folders alike: pack refuses exactly what validate finds in error, with the same code', async () => {
    await assertHostileFoldersJudgedAlike(work.dir, 25)
  })
})
