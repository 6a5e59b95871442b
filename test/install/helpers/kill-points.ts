import assert from 'node:assert/strict'
import {randomBytes} from 'node:crypto'
import {cp, mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'

import {setMutationHook, type Mutation} from '../../../src/fs/mutations.js'
import {InstallError} from '../../../src/install/errors.js'
import {install} from '../../../src/install/install.js'
import {listInstalled} from '../../../src/install/installed.js'
import type {InstallOptions} from '../../../src/install/types.js'
import {versionDirectory} from '../../../src/install/version-directories.js'
import {verifyInstalled} from '../../../src/install/verify-installed.js'
import {sha256Of, snapshotTree, writeArtifact} from './artifacts.js'
import {runChildScript} from './child.js'
import type {KillPointRequest} from './kill-point-child.js'
import {runOperation, type KillPointOperation} from './kill-point-operations.js'

/** The plugin every scenario works on. */
export const id = 'com.example.killpoint'

// The plugin's own state, written before every operation: only a purge that reached `data/` may remove it.
const markerName = 'marker.txt'
const markerText = 'state the plugin keeps across updates\n'

/** One operation started from a prepared data root, and the state it must end in. */
export interface Scenario {
  name: string
  /** The data root each run starts from (copied, never changed). */
  template: string
  operation(dataRoot: string): KillPointOperation
  /** A retry after a kill may be refused with this code: the killed run had already done the work. */
  retryMayRefuse: string | null
  /** True when the operation may remove `data/`. */
  purges: boolean
  expected: {
    /** The version `current.json` names at the end, or null when there is none. */
    active: string | null
    /** Each installed version at the end and the build it holds (`build.txt`). */
    builds: Record<string, string>
    /** The plugin directory's entries at the end; null when the directory is gone. */
    entries: string[] | null
  }
}

const installed = ['current.json', 'data', 'trust.json', 'versions']

/**
 * Writes the artifacts and the template data roots under `work` and returns the scenarios: a first
 * install, an update, a forced reinstall of the active version and of an inactive one, an activation,
 * an uninstall and an uninstall with purge.
 */
export async function prepareScenarios(work: string): Promise<Scenario[]> {
  const artifact = (version: string, build: string) =>
    writeArtifact(path.join(work, 'artifacts', `${version}-${build}.svcPlugin`), {
      id,
      version,
      payload: {
        'runtimes/linux-x64/killpoint': `ELF ${version} ${build}\n`,
        'build.txt': build,
        // Incompressible and larger than one inflate chunk: an entry is written in several steps.
        'assets/blob.bin': randomBytes(40 * 1024),
      },
    })
  const v1 = await artifact('1.0.0', 'first')
  const v2 = await artifact('2.0.0', 'first')
  const v1Rebuilt = await artifact('1.0.0', 'rebuilt')
  const v2Rebuilt = await artifact('2.0.0', 'rebuilt')

  const template = async (name: string, artifacts: string[]): Promise<string> => {
    const dataRoot = path.join(work, 'templates', name)
    for (const file of artifacts) await install(file, options(dataRoot))
    await mkdir(path.join(dataRoot, 'plugins', id, 'data'), {recursive: true})
    await writeFile(path.join(dataRoot, 'plugins', id, 'data', markerName), markerText)
    return dataRoot
  }
  // Before a first install `data/` may already exist: an uninstall without purge keeps it.
  const empty = await template('empty', [])
  const one = await template('one', [v1])
  const two = await template('two', [v1, v2])

  return [
    {
      name: 'a first install',
      template: empty,
      operation: (dataRoot) => ({kind: 'install', artifact: v1, options: options(dataRoot)}),
      retryMayRefuse: 'already-installed',
      purges: false,
      expected: {active: '1.0.0', builds: {'1.0.0': 'first'}, entries: installed},
    },
    {
      name: 'an update',
      template: one,
      operation: (dataRoot) => ({kind: 'install', artifact: v2, options: options(dataRoot)}),
      retryMayRefuse: 'already-installed',
      purges: false,
      expected: {active: '2.0.0', builds: {'1.0.0': 'first', '2.0.0': 'first'}, entries: installed},
    },
    {
      // The previous version is the active one itself, so 1.0.0 is pruned: kills around a prune too.
      name: 'a forced reinstall of the active version',
      template: two,
      operation: (dataRoot) => ({kind: 'install', artifact: v2Rebuilt, options: {...options(dataRoot), force: true}}),
      retryMayRefuse: null,
      purges: false,
      expected: {active: '2.0.0', builds: {'2.0.0': 'rebuilt'}, entries: installed},
    },
    {
      name: 'a forced reinstall of an inactive version',
      template: two,
      operation: (dataRoot) => ({kind: 'install', artifact: v1Rebuilt, options: {...options(dataRoot), force: true, activate: false}}),
      retryMayRefuse: null,
      purges: false,
      expected: {active: '2.0.0', builds: {'1.0.0': 'rebuilt', '2.0.0': 'first'}, entries: installed},
    },
    {
      name: 'an activation',
      template: two,
      operation: (dataRoot) => ({kind: 'activate', dataRoot, id, version: '1.0.0'}),
      retryMayRefuse: null,
      purges: false,
      expected: {active: '1.0.0', builds: {'1.0.0': 'first', '2.0.0': 'first'}, entries: installed},
    },
    {
      name: 'an uninstall',
      template: two,
      operation: (dataRoot) => ({kind: 'uninstall', dataRoot, id, purge: false}),
      retryMayRefuse: 'not-installed',
      purges: false,
      expected: {active: null, builds: {}, entries: ['data', 'trust.json']},
    },
    {
      name: 'an uninstall with purge',
      template: two,
      operation: (dataRoot) => ({kind: 'uninstall', dataRoot, id, purge: true}),
      retryMayRefuse: 'not-installed',
      purges: true,
      expected: {active: null, builds: {}, entries: null},
    },
  ]
}

function options(dataRoot: string): Omit<InstallOptions, 'now' | 'onProgress'> {
  return {dataRoot, hostRid: 'linux-x64', allowUnsigned: true, retain: 0}
}

/** Runs the scenario once from a copy of its template at `dataRoot`, recording every mutation. */
export async function recordMutations(scenario: Scenario, dataRoot: string): Promise<Mutation[]> {
  await cp(scenario.template, dataRoot, {recursive: true})
  const mutations: Mutation[] = []
  setMutationHook((mutation) => void mutations.push(mutation))
  try {
    await runOperation(scenario.operation(dataRoot))
  } finally {
    setMutationHook(null)
  }
  await assertSettled(scenario, dataRoot, 'the uninterrupted run')
  return mutations
}

/**
 * The kill points a quick run samples, by what the mutation does: the first write inside the staged tree,
 * the commit point (the journal's rename), the promotion of the staged tree, the switch of `current.json`,
 * its removal, each rename that takes something out of the plugin directory (the replaced or pruned
 * version, `versions/`, `data/`, …), the layout step (`versions/<version>_<n>` to `versions/<version>`) and
 * the rewrite of `current.json` after it. Keyed by a label, valued by the 1-based ordinal to kill before.
 */
export function samplePoints(mutations: readonly Mutation[], dataRoot: string): Map<string, number> {
  const points = new Map<string, number>()
  const relative = (file: string | undefined) => (file === undefined ? '' : path.relative(dataRoot, file).split(path.sep).join('/'))
  const plugin = `plugins/${id}/`
  mutations.forEach((mutation, index) => {
    const from = relative(mutation.path)
    const to = relative(mutation.to)
    const at = (label: string) => {
      if (!points.has(label)) points.set(label, index + 1)
    }
    if (mutation.kind === 'write' && from.includes('/content/')) at('a write into the staged tree')
    if (mutation.kind === 'rename' && to === `${plugin}.transaction.json`) at('the commit point (the journal)')
    if (mutation.kind === 'rename' && from.endsWith('/content') && to.startsWith(`${plugin}versions/`)) at(`the promotion to ${to.slice(plugin.length)}`)
    if (mutation.kind === 'rename' && to === `${plugin}current.json`) at(points.has('the layout step') ? 'current.json naming just the version' : 'the switch of current.json')
    if (mutation.kind === 'rename' && /\/versions\/[^/]+_\d+$/.test(from) && to === from.replace(/_\d+$/, '')) at('the layout step')
    if (mutation.kind === 'unlink' && from === `${plugin}current.json`) at('the removal of current.json')
    if (mutation.kind === 'rename' && from.startsWith(plugin) && to.startsWith('plugins/_staging/')) at(`the discard of ${from.slice(plugin.length)}`)
  })
  return points
}

/** One line naming a mutation, for a test title. */
export function describeMutation(mutation: Mutation, dataRoot: string): string {
  const relative = (file: string) => path.relative(dataRoot, file).split(path.sep).join('/').replace(/[0-9a-f]{24}/, '<random>').replace(/\.\d+\.[0-9a-f]{12}\.tmp$/, '.<pid>.<random>.tmp')
  return mutation.to === undefined ? `${mutation.kind} ${relative(mutation.path)}` : `${mutation.kind} ${relative(mutation.path)} -> ${relative(mutation.to)}`
}

/**
 * Copies the template to `dataRoot`, runs the operation in a child process that kills itself before its
 * `killBefore`-th mutation, and checks the data root the kill left; then runs the operation again in this
 * process and checks that it ends in the scenario's final state.
 */
export async function killAndRecover(scenario: Scenario, killBefore: number, dataRoot: string): Promise<void> {
  const label = `${scenario.name}, killed before mutation ${killBefore}`
  await cp(scenario.template, dataRoot, {recursive: true})
  const request: KillPointRequest = {operation: scenario.operation(dataRoot), killBefore}
  const outcome = await runChildScript('kill-point-child', request)
  assert.equal(outcome.signal, 'SIGKILL', `${label}: the child was not killed: ${outcome.stdout}${outcome.stderr}`)
  await assertConsistent(scenario, dataRoot, label)
  try {
    await runOperation(scenario.operation(dataRoot))
  } catch (error) {
    if (!(error instanceof InstallError && error.code === scenario.retryMayRefuse)) throw error
  }
  await assertSettled(scenario, dataRoot, `${label}, then run again`)
}

/**
 * What must hold at every instant: every directory under `versions/` is a complete version (exactly the
 * files of its manifest's `files[]`, with those digests, and a version matching its name); while
 * `current.json` is present, a reader using the library resolves the active version it names to one of
 * them (`versionDirectory`, `listInstalled` and `verifyInstalled` agree); `data/` is whole (or, for a
 * purge, gone); and the active version passes `verifyInstalled`.
 */
export async function assertConsistent(scenario: Scenario, dataRoot: string, label: string): Promise<void> {
  const plugin = path.join(dataRoot, 'plugins', id)
  const versions = await readdirOrEmpty(path.join(plugin, 'versions'))
  for (const name of versions) await assertCompleteVersion(path.join(plugin, 'versions', name), `${label}: versions/${name}`)
  const current = await readFile(path.join(plugin, 'current.json'), 'utf8').catch(() => null)
  const listed = (await listInstalled(dataRoot)).find((plugin) => plugin.id === id)
  if (current !== null) {
    const {version} = JSON.parse(current) as {version: string}
    const resolved = await versionDirectory(dataRoot, id, version)
    assert.ok(resolved !== null && versions.includes(path.basename(resolved)), `${label}: ${version} resolves to ${resolved}; versions/ holds ${versions.join(', ')}`)
    assert.deepEqual([listed?.activeVersion, listed?.directory], [version, resolved], `${label}: listInstalled`)
    const verification = await verifyInstalled(dataRoot, id, {hostRid: 'linux-x64'})
    assert.equal(verification.directory, resolved, `${label}: verifyInstalled checked another directory`)
    assert.equal(verification.valid, true, `${label}: the active version does not verify: ${JSON.stringify(verification.problems)}`)
  }
  const data = await readdirOrNull(path.join(plugin, 'data'))
  if (data === null) assert.ok(scenario.purges, `${label}: data/ is gone`)
  else assert.equal(await readFile(path.join(plugin, 'data', markerName), 'utf8'), markerText, `${label}: data/ lost its state`)
}

/**
 * The scenario's final state, with nothing left of any killed run, and the layout at rest: every version
 * in `versions/<version>/`, and `current.json` naming just the version.
 */
export async function assertSettled(scenario: Scenario, dataRoot: string, label: string): Promise<void> {
  await assertConsistent(scenario, dataRoot, label)
  const plugin = path.join(dataRoot, 'plugins', id)
  const entries = await readdirOrNull(plugin)
  assert.deepEqual(entries?.sort() ?? null, scenario.expected.entries, `${label}: the plugin directory holds ${entries?.join(', ')}`)
  assert.deepEqual(await readdirOrEmpty(path.join(dataRoot, 'plugins', '_staging')), [], `${label}: _staging is not empty`)
  const builds: Record<string, string> = {}
  for (const name of await readdirOrEmpty(path.join(plugin, 'versions'))) builds[name] = await readFile(path.join(plugin, 'versions', name, 'build.txt'), 'utf8')
  assert.deepEqual(builds, scenario.expected.builds, `${label}: the version directories and their builds`)
  const current = await readFile(path.join(plugin, 'current.json'), 'utf8').catch(() => null)
  const expected = scenario.expected.active === null ? null : {version: scenario.expected.active}
  assert.deepEqual(current === null ? null : JSON.parse(current), expected, `${label}: current.json`)
}

/** A version directory holds exactly the files its manifest lists, with the listed sizes and digests. */
async function assertCompleteVersion(dir: string, label: string): Promise<void> {
  const bytes = await readFile(path.join(dir, 'manifest.json')).catch(() => null)
  assert.ok(bytes !== null, `${label}: no manifest.json`)
  const manifest = JSON.parse(bytes.toString('utf8')) as {version: string; files: Array<{path: string; size: number; sha256: string}>}
  assert.equal(manifest.version, path.basename(dir).split('_')[0], `${label}: holds ${manifest.version}`)
  const expected = new Map<string, string>([['manifest.json', `file ${bytes.byteLength} ${sha256Of(bytes)}`]])
  for (const file of manifest.files) expected.set(file.path, `file ${file.size} ${file.sha256}`)
  const actual = new Map([...(await snapshotTree(dir))].filter(([, value]) => value !== 'dir'))
  assert.deepEqual(new Map([...actual].sort()), new Map([...expected].sort()), `${label}: not exactly its files[]`)
}

async function readdirOrNull(dir: string): Promise<string[] | null> {
  try {
    return await readdir(dir)
  } catch {
    return null
  }
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  return (await readdirOrNull(dir)) ?? []
}
