import assert from 'node:assert/strict'
import path from 'node:path'
import {describe, it} from 'node:test'
import {workerUse} from '../../src/archive/worker-use.js'
import {pack} from '../../src/pack/pack.js'
import type {PackError} from '../../src/pack/errors.js'
import {makeTempDir, rejectionOf} from '../archive/support.js'
import {credentialSamples, encodeText, encodings, privateKeyFiles} from '../artifact/secret-corpus.js'
import {copyExample, writeTree} from './support.js'

/** The problems of the pack of `dir` refused, with pack's encoding workers always (or never) used. */
async function refusalOf(dir: string, output: string, when: 'always' | 'never'): Promise<{code: string; problems: unknown}> {
  workerUse.when = when
  try {
    const error = (await rejectionOf(pack(dir, {output}))) as PackError
    return {code: error.code, problems: error.report?.problems}
  } finally {
    workerUse.when = 'auto'
  }
}

describe("pack's encoding workers", () => {
  it('leave the secret scan every finding the main thread makes: each credential and private key, in every encoding, among clean modules', async () => {
    const temp = await makeTempDir('pack-worker')
    try {
      await packBothWays(temp.dir)
    } finally {
      await temp.remove()
    }
  })
})

/** Packs a tree of clean modules and of every secret of the corpus with workers and without: the same refusal. */
async function packBothWays(parent: string): Promise<void> {
  const dir = await copyExample(path.join(parent, 'plugin'))
  const files: Record<string, string | Uint8Array> = {}
  // Clean modules with keywords the rules then reject (links without credentials), so that workers pay.
  for (let index = 0; index < 300; index++) files[`lib/m${index}.js`] = `// https://docs.example.com/api#${index}\nexport const v${index} = ${index}\n`.repeat(40)
  for (const encoding of encodings) {
    credentialSamples.forEach((sample, index) => {
      files[`leaks/${encoding}/${index}/${sample.file}`] = encodeText(`# settings\n${sample.text}`, encoding)
    })
  }
  for (const key of privateKeyFiles()) files[`leaks/${key.file}`] = key.bytes
  files['config/.env.production'] = 'TOKEN=1\n'
  await writeTree(dir, files)
  const alone = await refusalOf(dir, path.join(parent, 'never.svcPlugin'), 'never')
  assert.equal(alone.code, 'secret-detected')
  const found = alone.problems as {code: string}[]
  const secrets = found.filter((problem) => problem.code === 'secret-detected').length
  assert.ok(secrets >= credentialSamples.length * encodings.length + 1, `${secrets} secrets found`)
  assert.deepEqual(await refusalOf(dir, path.join(parent, 'always.svcPlugin'), 'always'), alone)
}
