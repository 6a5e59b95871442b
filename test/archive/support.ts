export {rejectionOf} from '../helpers/promises.js'
import {createHash} from 'node:crypto'
import {mkdir, mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import path from 'node:path'
import {compareEntryNames} from '../../src/archive/names.js'
import type {WriterEntry} from '../../src/archive/writer.js'

/** A fresh directory under the system temp folder; `remove()` deletes it. */
export async function makeTempDir(prefix: string): Promise<{dir: string; remove: () => Promise<void>}> {
  const dir = await mkdtemp(path.join(tmpdir(), `svc-archive-${prefix}-`))
  return {dir, remove: () => rm(dir, {recursive: true, force: true})}
}

/** `sha256:` + hex of a file's bytes, computed without the archive layer. */
export async function sha256OfFile(file: string): Promise<string> {
  return `sha256:${createHash('sha256').update(await readFile(file)).digest('hex')}`
}

/** Writes `files` (archive name → content) under `root`. */
export async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(root, ...name.split('/'))
    await mkdir(path.dirname(file), {recursive: true})
    await writeFile(file, content)
  }
}

/**
 * Writer entries for the files under `root` named in `names`: `manifest.json` (when listed) first,
 * the rest in archive order, each hashed here as a caller (pack) would.
 */
export async function fileEntries(root: string, names: readonly string[], options: {executables?: readonly string[]; stored?: readonly string[]} = {}): Promise<WriterEntry[]> {
  const sorted = [...names].sort((a, b) => (a === 'manifest.json' ? -1 : b === 'manifest.json' ? 1 : compareEntryNames(a, b)))
  const entries: WriterEntry[] = []
  for (const name of sorted) {
    const file = path.join(root, ...name.split('/'))
    entries.push({
      name,
      mode: options.executables?.includes(name) ? 0o755 : 0o644,
      store: options.stored?.includes(name) ?? false,
      source: {kind: 'file', path: file, size: (await stat(file)).size, sha256: await sha256OfFile(file)},
    })
  }
  return entries
}

