import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {cliPath, runCli, tempDir} from '../helpers/cli.js'

// util-linux `script` gives the command a real terminal; without it the terminal case cannot be run here.
const hasScript = spawnSync('script', ['--version'], {encoding: 'utf8'}).status === 0

describe('the pack progress bar', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let tree: string

  before(async () => {
    scratch = await tempDir()
    tree = path.join(scratch.dir, 'large')
    await mkdir(path.join(tree, 'bin'), {recursive: true})
    const manifest = {manifestVersion: 1, id: 'com.example.large', name: 'Large', version: '1.0.0', entrypoints: {'linux-x64': {executable: 'bin/large'}}}
    await writeFile(path.join(tree, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`)
    // Over the 64 MiB threshold; random bytes are stored, so the pack is quick (and within the ratio limit).
    await writeFile(path.join(tree, 'bin', 'large'), randomBytes(65 * 1024 * 1024))
  })
  after(() => scratch.cleanup())

  it('is drawn on stderr when stderr is a terminal and the tree is large', {skip: hasScript ? false : 'needs util-linux script'}, () => {
    const output = path.join(scratch.dir, 'tty.svcPlugin')
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} pack ${JSON.stringify(tree)} --output ${JSON.stringify(output)}`
    const run = spawnSync('script', ['-qec', command, '/dev/null'], {encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}})
    assert.equal(run.status, 0, run.stdout)
    assert.match(run.stdout, /pack \[#+\s*\] +\d+% hash /)
    assert.match(run.stdout, /pack \[#{28}\] 100% write 2\/2 files/)
    assert.match(run.stdout, /Packed com\.example\.large 1\.0\.0 -> /)
  })

  it('is never written when stderr is not a terminal, so logs and pipes stay clean', async () => {
    const result = await runCli(['pack', tree, '--output', path.join(scratch.dir, 'pipe.svcPlugin')])
    assert.equal(result.status, 0, result.stderr)
    assert.doesNotMatch(result.stderr, /pack \[/)
    assert.match(result.stdout, /^Packed com\.example\.large 1\.0\.0 -> .* \(2 entries, [\d.]+ MiB uncompressed\)\.\n$/)
  })
})
