import assert from 'node:assert/strict'
import {cp, mkdir, readFile, rm, writeFile} from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import {pack} from '../../src/pack/pack.js'
import {reproduce, type ReproduceDifference} from '../../src/pack/reproduce.js'
import {exampleDir, scratch, writeTree} from './support.js'

/** A random small tree: payload files by package path (no two names equal but for case: pack refuses them), beside the example plugin's manifest. */
const trees = fc.dictionary(
  fc.tuple(fc.constantFrom('', 'a/', 'a/b/', 'c/'), fc.constantFrom('x', 'y', 'z', 'data', 'Q'), fc.constantFrom('.txt', '.bin', '')).map(([folder, name, extension]) => `${folder}${name}${extension}`),
  fc.uint8Array({maxLength: 300}),
  {minKeys: 1, maxKeys: 8},
)

/** One change of a tree, and what reproduce must say about it. */
type Mutation =
  | {kind: 'none'}
  | {kind: 'byte'; file: number; offset: number}
  | {kind: 'add'; name: string}
  | {kind: 'remove'; file: number}
  | {kind: 'manifest'; description: string}

const mutations: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant({kind: 'none' as const}),
  fc.record({kind: fc.constant('byte' as const), file: fc.nat(), offset: fc.nat()}),
  fc.record({kind: fc.constant('add' as const), name: fc.constantFrom('added.txt', 'a/added', 'c/d/new.bin')}),
  fc.record({kind: fc.constant('remove' as const), file: fc.nat()}),
  fc.record({kind: fc.constant('manifest' as const), description: fc.stringMatching(/^[A-Z][a-z]{2,30}( [a-z]{1,10}){0,3}\.$/)}),
)

/** Applies `mutation` to the tree at `root` (holding `names`); returns the difference it must give, null for none. */
async function mutate(root: string, names: readonly string[], mutation: Mutation): Promise<ReproduceDifference | null> {
  switch (mutation.kind) {
    case 'none':
      return null
    case 'byte': {
      const entry = names[mutation.file % names.length]!
      const file = path.join(root, ...entry.split('/'))
      const bytes = await readFile(file)
      // An empty file gets a byte; any other has one of its bytes flipped.
      await writeFile(file, bytes.length === 0 ? Buffer.from([mutation.offset % 256]) : Buffer.from(bytes.map((byte, index) => (index === mutation.offset % bytes.length ? byte ^ 0xff : byte))))
      return {kind: 'content', entry}
    }
    case 'add':
      if (names.includes(mutation.name)) return null
      await writeTree(root, {[mutation.name]: 'added\n'})
      return {kind: 'missing-entry', entry: mutation.name}
    case 'remove': {
      const entry = names[mutation.file % names.length]!
      await rm(path.join(root, ...entry.split('/')))
      return {kind: 'extra-entry', entry}
    }
    case 'manifest': {
      const file = path.join(root, 'manifest.json')
      const manifest = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
      if (manifest.description === mutation.description) return null
      await writeFile(file, JSON.stringify({...manifest, description: mutation.description}, null, 2))
      return {kind: 'manifest', pointer: '/description', expected: mutation.description}
    }
  }
}

/**
 * The property: for a random small tree packed into an artifact and a random single change of the tree,
 * reproduce names the change's entry (or pointer) as the first difference; with no change it reproduces.
 */
export async function checkReproduceProperty(numRuns: number): Promise<void> {
  const work = await scratch('reproduce-property')
  let run = 0
  try {
    await fc.assert(
      fc.asyncProperty(trees, mutations, async (files, mutation) => {
        const root = path.join(work.dir, `t${run}`)
        const artifact = path.join(work.dir, `t${run++}.svcPlugin`)
        await mkdir(root)
        await cp(path.join(exampleDir, 'manifest.json'), path.join(root, 'manifest.json'))
        await writeTree(root, files)
        await pack(root, {output: artifact})
        const expected = await mutate(root, Object.keys(files), mutation)
        const result = await reproduce(root, artifact)
        assert.equal(result.reproduced, expected === null)
        if (expected === null) return
        const {kind, entry, pointer} = result.difference!
        assert.deepEqual({kind, entry, pointer}, {kind: expected.kind, entry: expected.entry, pointer: expected.pointer})
        if (expected.expected !== undefined) assert.equal(result.difference!.expected, expected.expected)
      }),
      {numRuns},
    )
  } finally {
    await work.cleanup()
  }
}
