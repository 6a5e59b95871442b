import assert from 'node:assert/strict'
import {readdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {sha256Of} from '../signing/pki.js'
import {copyExample} from '../pack/support.js'
import {runCli, spawnCli, tempDir} from '../helpers/cli.js'

describe('svc-plugin pack --reproduce', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let source: string
  let artifact: string

  before(async () => {
    scratch = await tempDir('svc-plugin-cli-reproduce-')
    source = await copyExample(path.join(scratch.dir, 'source'))
    artifact = path.join(scratch.dir, 'plugin.svcPlugin')
    const packed = await runCli(['pack', source, '--output', artifact])
    assert.equal(packed.status, 0, packed.stderr)
  })
  after(async () => {
    await scratch.cleanup()
  })

  it('exits 0 and says reproduced, naming the artifact and the tree (a real process), writing nothing', async () => {
    const before = await readdir(scratch.dir)
    const result = await spawnCli(['pack', source, '--reproduce', artifact])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, `reproduced: ${artifact} is what pack builds from ${source}.\n`)
    assert.equal(result.stderr, '')
    assert.deepEqual(await readdir(scratch.dir), before)
  })

  it('exits 1 with not-reproduced and the first difference, in the --json shape (a real process)', async () => {
    const readme = Buffer.from('Edited after the artifact was packed.\n')
    await writeFile(path.join(source, 'README.md'), readme)
    const result = await spawnCli(['pack', source, '--reproduce', artifact, '--json'])
    assert.equal(result.status, 1, result.stderr)
    const json = JSON.parse(result.stdout)
    assert.deepEqual(Object.keys(json), ['reproduced', 'artifact', 'source', 'difference'])
    assert.deepEqual({...json, difference: {...json.difference, actual: 'digest'}}, {
      reproduced: false,
      artifact,
      source,
      difference: {kind: 'content', entry: 'README.md', expected: sha256Of(readme), actual: 'digest'},
    })
    assert.match(json.difference.actual, /^sha256:[0-9a-f]{64}$/)
    assert.match(result.stderr, /^error not-reproduced: .* is not what pack builds from .*: the content of README\.md differs \(rebuilt "sha256:[0-9a-f]{64}", artifact "sha256:[0-9a-f]{64}"\)\.\n$/)
  })

  it('refuses --reproduce together with a flag that writes (usage, exit 2)', async () => {
    const result = await runCli(['pack', source, '--reproduce', artifact, '--output', path.join(scratch.dir, 'other.svcPlugin')])
    assert.equal(result.status, 2, result.stderr)
  })
})
