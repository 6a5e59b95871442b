import assert from 'node:assert/strict'
import {access, readFile, readdir, writeFile, mkdir} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {repoRoot, runCli, runCliJson, tempDir} from '../helpers/cli.js'

let dir: string
let cleanup: () => Promise<void>
before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-init-'))
})
after(async () => {
  await cleanup()
})

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  )
}

describe('svc-plugin init', () => {
  it('creates a folder that validates at development level, with defaults from its name', async () => {
    const folder = path.join(dir, 'weather-station')
    const result = await runCliJson(['init', folder, '--rid', 'linux-x64'])
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(result.json, {
      directory: folder,
      id: 'com.example.weather-station',
      version: '0.1.0',
      files: [path.join(folder, 'manifest.json'), path.join(folder, '.svcpluginignore'), path.join(folder, 'runtimes', 'linux-x64', 'weather-station')],
      createdFolder: folder,
      placeholder: 'runtimes/linux-x64/weather-station',
    })
    const manifest = JSON.parse(await readFile(path.join(folder, 'manifest.json'), 'utf8'))
    assert.equal(manifest.name, 'Weather Station')
    // $schema is relative to the folder and names the schema this package ships, so an editor finds it.
    assert.equal(path.resolve(folder, manifest.$schema), path.join(repoRoot, 'schema', 'manifest.schema.json'))
    const validated = await runCli(['validate', folder, '--rid', 'linux-x64'])
    assert.equal(validated.status, 0, validated.stdout)
    assert.equal(validated.stdout, 'com.example.weather-station 0.1.0: 0 errors, 0 warnings.\n')
  })

  it('takes id, name, version and entrypoint from flags (no placeholder for a given entrypoint)', async () => {
    const folder = path.join(dir, 'flags')
    const result = await runCliJson(['init', folder, '--id', 'org.acme.clock', '--name', 'Clock', '--version', '2.1.0', '--rid', 'win-x64', '--entrypoint', 'bin/Clock.exe'])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.json.placeholder, null)
    const manifest = JSON.parse(await readFile(path.join(folder, 'manifest.json'), 'utf8'))
    assert.deepEqual({...manifest, $schema: undefined}, {$schema: undefined, manifestVersion: 1, id: 'org.acme.clock', name: 'Clock', version: '2.1.0', entrypoints: {'win-x64': {executable: 'bin/Clock.exe'}}})
    assert.deepEqual((await readdir(folder)).sort(), ['.svcpluginignore', 'manifest.json'])
  })

  it('never overwrites: a second init refuses with output-exists, exit 2, and leaves every byte', async () => {
    const folder = path.join(dir, 'twice')
    assert.equal((await runCli(['init', folder, '--quiet'])).status, 0)
    const before = await readFile(path.join(folder, 'manifest.json'))
    const again = await runCli(['init', folder, '--name', 'Other'])
    assert.equal(again.status, 2)
    assert.equal(again.stdout, '')
    assert.match(again.stderr, /^error output-exists: .*manifest\.json already exists; init never overwrites/)
    assert.deepEqual(await readFile(path.join(folder, 'manifest.json')), before)
  })

  it('writes nothing when any one of its files exists', async () => {
    const folder = path.join(dir, 'ignore-only')
    await mkdir(folder)
    await writeFile(path.join(folder, '.svcpluginignore'), 'mine\n')
    const result = await runCliJson(['init', folder])
    assert.equal(result.status, 2)
    assert.equal(result.json.error.code, 'output-exists')
    assert.deepEqual(await readdir(folder), ['.svcpluginignore'])
    assert.equal(await readFile(path.join(folder, '.svcpluginignore'), 'utf8'), 'mine\n')
  })

  it('refuses a value that would not validate (invalid-argument, exit 2) and creates nothing', async () => {
    const folder = path.join(dir, 'bad-id')
    const result = await runCliJson(['init', folder, '--id', 'NotAnId'])
    assert.equal(result.status, 2)
    assert.equal(result.json.error.code, 'invalid-argument')
    assert.match(result.json.error.message, /invalid-plugin-id/)
    assert.equal(await exists(folder), false)
  })
})
