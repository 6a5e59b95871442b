import assert from 'node:assert/strict'
import {randomBytes} from 'node:crypto'
import {mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {install} from '../../src/install/install.js'
import type {InstallOptions} from '../../src/install/types.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {tempDir} from '../helpers/cli.js'
import {patchDeclaredSize, snapshotTree, writeArtifact} from './helpers/artifacts.js'
import {runChildInstall, type ChildOutcome} from './helpers/child.js'
import {currentOf, installError, stagingEntries, versionsOf} from './helpers/workspace.js'

const id = 'com.example.heavy'
const MiB = 1024 * 1024

// Kills at every change the installer makes to disk are in kill-points.test.ts (a sample) and
// kill-points.exhaustive.test.ts (all of them). This file covers concurrency, leftovers and failures.

/** `versions/` holds only complete versions that verify, and `current.json` names one of them. */
async function assertConsistent(dataRoot: string, label: string): Promise<void> {
  const versions = await versionsOf(dataRoot, id)
  for (const version of versions) {
    const verification = await verifyInstalled(dataRoot, id, {version, hostRid: 'linux-x64'})
    assert.equal(verification.valid, true, `${label}: ${version} does not verify: ${JSON.stringify(verification.problems)}`)
  }
  const current = await currentOf(dataRoot, id)
  assert.ok(current !== null && versions.includes(current), `${label}: current.json names ${current}, versions are ${versions.join(', ')}`)
}

describe('concurrent installs', () => {
  const small = (root: string, version: string, plugin = id) => writeArtifact(path.join(root, `${plugin}-${version}.svcPlugin`), {id: plugin, version})

  it('of one id in several processes serialise and end consistent', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const artifacts = await Promise.all(['1.0.0', '2.0.0', '3.0.0', '4.0.0'].map((version) => small(dir, version)))
      const outcomes = await Promise.all(artifacts.map((artifact) => runChildInstall({artifact, options: {dataRoot, hostRid: 'linux-x64', allowUnsigned: true, retain: 0}})))
      assert.deepEqual(outcomes.map((outcome) => [outcome.status, outcome.reply?.ok]), [[0, true], [0, true], [0, true], [0, true]], describeOutcomes(outcomes))
      const versions = await versionsOf(dataRoot, id)
      // Each install keeps the version it activated and the one before it.
      assert.equal(versions.length, 2, versions.join(', '))
      await assertConsistent(dataRoot, 'four processes')
      assert.deepEqual(await stagingEntries(dataRoot), [])
      assert.deepEqual((await readdir(path.join(dataRoot, 'plugins', id))).sort(), ['current.json', 'data', 'trust.json', 'versions'])
    } finally {
      await cleanup()
    }
  })

  it('of one version in several processes install it once; the others are already-installed', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const artifact = await small(dir, '1.0.0')
      const outcomes = await Promise.all([1, 2, 3].map(() => runChildInstall({artifact, options: {dataRoot, hostRid: 'linux-x64', allowUnsigned: true, retain: 0}})))
      const replies = outcomes.map((outcome) => (outcome.reply?.ok === true ? 'installed' : outcome.reply?.code)).sort()
      assert.deepEqual(replies, ['already-installed', 'already-installed', 'installed'], describeOutcomes(outcomes))
      await assertConsistent(dataRoot, 'three processes')
    } finally {
      await cleanup()
    }
  })

  it('of different ids run side by side and all complete', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const ids = ['com.example.one', 'com.example.two', 'com.example.three', 'com.example.four']
      const artifacts = await Promise.all(ids.map((plugin) => small(dir, '1.0.0', plugin)))
      const outcomes = await Promise.all(artifacts.map((artifact) => runChildInstall({artifact, options: {dataRoot, hostRid: 'linux-x64', allowUnsigned: true, retain: 0}})))
      assert.deepEqual(outcomes.map((outcome) => outcome.status), [0, 0, 0, 0], describeOutcomes(outcomes))
      for (const plugin of ids) {
        assert.equal(JSON.parse(await readFile(path.join(dataRoot, 'plugins', plugin, 'current.json'), 'utf8')).version, '1.0.0')
        assert.equal((await verifyInstalled(dataRoot, plugin)).valid, true)
      }
      assert.deepEqual(await stagingEntries(dataRoot), [])
    } finally {
      await cleanup()
    }
  })

  it('of one id in one process serialise too', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const artifacts = await Promise.all(['1.0.0', '2.0.0', '3.0.0'].map((version) => small(dir, version)))
      const results = await Promise.all(artifacts.map((artifact) => install(artifact, {dataRoot, hostRid: 'linux-x64', allowUnsigned: true})))
      assert.deepEqual(results.map((result) => result.activated), [true, true, true])
      // Exactly one install saw no previous version: they ran one after another.
      assert.equal(results.filter((result) => result.previousVersion === null).length, 1)
      await assertConsistent(dataRoot, 'one process')
    } finally {
      await cleanup()
    }
  })
})

