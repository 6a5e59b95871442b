import assert from 'node:assert/strict'
import {lstat, mkdir, readFile, readdir, readlink} from 'node:fs/promises'
import path from 'node:path'
import fc from 'fast-check'
import {setMutationHook, type MutationKind} from '../../src/fs/mutations.js'
import {OutputError, withOutputs} from '../../src/fs/output.js'

/** Everything under `root`: each path with its kind, and a file's mode and content or a link's target. */
export async function snapshot(root: string): Promise<string[]> {
  const lines: string[] = []
  for (const name of (await readdir(root, {recursive: true})).map(String).sort()) {
    const full = path.join(root, name)
    const stats = await lstat(full)
    if (stats.isSymbolicLink()) lines.push(`link ${name} -> ${await readlink(full)}`)
    else if (stats.isDirectory()) lines.push(`folder ${name}`)
    else lines.push(`file ${name} ${(stats.mode & 0o777).toString(8)} ${await readFile(full, 'utf8')}`)
  }
  return lines
}

/**
 * Runs `work` with the mutation number `failAt` (1-based, counting the kinds in `kinds`, default all)
 * failing with the system error `code`; returns what it threw (or null) and how many mutations of those
 * kinds it attempted.
 */
export async function failingAt(failAt: number | null, work: () => Promise<unknown>, code = 'EIO', kinds?: readonly MutationKind[]): Promise<{error: unknown; attempts: number}> {
  let attempts = 0
  setMutationHook((mutation) => {
    if (kinds !== undefined && !kinds.includes(mutation.kind)) return
    attempts += 1
    if (attempts === failAt) throw Object.assign(new Error(`${code}: injected, '${mutation.path}'`), {code, path: mutation.path})
  })
  try {
    await work()
    return {error: null, attempts}
  } catch (error) {
    return {error, attempts}
  } finally {
    setMutationHook(null)
  }
}

// A plan: files to create at paths over a two-letter alphabet (so they share folders), some folders
// already there, and where it stops: the operation throwing before a step, or a mutation failing.
const segment = fc.constantFrom('a', 'b')
const relative = fc.array(segment, {minLength: 1, maxLength: 3}).map((parts) => parts.join('/'))
const plan = fc.record({
  files: fc.uniqueArray(relative, {minLength: 1, maxLength: 4}).map((paths) => paths.map((item) => `${item}.out`)),
  existingFolders: fc.array(relative, {maxLength: 3}),
  stop: fc.oneof(
    fc.constant({kind: 'none' as const}),
    fc.record({kind: fc.constant('throw' as const), before: fc.nat(4)}),
    fc.record({kind: fc.constant('mutation' as const), at: fc.integer({min: 1, max: 30})}),
  ),
})

/**
 * The invariant of an operation's outputs, over `runs` random plans, each in a fresh folder from
 * `fresh`: when the operation succeeds every output is there, whole; when it fails at any step (it
 * throws, or any change to disk fails), the tree is exactly as it was, no folder made for it included.
 */
export async function checkOutputPlans(fresh: () => Promise<string>, runs: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(plan, async ({files, existingFolders, stop}) => {
      const root = await fresh()
      for (const folder of existingFolders) await mkdir(path.join(root, folder), {recursive: true})
      const before = await snapshot(root)
      const stopped = new Error('stopped')
      const {error} = await failingAt(stop.kind === 'mutation' ? stop.at : null, () =>
        withOutputs(async (outputs) => {
          for (const [step, file] of files.entries()) {
            if (stop.kind === 'throw' && stop.before === step) throw stopped
            await outputs.folderOf(path.join(root, file))
            await outputs.newFile(path.join(root, file), file)
          }
          if (stop.kind === 'throw' && stop.before >= files.length) throw stopped
        }),
      )
      const after = await snapshot(root)
      const strays = after.filter((line) => !before.includes(line))
      assert.ok(before.every((line) => after.includes(line)))
      if (error === null) {
        for (const file of files) assert.equal(await readFile(path.join(root, file), 'utf8'), file)
        // Besides the outputs and their folders: a temporary whose own removal was the failing mutation.
        const temporaries = strays.filter((line) => /\.tmp /.test(line))
        assert.ok(temporaries.length <= (stop.kind === 'mutation' ? 1 : 0), temporaries.join(', '))
      } else {
        if (stop.kind === 'throw') assert.equal(error, stopped)
        else assert.ok(error instanceof OutputError, String(error))
        assert.deepEqual(strays, [])
      }
    }),
    {numRuns: runs},
  )
}
