import assert from 'node:assert/strict'
import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {describe, it} from 'node:test'
import {COMMANDS} from '../../commands/index.js'
import {repoRoot, spawnCli} from '../helpers/cli.js'

const packageJson = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {name: string; version: string}
const userAgent = `${packageJson.name}/${packageJson.version} ${process.platform}-${process.arch} node-${process.version}\n`

describe('the command-line entry', () => {
  it('answers --version from package.json, with the same line the framework prints', async () => {
    const fast = await spawnCli(['--version'])
    assert.deepEqual({status: fast.status, stdout: fast.stdout, stderr: fast.stderr}, {status: 0, stdout: userAgent, stderr: ''})
    // With another argument after it, the framework answers: the two must agree.
    const framework = await spawnCli(['--version', 'extra'])
    assert.deepEqual({status: framework.status, stdout: framework.stdout}, {status: 0, stdout: userAgent})
  })

  it('is built as one bundled module per command, listed in the manifest the framework reads', () => {
    const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'oclif.manifest.json'), 'utf8')) as {version: string; commands: Record<string, {relativePath: string[]}>}
    assert.equal(manifest.version, packageJson.version)
    assert.deepEqual(Object.keys(manifest.commands).sort(), Object.keys(COMMANDS).sort())
    for (const [id, command] of Object.entries(manifest.commands)) {
      const parts = id.split(':')
      assert.deepEqual(command.relativePath, ['dist', 'bundle', 'cli', 'commands', ...parts.slice(0, -1), `${parts.at(-1)}.mjs`], id)
      assert.ok(existsSync(path.join(repoRoot, ...command.relativePath)), `${id} has no bundled module`)
    }
  })

  it('runs a command from the bundle: its help, a result, an exit status', async () => {
    const help = await spawnCli(['cert', 'root', '--help'])
    assert.equal(help.status, 0)
    assert.match(help.stdout, /^USAGE\n {2}\$ svc-plugin cert root /m)
    const validate = await spawnCli(['validate', path.join('fixtures', 'example-plugin')])
    assert.equal(validate.status, 0, validate.stderr)
    assert.match(validate.stdout, /^com\.example\.weather-station 1\.4\.2: 0 errors, 0 warnings\.$/m)
  })
})
