import assert from 'node:assert/strict'
import {chmod, readdir, stat} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'

import {install} from '../../src/install/install.js'
import {verifyInstalled} from '../../src/install/verify-installed.js'
import {inWorkspace, type Workspace} from './helpers/workspace.js'

// Invariants: every directory the installer creates has its documented mode whatever the umask (0755, or
// 0700 for `_staging` and `data`), every file of a version the mode install set (0644, 0755 for the host's
// executable); and the launch gate reports any other mode of the version's files and directories
// (`unexpected-mode`) and any group- or world-writable directory between the data root and the version
// (`directory-writable-by-others`).

const id = 'com.example.alpha'
const executable = 'runtimes/linux-x64/alpha'
const payload = {[executable]: 'ELF alpha\n', 'assets/readme.txt': 'About alpha\n', 'assets/icons/deep/icon.txt': 'icon\n'}
const umasks = [0o000, 0o002, 0o022, 0o027, 0o077]

/** Installs the plugin under `umask` (restored afterwards). */
async function installUnder(ws: Workspace, umask: number): Promise<void> {
  const artifact = await ws.artifact('alpha', {payload})
  const previous = process.umask(umask)
  try {
    await install(artifact, {dataRoot: ws.dataRoot, hostRid: 'linux-x64', allowUnsigned: true})
  } finally {
    process.umask(previous)
  }
}

/** Every directory and file under `root` (itself included, as '.') with its permission bits and whether it is a directory. */
async function modesUnder(root: string): Promise<Map<string, {mode: number; directory: boolean}>> {
  const modes = new Map([['.', {mode: (await stat(root)).mode & 0o7777, directory: true}]])
  const walk = async (dir: string, prefix: string): Promise<void> => {
    for (const entry of await readdir(dir, {withFileTypes: true})) {
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      modes.set(relative, {mode: (await stat(path.join(dir, entry.name))).mode & 0o7777, directory: entry.isDirectory()})
      if (entry.isDirectory()) await walk(path.join(dir, entry.name), relative)
    }
  }
  await walk(root, '')
  return modes
}

/** The documented mode of each directory of the data root, and of each file of a version. */
function documentedMode(relative: string): number | undefined {
  const version = `plugins/${id}/versions/1.0.0`
  if (relative === 'plugins/_staging' || relative === `plugins/${id}/data`) return 0o700
  if (['.', 'plugins', `plugins/${id}`, `plugins/${id}/versions`, version, `${version}/assets`, `${version}/assets/icons`, `${version}/assets/icons/deep`, `${version}/runtimes`, `${version}/runtimes/linux-x64`].includes(relative)) return 0o755
  if (relative === `${version}/${executable}`) return 0o755
  if (relative.startsWith(`${version}/`)) return 0o644
  return undefined
}

describe('the modes the installer sets', () => {
  for (const umask of umasks) {
    it(`are the documented ones under umask ${umask.toString(8).padStart(3, '0')}: every directory it creates, every file of a version`, async () => {
      await inWorkspace(async (ws) => {
        await installUnder(ws, umask)
        const found = await modesUnder(ws.dataRoot)
        const undocumented = [...found].filter(([relative, {directory}]) => directory && documentedMode(relative) === undefined)
        assert.deepEqual(undocumented, [], 'every directory the installer created has a documented mode')
        const wrong = [...found].filter(([relative, {mode}]) => documentedMode(relative) !== undefined && mode !== documentedMode(relative)).map(([relative, {mode}]) => `${relative} ${mode.toString(8)}`)
        assert.deepEqual(wrong, [])
        const verification = await verifyInstalled(ws.dataRoot, id, {hostRid: 'linux-x64'})
        assert.deepEqual(verification.problems, [])
      })
    })
  }
})

describe('the launch gate', () => {
  const versionDir = (ws: Workspace) => path.join(ws.plugin(id), 'versions', '1.0.0')
  const problemsOf = async (ws: Workspace) => (await verifyInstalled(ws.dataRoot, id, {hostRid: 'linux-x64'})).problems.map(({code, path: file}) => [code, file])

  it('reports every mode of every file and directory of the version other than the one install set: unexpected-mode', async () => {
    await inWorkspace(async (ws) => {
      await installUnder(ws, 0o022)
      for (const [relative, {directory}] of await modesUnder(versionDir(ws))) {
        const target = path.join(versionDir(ws), ...(relative === '.' ? [] : relative.split('/')))
        const expected = documentedMode(relative === '.' ? `plugins/${id}/versions/1.0.0` : `plugins/${id}/versions/1.0.0/${relative}`) as number
        // The owner keeps what it needs to read (a directory it cannot list would refuse the check itself).
        const modes = directory ? [0o700, 0o750, 0o755, 0o775, 0o777, 0o1755, 0o2755, 0o4755] : [0o600, 0o644, 0o664, 0o700, 0o755, 0o777, 0o2755, 0o4755, 0o4777]
        for (const mode of modes) {
          await chmod(target, mode)
          const expectedProblems = mode === expected ? [] : [['unexpected-mode', relative === '.' ? null : relative]]
          assert.deepEqual(await problemsOf(ws), expectedProblems, `${relative} as ${mode.toString(8)}`)
          await chmod(target, expected)
        }
      }
    })
  })

  it('reports a group- or world-writable directory between the data root and the version: directory-writable-by-others', async () => {
    await inWorkspace(async (ws) => {
      await installUnder(ws, 0o022)
      for (const dir of [path.join(ws.dataRoot, 'plugins'), ws.plugin(id), path.join(ws.plugin(id), 'versions')]) {
        for (const mode of [0o700, 0o750, 0o755, 0o775, 0o757, 0o777, 0o1777]) {
          await chmod(dir, mode)
          const expected = (mode & 0o022) === 0 ? [] : [['directory-writable-by-others', null]]
          assert.deepEqual(await problemsOf(ws), expected, `${path.relative(ws.dataRoot, dir)} as ${mode.toString(8)}`)
        }
        await chmod(dir, 0o755)
      }
    })
  })

  it('says which directory and which modes', async () => {
    await inWorkspace(async (ws) => {
      await installUnder(ws, 0o022)
      await chmod(path.join(ws.plugin(id), 'versions'), 0o777)
      await chmod(path.join(versionDir(ws), ...executable.split('/')), 0o644)
      const result = await verifyInstalled(ws.dataRoot, id, {hostRid: 'linux-x64'})
      assert.equal(result.valid, false)
      assert.deepEqual(result.problems.map((problem) => problem.message), [
        `${path.join(ws.plugin(id), 'versions')} has mode 0777: others can write in it and replace what the host runs. Make it writable by its owner alone (chmod go-w).`,
        `${executable} has mode 0644; install set 0755.`,
      ])
    })
  })
})