describe('leftovers of a killed run', () => {
  it('are cleaned by the next operation on another plugin: staging removed, a committed install finished', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const options = {dataRoot, hostRid: 'linux-x64', allowUnsigned: true}
      const early = await writeArtifact(path.join(dir, 'early.svcPlugin'), {id: 'com.example.early'})
      const late = await writeArtifact(path.join(dir, 'late.svcPlugin'), {id: 'com.example.late'})
      const other = await writeArtifact(path.join(dir, 'other.svcPlugin'), {id: 'com.example.other'})
      assert.equal((await runChildInstall({artifact: early, options, killAt: {step: 'extracted'}})).signal, 'SIGKILL')
      assert.equal((await stagingEntries(dataRoot)).length, 1)
      // The second run already removed what the first left (it was killed before its commit point).
      assert.equal((await runChildInstall({artifact: late, options, killAt: {step: 'committed'}})).signal, 'SIGKILL')
      assert.deepEqual((await stagingEntries(dataRoot)).map((name) => name.split('_')[0]), ['com.example.late'])
      assert.deepEqual((await readdir(path.join(dataRoot, 'plugins'))).sort(), ['_staging', 'com.example.late'])
      await install(other, options)
      assert.deepEqual(await stagingEntries(dataRoot), [])
      // Killed before its commit point: gone without a trace. Killed after it: installed and active.
      assert.deepEqual((await readdir(path.join(dataRoot, 'plugins'))).sort(), ['_staging', 'com.example.late', 'com.example.other'])
      assert.equal(await currentOf(dataRoot, 'com.example.late'), '1.0.0')
      assert.equal((await verifyInstalled(dataRoot, 'com.example.late')).valid, true)
    } finally {
      await cleanup()
    }
  })

  it('include a lock whose owner still runs: the next install waits, then gives up with lock-timeout', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const {hostname} = await import('node:os')
      await mkdir(path.join(dataRoot, 'plugins', id), {recursive: true})
      // The parent of this test process is alive and is not us: a live owner.
      await writeFile(path.join(dataRoot, 'plugins', id, '.lock'), JSON.stringify({pid: process.ppid, host: hostname(), token: 'busy'}))
      const artifact = await writeArtifact(path.join(dir, 'v1.svcPlugin'), {id})
      await assert.rejects(install(artifact, {dataRoot, hostRid: 'linux-x64', allowUnsigned: true, lockTimeoutMs: 0}), installError('lock-timeout'))
      assert.deepEqual(await versionsOf(dataRoot, id), [])
    } finally {
      await cleanup()
    }
  })
})

