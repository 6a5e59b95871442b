import assert from 'node:assert/strict'
import {readFile} from 'node:fs/promises'
import path from 'node:path'
import {describe, it} from 'node:test'
import {runCli, spawnCli} from '../helpers/cli.js'
import {repoRoot} from '../fixtures/corpus.js'

describe('svc-plugin schema', () => {
  it('prints schema/manifest.schema.json byte for byte, and it parses', async () => {
    const file = await readFile(path.join(repoRoot, 'schema', 'manifest.schema.json'), 'utf8')
    const result = await runCli(['schema'])
    assert.equal(result.status, 0, result.stderr)
    assert.equal(result.stdout, file)
    assert.equal(result.stderr, '')
    const schema = JSON.parse(result.stdout)
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema')
    assert.deepEqual(schema.required, ['manifestVersion', 'id', 'name', 'version', 'entrypoints'])
  })

  it('prints the same with --json', async () => {
    const file = await readFile(path.join(repoRoot, 'schema', 'manifest.schema.json'), 'utf8')
    const result = await runCli(['schema', '--json'])
    assert.equal(result.status, 0)
    assert.equal(result.stdout, file)
  })

  it('has --help with a description and an example', async () => {
    const result = await spawnCli(['schema', '--help'])
    assert.equal(result.status, 0)
    assert.match(result.stdout, /Print the manifest JSON schema/)
    assert.match(result.stdout, /svc-plugin schema > manifest\.schema\.json/)
  })
})
