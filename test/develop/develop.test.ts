import assert from 'node:assert/strict'
import {cp, mkdir, readFile, readdir, writeFile} from 'node:fs/promises'
import {writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {DevelopError} from '../../src/index.js'
import {developPlugin, type DevelopRound} from '../../src/tooling.js'
import {fixturesDir, tempDir} from '../helpers/cli.js'
import {rejectionOf} from '../helpers/promises.js'

/** A development loop running in this process, its rounds collected, waited for one at a time. */
class RunningLoop {
  readonly rounds: DevelopRound[] = []
  readonly controller = new AbortController()
  readonly done: Promise<unknown>
  #wake: (() => void) | undefined

  constructor(folder: string, dataRoot: string, quietMs: number) {
    this.done = developPlugin(folder, {
      dataRoot,
      quietMs,
      signal: this.controller.signal,
      onRound: (round) => {
        this.rounds.push(round)
        this.#wake?.()
      },
    })
  }

  /** The round number `n` (1-based), once it has happened. */
  async round(n: number): Promise<DevelopRound> {
    while (this.rounds.length < n) {
      await Promise.race([new Promise<void>((resolve) => (this.#wake = resolve)), this.done])
      if (this.rounds.length < n && (await Promise.race([this.done.then(() => true), Promise.resolve(false)]))) throw new Error(`the loop ended after ${this.rounds.length} rounds`)
    }
    return this.rounds[n - 1]!
  }

  async stop(): Promise<void> {
    this.controller.abort()
    await this.done
  }
}

/** The bytes of `file` inside the active version of the example plugin in `dataRoot`. */
async function installed(dataRoot: string, file: string): Promise<string> {
  const plugin = path.join(dataRoot, 'plugins', 'com.example.weather-station')
  const {version} = JSON.parse(await readFile(path.join(plugin, 'current.json'), 'utf8')) as {version: string}
  return readFile(path.join(plugin, 'versions', version, file), 'utf8')
}

describe('developPlugin', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let count = 0
  const copy = async (): Promise<{folder: string; dataRoot: string}> => {
    count += 1
    const folder = path.join(scratch.dir, `plugin-${count}`)
    await cp(path.join(fixturesDir, 'example-plugin'), folder, {recursive: true})
    await writeFile(path.join(folder, '.svcpluginignore'), '*.log\n')
    return {folder, dataRoot: path.join(scratch.dir, `data-${count}`)}
  }
  before(async () => (scratch = await tempDir('develop-')))
  after(() => scratch.cleanup())

  it('makes a burst of saves one round with every path of it, and a later save the next round with only its own', async () => {
    const {folder, dataRoot} = await copy()
    // A quiet period far longer than writing five small files takes, however loaded the machine.
    const loop = new RunningLoop(folder, dataRoot, 1500)
    try {
      assert.equal((await loop.round(1)).outcome, 'installed')
      const burst = ['README.md', 'assets/notes.txt', 'Localization/extra.txt', 'runtimes/linux-x64/data.bin', 'assets/more.txt']
      for (const [index, file] of burst.entries()) writeFileSync(path.join(folder, file), `burst ${index}\n`)
      const second = await loop.round(2)
      assert.equal(second.outcome, 'installed', JSON.stringify(second))
      for (const file of burst) assert.ok(second.changed.includes(file), `${file} not in ${JSON.stringify(second.changed)}`)
      assert.equal(await installed(dataRoot, 'assets/more.txt'), 'burst 4\n')
      // An ignored file (.svcpluginignore lists *.log) starts no round; the next round is the sentinel's alone.
      await writeFile(path.join(folder, 'debug.log'), 'noise\n')
      await writeFile(path.join(folder, 'README.md'), 'sentinel\n')
      const third = await loop.round(3)
      assert.deepEqual(third.changed, ['README.md'])
      assert.equal(await installed(dataRoot, 'README.md'), 'sentinel\n')
    } finally {
      await loop.stop()
    }
  })

  it('keeps the last good version while the manifest is broken, sees a rename-over save, and installs the fix', async () => {
    const {folder, dataRoot} = await copy()
    const loop = new RunningLoop(folder, dataRoot, 150)
    const manifest = path.join(folder, 'manifest.json')
    const good = await readFile(manifest, 'utf8')
    try {
      await loop.round(1)
      await writeFile(manifest, good.replace('"version": "1.4.2"', '"version": "1.4"'))
      const broken = await loop.round(2)
      assert.equal(broken.outcome, 'invalid')
      assert.ok(broken.outcome === 'invalid' && broken.errors >= 1 && broken.report.problems.some((problem) => problem.code === 'invalid-version'))
      assert.deepEqual(broken.outcome === 'invalid' && broken.kept, {id: 'com.example.weather-station', version: '1.4.2'})
      // An editor's save: a new file renamed over the old one; then a plain write to the new file.
      await writeFile(path.join(folder, '.manifest.json.swp'), good)
      const {rename} = await import('node:fs/promises')
      await rename(path.join(folder, '.manifest.json.swp'), manifest)
      assert.equal((await loop.round(3)).outcome, 'installed')
      await writeFile(path.join(folder, 'README.md'), 'after the rename\n')
      // Until the README round, an extra round may come from the swap file's own events: wait for the bytes.
      for (let n = 4; (await installed(dataRoot, 'README.md')) !== 'after the rename\n'; n += 1) await loop.round(n)
    } finally {
      await loop.stop()
    }
  })

  it('refuses a data root inside the folder that pack would pack, and ignores one that .svcpluginignore lists', async () => {
    const {folder} = await copy()
    const inside = path.join(folder, 'host-data')
    const refused = await rejectionOf(developPlugin(folder, {dataRoot: inside, once: true}))
    assert.ok(refused instanceof DevelopError)
    assert.equal(refused.code, 'data-root-inside-plugin')
    assert.deepEqual(await readdir(folder).then((names) => names.includes('host-data')), false)
    await writeFile(path.join(folder, '.svcpluginignore'), '*.log\nhost-data/\n')
    const loop = new RunningLoop(folder, inside, 150)
    try {
      assert.equal((await loop.round(1)).outcome, 'installed')
      // The install's own writes into the data root start no round: the next one is the README's alone.
      await writeFile(path.join(folder, 'README.md'), 'inside\n')
      assert.deepEqual((await loop.round(2)).changed, ['README.md'])
    } finally {
      await loop.stop()
    }
  })

  it('with once, runs one round; stopping leaves no temporary folder, no staging and no lock', async () => {
    const {folder, dataRoot} = await copy()
    const before = (await readdir(tmpdir())).filter((name) => name.startsWith('svc-plugin-develop-'))
    const summary = await developPlugin(folder, {dataRoot, once: true})
    assert.equal(summary.rounds, 1)
    assert.deepEqual(summary.installed, {id: 'com.example.weather-station', version: '1.4.2'})
    const loop = new RunningLoop(folder, dataRoot, 150)
    await loop.round(1)
    await loop.stop()
    assert.deepEqual((await readdir(tmpdir())).filter((name) => name.startsWith('svc-plugin-develop-')), before)
    assert.deepEqual(await readdir(path.join(dataRoot, 'plugins', '_staging')).catch(() => []), [])
    assert.ok(!(await readdir(path.join(dataRoot, 'plugins', 'com.example.weather-station'))).includes('.lock'))
  })

  it('refuses a folder that is not one before anything is written', async () => {
    const {folder, dataRoot} = await copy()
    const error = await rejectionOf(developPlugin(path.join(folder, 'manifest.json'), {dataRoot, once: true}))
    assert.equal(error.code, 'not-a-folder')
    await mkdir(dataRoot, {recursive: true})
    assert.deepEqual(await readdir(dataRoot), [])
  })
})
