import assert from 'node:assert/strict'
import {access, readFile, readdir, writeFile, mkdir} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'

import {runCli, runCliJson, tempDir} from '../helpers/cli.js'

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
  it('creates a folder that validates at package level, with defaults from its name and no $schema outside a project', async () => {
    const folder = path.join(dir, 'weather-station')
    const result = await runCliJson(['init', folder, '--rid', 'linux-x64'])
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(result.json, {
      directory: folder,
      id: 'com.example.weather-station',
      version: '0.1.0',
      files: [path.join(folder, 'manifest.json'), path.join(folder, '.svcpluginignore'), path.join(folder, 'runtimes', 'linux-x64', 'weather-station')],
      createdFolder: folder,
      placeholders: ['runtimes/linux-x64/weather-station'],
      schema: null,
      schemaAdvice: `No project above ${folder} depends on svc-plugin, so the manifest has no "$schema". For an editor that completes and checks it: npm install --save-dev svc-plugin, then add "$schema": "node_modules/svc-plugin/schema/manifest.schema.json" to manifest.json.`,
    })
    const manifest = JSON.parse(await readFile(path.join(folder, 'manifest.json'), 'utf8'))
    assert.equal(manifest.name, 'Weather Station')
    assert.equal(manifest.$schema, undefined)
    // The package level judges the placeholder entrypoint too; what is left is what publication asks for.
    const validated = await runCli(['validate', folder, '--rid', 'linux-x64', '--level', 'package', '--json'])
    assert.equal(validated.status, 0, validated.stdout)
    const {problems} = JSON.parse(validated.stdout) as {problems: {code: string; severity: string}[]}
    assert.deepEqual([...new Set(problems.map((problem) => `${problem.severity} ${problem.code}`))], ['warning publication-metadata-missing'])
  })

  it('takes id, name, version and entrypoint from flags (no placeholder for a given entrypoint)', async () => {
    const folder = path.join(dir, 'flags')
    const result = await runCliJson(['init', folder, '--id', 'org.acme.clock', '--name', 'Clock', '--version', '2.1.0', '--rid', 'win-x64', '--entrypoint', 'bin/Clock.exe'])
    assert.equal(result.status, 0, result.stderr)
    assert.deepEqual(result.json.placeholders, [])
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

  it('never asks without a terminal: piped answers are not read, the defaults are taken', async () => {
    const folder = path.join(dir, 'piped')
    const result = await runCli(['init', folder, '--rid', 'linux-x64'], {input: 'com.piped.other\nOther\n'})
    assert.equal(result.status, 0, result.stderr)
    assert.doesNotMatch(result.stderr, /Plugin id/)
    const manifest = JSON.parse(await readFile(path.join(folder, 'manifest.json'), 'utf8'))
    assert.deepEqual([manifest.id, manifest.name], ['com.example.piped', 'Piped'])
  })
})
