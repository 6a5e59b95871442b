import assert from 'node:assert/strict'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {ArchiveError} from '../../src/archive/errors.js'
import {InstallError} from '../../src/install/errors.js'
import {install} from '../../src/install/install.js'
import {makeBaseArchive, makeHostileArchives, type HostileCase} from '../../scripts/make-hostile-archives.js'
import {tempDir} from '../helpers/cli.js'
import {snapshotTree, writeArtifact} from './helpers/artifacts.js'
import {currentOf, stagingEntries, workspace, type Workspace} from './helpers/workspace.js'

const hostileId = 'com.example.hostile-sample'

describe('installing the hostile archive corpus', () => {
  let corpus: {dir: string; cleanup: () => Promise<void>}
  let cases: HostileCase[]
  let ws: Workspace

  before(async () => {
    corpus = await tempDir('svc-plugin-hostile-')
    cases = await makeHostileArchives(corpus.dir)
    ws = await workspace()
    // An earlier version of the same plugin is installed, so every case is an update that must leave it intact.
    await install(await writeArtifact(path.join(ws.dir, 'previous.svcPlugin'), {id: hostileId, version: '0.9.0'}), {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true})
  })

  after(async () => {
    await ws.cleanup()
    await corpus.cleanup()
  })

  it('starts from a base archive that installs', async () => {
    const other = await workspace()
    try {
      const base = path.join(other.dir, 'base.svcPlugin')
      await makeBaseArchive(base)
      const result = await install(base, {dataRoot: other.dataRoot, hostRid: 'linux-x64', allowUnsigned: true})
      assert.equal(result.id, hostileId)
      assert.equal(result.version, '1.0.0')
    } finally {
      await other.cleanup()
    }
  })

  it('covers the corpus', () => {
    assert.ok(cases.length >= 40, `${cases.length} cases`)
    assert.ok(cases.some((item) => item.expect.at === 'read'), 'some cases fail only while inflating')
  })

  it('refuses every archive with its own code and reason, writing nothing outside _staging', async () => {
    const outsideStaging = (relative: string) => relative === 'plugins/_staging' || relative.startsWith('plugins/_staging/')
    const failures: string[] = []
    for (const item of cases) {
      const before = await snapshotTree(ws.dataRoot, {exclude: outsideStaging})
      let outcome: string
      try {
        await install(item.file, {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true})
        outcome = 'installed'
      } catch (error) {
        if (!(error instanceof InstallError)) throw error
        outcome = `${error.code}/${String(error.details['reason'])}${error.cause instanceof ArchiveError ? '' : ' (no ArchiveError cause)'}`
      }
      const expected = `${item.expect.code}/${item.expect.reason}`
      if (outcome !== expected) failures.push(`${item.name}: expected ${expected}, got ${outcome}`)
      const afterwards = await snapshotTree(ws.dataRoot, {exclude: outsideStaging})
      assert.deepEqual([...afterwards], [...before], `${item.name} changed the data root outside _staging`)
      assert.deepEqual(await stagingEntries(ws.dataRoot), [], `${item.name} left something in _staging`)
    }
    assert.deepEqual(failures, [])
    assert.equal(await currentOf(ws.dataRoot, hostileId), '0.9.0')
  })
})
