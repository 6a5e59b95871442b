import assert from 'node:assert/strict'
import {cp} from 'node:fs/promises'
import path from 'node:path'
import {after, before, describe, it} from 'node:test'
import {fixturesDir, runCli, runCliJson, tempDir} from '../helpers/cli.js'

describe('--show-digest', () => {
  let scratch: {dir: string; cleanup: () => Promise<void>}
  let artifact: string

  before(async () => {
    scratch = await tempDir()
    await cp(path.join(fixturesDir, 'example-plugin'), path.join(scratch.dir, 'src'), {recursive: true})
    artifact = path.join(scratch.dir, 'example.svcPlugin')
  })
  after(() => scratch.cleanup())

  it('pack and inspect print the same canonical digest, and it is SHA-256 of the P they print', async () => {
    const packed = await runCliJson<{artifactDigest: string; artifactDigestText: string}>(['pack', path.join(scratch.dir, 'src'), '--output', artifact, '--show-digest'])
    assert.equal(packed.status, 0, packed.stderr)
    const inspected = await runCliJson<{artifactDigest: string; artifactDigestText: string}>(['inspect', artifact, '--show-digest'])
    assert.equal(inspected.status, 0, inspected.stderr)
    assert.match(packed.json.artifactDigest, /^sha256:[0-9a-f]{64}$/)
    assert.equal(inspected.json.artifactDigest, packed.json.artifactDigest)
    assert.equal(inspected.json.artifactDigestText, packed.json.artifactDigestText)
    const lines = packed.json.artifactDigestText.split('\n')
    assert.equal(lines[0], 'svc-plugin-artifact/1')
    assert.match(lines[1]!, /^manifest sha256:[0-9a-f]{64} \d+$/)
    assert.equal(lines.at(-2), 'end 8')
    const {createHash} = await import('node:crypto')
    assert.equal(packed.json.artifactDigest, `sha256:${createHash('sha256').update(packed.json.artifactDigestText).digest('hex')}`)
  })

  it('prints the digest as a line of text without --json', async () => {
    const result = await runCli(['inspect', artifact, '--show-digest'])
    assert.equal(result.status, 0, result.stderr)
    assert.match(result.stdout, /^digest: +sha256:[0-9a-f]{64}$/m)
  })
})
