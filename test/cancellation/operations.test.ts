import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {checkAbortPoints, checkDeadlines, type AbortCase} from '../helpers/abort-points.js'
import {dataRootInputs, installCase, verifyInstalledCase, mergeCase, packCase, signCase, signingInputs, verifyCase, validateCase, setCaseSize, verifyUploadCase, type DataRootInputs, type SigningInputs} from './cases.js'

// A fixed sample of abort points per operation, spread over all of them (both ends included); the
// exhaustive suite (operations.exhaustive.test.ts) aborts at every one.
const sample = 8

let dir: string
let signing: SigningInputs
let dataRoot: DataRootInputs
before(async () => {
  setCaseSize('sample')
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-cancel-'))
  signing = await signingInputs(dir)
  dataRoot = await dataRootInputs(await mkdtemp(path.join(dir, 'data-root-')))
})
after(() => rm(dir, {recursive: true, force: true}))

async function caseDir(name: string): Promise<string> {
  const folder = await mkdtemp(path.join(dir, `${name}-`))
  return folder
}

async function property<T>(kase: AbortCase<T>): Promise<void> {
  const seen = await checkAbortPoints(kase, sample)
  assert.ok(seen.cancelled > 0 && seen.completed > 0, JSON.stringify(seen))
  await checkDeadlines(kase, deadlines)
}

// Real deadlines, from one that has passed before the first check to ones an operation may meet anywhere.
const deadlines = [0, 5]

describe('cancellation: an operation aborted at any of its abort points rejects with AbortError and changes nothing, or completes whole', () => {
  it('pack', async () => property(await packCase(await caseDir('pack'))))
  it('merge', async () => property(await mergeCase(await caseDir('merge'))))
  it('sign', async () => property(await signCase(await caseDir('sign'), signing)))
  it('verifyArtifact', async () => property(await verifyCase(await caseDir('verify'), signing)))
  it('verifyUpload of a path', async () => property(await verifyUploadCase(await caseDir('upload'), signing, 'path')))
  it('verifyUpload of a stream', async () => property(await verifyUploadCase(await caseDir('stream'), signing, 'stream')))
  it('validatePath of a folder', async () => property(await validateCase(await caseDir('folder'), 'directory')))
  it('validatePath of an artifact', async () => property(await validateCase(await caseDir('artifact'), 'artifact')))
  it('install over an older version', async () => property(installCase(await caseDir('install'), dataRoot)))
  it('install into an empty data root', async () => property(installCase(await caseDir('first'), dataRoot, 'first')))
  it('verifyInstalled', async () => property(verifyInstalledCase(dataRoot)))
})
