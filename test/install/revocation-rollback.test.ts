import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {readdir, readFile, writeFile, mkdir, symlink, unlink} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {createRevocationList, type VerifiedRevocationList} from '../../src/revocation/list.js'
import {admitRevocationList, checkRevocationSequence, recordRevocationList, revocationStateFile} from '../../src/install/revocation-state.js'
import {createRoot} from '../../src/pki/trust.js'
import {tempDir} from '../helpers/cli.js'
import {createPki, testNow} from '../signing/pki.js'

const pki = createPki()
const listTime = new Date('2030-05-31T12:00:00Z')

function listWith(sequence: number, options: {entries?: number; rootKeyId?: string; rootPrivateKey?: Uint8Array} = {}): VerifiedRevocationList {
  return createRevocationList({
    rootKeyId: options.rootKeyId ?? pki.rootKeyId,
    rootPrivateKey: options.rootPrivateKey ?? pki.root.privateKey,
    sequence,
    now: listTime,
    entries: Array.from({length: options.entries ?? 0}, (_, i) => ({kind: 'key' as const, value: `sha256:${String(i).repeat(64).slice(0, 64)}`, reason: 'superseded' as const})),
  })
}

describe('revocation list rollback protection', () => {
  let dataRoot: string
  let cleanup: () => Promise<void>
  before(async () => {
    ;({dir: dataRoot, cleanup} = await tempDir('svc-plugin-revocation-state-'))
  })
  after(async () => cleanup())

  it('accepts any list while nothing was recorded, and writes nothing when only checking', async () => {
    await checkRevocationSequence(dataRoot, listWith(5))
    await assert.rejects(readFile(revocationStateFile(dataRoot)), {code: 'ENOENT'})
  })

  it('records the list itself, its sequence and its digest in <dataRoot>/plugins/_revocations.json', async () => {
    const list = listWith(2)
    await recordRevocationList(dataRoot, list)
    assert.equal(revocationStateFile(dataRoot), path.join(dataRoot, 'plugins', '_revocations.json'))
    const record = JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8'))
    assert.equal(record.schemaVersion, 2)
    assert.deepEqual(Object.keys(record.roots), ['root_test'])
    assert.deepEqual(record.roots.root_test, {
      sequence: 2,
      sha256: `sha256:${createHash('sha256').update(list.json).digest('hex')}`,
      issuedAt: list.content.issuedAt,
      json: Buffer.from(list.json).toString('base64'),
      sig: list.sig,
    })
    // Neither temporary files nor the lock stay behind.
    assert.deepEqual((await readdir(path.join(dataRoot, 'plugins'))).sort(), ['_revocations.json'])
  })

  it("refuses a symbolic link where the revocation state's lock goes with unsafe-data-root, at once", {timeout: 10_000, skip: process.platform === 'win32'}, async () => {
    const lock = path.join(dataRoot, 'plugins', '_revocations.lock')
    await symlink(dataRoot, lock)
    try {
      await assert.rejects(recordRevocationList(dataRoot, listWith(3)), (error: Error & {code?: string; details?: Record<string, unknown>}) => {
        assert.equal(error.code, 'unsafe-data-root')
        assert.deepEqual(error.details, {path: lock, found: 'symbolic-link'})
        return true
      })
      assert.equal(JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8')).roots.root_test.sequence, 2)
    } finally {
      await unlink(lock)
    }
  })

  it('refuses a lower sequence with revocation-list-rollback', async () => {
    await assert.rejects(checkRevocationSequence(dataRoot, listWith(1)), (error: Error & {code?: string}) => {
      assert.equal(error.code, 'revocation-list-rollback')
      assert.match(error.message, /sequence 1, but this host has already seen sequence 2/)
      return true
    })
    await assert.rejects(recordRevocationList(dataRoot, listWith(1)), {code: 'revocation-list-rollback'})
  })

  it('accepts the same list again', async () => {
    await checkRevocationSequence(dataRoot, listWith(2))
    await recordRevocationList(dataRoot, listWith(2))
  })

  it('refuses the same sequence with other bytes (a fork)', async () => {
    await assert.rejects(checkRevocationSequence(dataRoot, listWith(2, {entries: 1})), (error: Error & {code?: string}) => {
      assert.equal(error.code, 'revocation-list-rollback')
      assert.match(error.message, /seen with other content/)
      return true
    })
  })

  it('accepts a higher sequence and records it', async () => {
    await recordRevocationList(dataRoot, listWith(3, {entries: 2}))
    assert.equal(JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8')).roots.root_test.sequence, 3)
    await assert.rejects(checkRevocationSequence(dataRoot, listWith(2)), {code: 'revocation-list-rollback'})
  })

  it("keeps each root's sequence apart", async () => {
    const other = createRoot('root_other')
    await recordRevocationList(dataRoot, listWith(1, {rootKeyId: 'root_other', rootPrivateKey: other.keyPair.privateKey}))
    const record = JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8'))
    assert.deepEqual([record.roots.root_test.sequence, record.roots.root_other.sequence], [3, 1])
  })

  it('admitRevocationList verifies, refuses a rollback, and records', async () => {
    await assert.rejects(admitRevocationList(dataRoot, listWith(1), {trust: pki.trust, now: testNow}), {code: 'revocation-list-rollback'})
    await assert.rejects(admitRevocationList(dataRoot, {json: listWith(9).json, sig: listWith(8).sig}, {trust: pki.trust, now: testNow}), {code: 'revocation-list-invalid'})
    const admitted = await admitRevocationList(dataRoot, listWith(4), {trust: pki.trust, now: testNow})
    assert.equal(admitted.content.sequence, 4)
    assert.equal(JSON.parse(await readFile(revocationStateFile(dataRoot), 'utf8')).roots.root_test.sequence, 4)
  })

  it('fails closed on a record it cannot read', async () => {
    const {dir, cleanup: remove} = await tempDir('svc-plugin-revocation-state-bad-')
    try {
      await mkdir(path.join(dir, 'plugins'))
      await writeFile(revocationStateFile(dir), 'not json')
      await assert.rejects(checkRevocationSequence(dir, listWith(100)), {code: 'revocation-list-rollback'})
    } finally {
      await remove()
    }
  })
})
