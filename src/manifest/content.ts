import {createHash} from 'node:crypto'
import {createReadStream} from 'node:fs'
import {readdir, stat} from 'node:fs/promises'
import path from 'node:path'

/** Where a package's content comes from: a source folder, an artifact, or an installed version directory. */
export type PackageContentKind = 'directory' | 'artifact' | 'installed'

/** Size and, when it was computed, digest of one file of a package. */
export interface ContentFile {
  size: number
  /** `sha256:` + 64 lowercase hex digits; absent when digests were not computed. */
  sha256?: string
}

/**
 * A snapshot of what a package holds, for the package-level checks (DESIGN §4.1): every file by its
 * path relative to the package root, `/`-separated, `manifest.json` itself excluded.
 */
export interface PackageContent {
  kind: PackageContentKind
  files: ReadonlyMap<string, ContentFile>
}

/** Files read at once while digesting: enough to keep the disk and a core busy, few enough to bound memory. */
const digestConcurrency = 4

/**
 * Lists every regular file under `dir` as a `directory` content snapshot: `.git/` folders, `*.svcPlugin`
 * files and the root `manifest.json` are left out, symbolic links and other non-regular files are not
 * followed. With `digests`, each file is streamed once through SHA-256.
 */
export async function readDirectoryContent(dir: string, options: {digests: boolean}): Promise<PackageContent> {
  const found: Array<{name: string; absolute: string}> = []
  await walk(dir, '', found)
  const files = new Map<string, ContentFile>()
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < found.length) {
      const file = found[next++] as {name: string; absolute: string}
      files.set(file.name, options.digests ? await digestFile(file.absolute) : {size: (await stat(file.absolute)).size})
    }
  }
  await Promise.all(Array.from({length: Math.min(digestConcurrency, found.length)}, worker))
  // Insertion order follows completion; give callers a stable order.
  return {kind: 'directory', files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))}
}

async function walk(absolute: string, relative: string, found: Array<{name: string; absolute: string}>): Promise<void> {
  const entries = await readdir(absolute, {withFileTypes: true})
  for (const entry of entries) {
    const name = relative === '' ? entry.name : `${relative}/${entry.name}`
    const entryPath = path.join(absolute, entry.name)
    if (entry.isDirectory()) {
      if (entry.name !== '.git') await walk(entryPath, name, found)
    } else if (entry.isFile()) {
      if (name === 'manifest.json' || entry.name.toLowerCase().endsWith('.svcplugin')) continue
      found.push({name, absolute: entryPath})
    }
  }
}

async function digestFile(file: string): Promise<ContentFile> {
  const hash = createHash('sha256')
  let size = 0
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    size += chunk.length
    hash.update(chunk)
  }
  return {size, sha256: `sha256:${hash.digest('hex')}`}
}
