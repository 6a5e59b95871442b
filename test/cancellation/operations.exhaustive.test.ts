import assert from 'node:assert/strict'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {checkAbortPoints, type AbortCase} from '../helpers/abort-points.js'
import {dataRootInputs, installCase, verifyInstalledCase, mergeCase, packCase, signCase, signingInputs, verifyCase, validateCase, verifyUploadCase, type DataRootInputs, type SigningInputs} from './cases.js'

let dir: string
let signing: SigningInputs
let dataRoot: DataRootInputs
before(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'svc-plugin-cancel-all-'))
  signing = await signingInputs(dir)
  dataRoot = await dataRootInputs(await mkdtemp(path.join(dir, 'data-root-')))
})
after(() => rm(dir, {recursive: true, force: true}))

async function every<T>(kase: AbortCase<T>): Promise<void> {
  const seen = await checkAbortPoints(kase, 'all')
  // How many points a run passes may vary a little with timing (a wait for the secret scan is one only
  // when the scan lags), so the count is not pinned; the property holds at each of them.
  assert.ok(seen.cancelled > 0, JSON.stringify(seen))
}

describe('cancellation at every abort point: the operation rejects with AbortError and changes nothing', () => {
  it('pack', async () => every(await packCase(await mkdtemp(path.join(dir, 'pack-')))))
  it('merge', async () => every(await mergeCase(await mkdtemp(path.join(dir, 'merge-')))))
  it('sign', async () => every(await signCase(await mkdtemp(path.join(dir, 'sign-')), signing)))
  it('verifyArtifact', async () => every(await verifyCase(await mkdtemp(path.join(dir, 'verify-')), signing)))
  it('verifyUpload of a path', async () => every(await verifyUploadCase(await mkdtemp(path.join(dir, 'upload-')), signing, 'path')))
  it('verifyUpload of a stream', async () => every(await verifyUploadCase(await mkdtemp(path.join(dir, 'stream-')), signing, 'stream')))
  it('validatePath of a folder', async () => every(await validateCase(await mkdtemp(path.join(dir, 'folder-')), 'directory')))
  it('validatePath of an artifact', async () => every(await validateCase(await mkdtemp(path.join(dir, 'artifact-')), 'artifact')))
  it('install over an older version', async () => every(installCase(await mkdtemp(path.join(dir, 'install-')), dataRoot)))
  it('install into an empty data root', async () => every(installCase(await mkdtemp(path.join(dir, 'first-')), dataRoot, 'first')))
  it('verifyInstalled', async () => every(verifyInstalledCase(dataRoot)))
})
