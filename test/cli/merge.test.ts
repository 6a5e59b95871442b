import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {access, readFile, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {runCli, runCliJson, tempDir} from '../helpers/cli.js'
import {packRids} from '../merge/fixtures.js'

let dir: string
let cleanup: () => Promise<void>
let win: string
let linux: string

before(async () => {
  ;({dir, cleanup} = await tempDir('svc-plugin-merge-cli-'))
  win = await packRids(dir, ['win-x64'])
  linux = await packRids(dir, ['linux-x64'])
})
after(async () => {
  await cleanup()
})

let outputs = 0
function outputPath(): string {
  return path.join(dir, `merged-${++outputs}.svcPlugin`)
}

async function absent(file: string): Promise<boolean> {
  return access(file).then(
    () => false,
    () => true,
  )
}

describe('svc-plugin merge with two per-RID artifacts', () => {
  it('exits 0, prints the success line on stdout and the unsigned note on stderr', async () => {
    const output = outputPath()
    const result = await runCli(['merge', win, linux, '--output', output])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, `Merged com.example.merge-demo 2.0.0 (linux-x64, win-x64) -> ${output} (9 entries).\n`)
    assert.match(result.stderr, /^note: .* is unsigned; sign it with svc-plugin sign before publishing\.\n$/)
  })

  it('prints the library result with --json', async () => {
    const output = outputPath()
    const result = await runCliJson(['merge', linux, win, '-o', output])
    assert.equal(result.status, 0, result.stderr)
    const bytes = await readFile(output)
    assert.deepEqual(result.json, {
      path: output,
      id: 'com.example.merge-demo',
      version: '2.0.0',
      rids: ['linux-x64', 'win-x64'],
      entries: 9,
      uncompressedBytes: result.json.uncompressedBytes,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
      droppedSignatures: [],
    })
    assert.equal(typeof result.json.uncompressedBytes, 'number')
    assert.equal(result.stderr, '')
  })
})

describe('svc-plugin merge usage errors', () => {
  it('exits 2 with merge-needs-two for one artifact', async () => {
    const output = outputPath()
    const result = await runCliJson(['merge', win, '--output', output])
    assert.equal(result.status, 2)
    assert.equal(result.json.error.code, 'merge-needs-two')
    assert.ok(await absent(output))
  })

  it('exits 2 without --output', async () => {
    const result = await runCli(['merge', win, linux])
    assert.equal(result.status, 2)
    assert.match(result.stderr, /^error usage: /)
  })

  it('exits 2 without any artifact', async () => {
    const result = await runCli(['merge', '--output', outputPath()])
    assert.equal(result.status, 2)
  })

  it('exits 2 with output-exists and keeps the file, then replaces it with --force', async () => {
    const output = outputPath()
    await writeFile(output, 'keep me')
    const refused = await runCliJson(['merge', win, linux, '--output', output])
    assert.equal(refused.status, 2)
    assert.equal(refused.json.error.code, 'output-exists')
    assert.equal(await readFile(output, 'utf8'), 'keep me')
    const forced = await runCli(['merge', win, linux, '--output', output, '--force'])
    assert.equal(forced.status, 0, forced.stderr)
    assert.notEqual(await readFile(output, 'utf8'), 'keep me')
  })
})

describe('svc-plugin merge with an unreadable input', () => {
  it('exits 3 when an artifact does not exist', async () => {
    const output = outputPath()
    const result = await runCliJson(['merge', win, path.join(dir, 'missing.svcPlugin'), '--output', output])
    assert.equal(result.status, 3, result.stderr)
    assert.equal(result.json.error.code, 'file-not-found')
    assert.ok(await absent(output))
  })

  it('exits 3 when an artifact is not a ZIP', async () => {
    const text = path.join(dir, 'text.svcPlugin')
    await writeFile(text, 'this is not a zip archive\n')
    const output = outputPath()
    const result = await runCli(['merge', win, text, '--output', output])
    assert.equal(result.status, 3, result.stderr)
    assert.ok(await absent(output))
  })
})

describe('svc-plugin merge refusals', () => {
  it('exits 1 with identity-mismatch and writes nothing', async () => {
    const other = await packRids(dir, ['osx-arm64'], {manifest: (manifest) => ({...manifest, version: '3.0.0'})})
    const output = outputPath()
    const result = await runCliJson(['merge', win, other, '--output', output])
    assert.equal(result.status, 1)
    assert.equal(result.json.error.code, 'identity-mismatch')
    assert.equal(result.json.error.field, 'version')
    assert.ok(await absent(output))
  })

  it('exits 1 with duplicate-rid', async () => {
    const result = await runCliJson(['merge', win, win, '--output', outputPath()])
    assert.equal(result.status, 1)
    assert.equal(result.json.error.code, 'duplicate-rid')
  })

  it('exits 1 with manifest-invalid and prints the report for an invalid merged layout', async () => {
    const shared = await packRids(dir, ['linux-x64'], {
      name: 'shared-dir.svcPlugin',
      manifest: (manifest) => ({...manifest, entrypoints: {'linux-x64': {executable: 'runtimes/win-x64/merge-demo'}}}),
      files: {'runtimes/win-x64/merge-demo': 'linux build'},
    })
    const text = await runCli(['merge', win, shared, '--output', outputPath()])
    assert.equal(text.status, 1)
    assert.match(text.stderr, /^error manifest-invalid: /)
    assert.match(text.stderr, /entrypoint-layout-invalid/)
    const json = await runCliJson(['merge', win, shared, '--output', outputPath()])
    assert.equal(json.status, 1)
    assert.equal(json.json.error.code, 'manifest-invalid')
    assert.ok(json.json.report.problems.some((problem: {code: string}) => problem.code === 'entrypoint-layout-invalid'))
  })
})