describe('a failure during extraction', () => {
  const outsideStaging = (relative: string) => relative === 'plugins/_staging' || relative.startsWith('plugins/_staging/')
  const options = (dataRoot: string, extra: Partial<InstallOptions> = {}): InstallOptions => ({dataRoot, hostRid: 'linux-x64', allowUnsigned: true, ...extra})

  it('of an entry whose declared size lies is refused with archive-malformed and leaves nothing', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      await install(await writeArtifact(path.join(dir, 'v1.svcPlugin'), {id, version: '1.0.0'}), options(dataRoot))
      const liar = await writeArtifact(path.join(dir, 'liar.svcPlugin'), {id, version: '2.0.0', payload: {'runtimes/linux-x64/heavy': 'ELF', 'data/a.bin': randomBytes(3 * MiB), 'data/z.txt': 'z'.repeat(4 * MiB)}})
      // Large enough for its deflate stream of a few KB to be plausible, so the lie shows only while extracting.
      await patchDeclaredSize(liar, 'data/z.txt', 100_000)
      const before = await snapshotTree(dataRoot, {exclude: outsideStaging})
      let staged = 0
      await assert.rejects(
        install(liar, options(dataRoot, {onProgress: ({step, bytesDone}) => void (step === 'extracting' && (staged = bytesDone))})),
        installError('archive-malformed', {reason: 'entry-larger-than-declared', entry: 'data/z.txt'}),
      )
      assert.ok(staged > 0, 'something was extracted before the lie was found')
      assert.deepEqual([...(await snapshotTree(dataRoot, {exclude: outsideStaging}))], [...before])
      assert.deepEqual(await stagingEntries(dataRoot), [])
    } finally {
      await cleanup()
    }
  })

  it('where a file cannot be created in staging is refused with io-error and leaves nothing', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      const payload: Record<string, string> = {'runtimes/linux-x64/heavy': 'ELF'}
      for (let i = 0; i < 30; i++) payload[`assets/file-${String(i).padStart(2, '0')}.txt`] = `file ${i}\n`
      const artifact = await writeArtifact(path.join(dir, 'v1.svcPlugin'), {id, version: '1.0.0', payload})
      let blocked = false
      await assert.rejects(
        install(
          artifact,
          options(dataRoot, {
            // The directory refuses the last file: it already exists there (as root, permissions would not stop us).
            onProgress: async ({step}) => {
              if (step !== 'extracting' || blocked) return
              blocked = true
              const staging = path.join(dataRoot, 'plugins', '_staging')
              const [name] = await readdir(staging)
              await writeFile(path.join(staging, name as string, 'content', 'runtimes', 'linux-x64', 'heavy'), 'in the way')
            },
          }),
        ),
        installError('io-error', {errno: 'EEXIST'}),
      )
      assert.deepEqual(await readdir(path.join(dataRoot, 'plugins')), ['_staging'])
      assert.deepEqual(await stagingEntries(dataRoot), [])
    } finally {
      await cleanup()
    }
  })

  it('where versions/ is a file is refused with unsafe-data-root and leaves the old state', async () => {
    const {dir, cleanup} = await tempDir()
    try {
      const dataRoot = path.join(dir, 'data')
      await writeArtifact(path.join(dir, 'v1.svcPlugin'), {id, version: '1.0.0'})
      await writeFile(path.join(await ensurePluginDir(dataRoot), 'versions'), 'not a directory')
      const before = await snapshotTree(dataRoot, {exclude: outsideStaging})
      await assert.rejects(install(path.join(dir, 'v1.svcPlugin'), options(dataRoot)), installError('unsafe-data-root', {found: 'file'}))
      assert.deepEqual([...(await snapshotTree(dataRoot, {exclude: outsideStaging}))], [...before])
      assert.deepEqual(await stagingEntries(dataRoot), [])
    } finally {
      await cleanup()
    }
  })
})

/** What each child said, for an assertion message. */
function describeOutcomes(outcomes: ChildOutcome[]): string {
  return outcomes.map((outcome) => `${outcome.status ?? outcome.signal}: ${JSON.stringify(outcome.reply)} ${outcome.stderr.slice(0, 400)}`).join('\n')
}

async function ensurePluginDir(dataRoot: string): Promise<string> {
  const dir = path.join(dataRoot, 'plugins', id)
  await mkdir(dir, {recursive: true})
  return dir
}
