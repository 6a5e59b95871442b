import {createHash} from 'node:crypto'
import {mkdir, writeFile} from 'node:fs/promises'
import path from 'node:path'
import {openArchive} from '../../src/archive/reader.js'
import {compareEntryNames} from '../../src/archive/names.js'
import {writeArchive, type WriterEntry} from '../../src/archive/writer.js'
import {pack} from '../../src/pack/pack.js'

/** The executable each test RID declares (each in its own `runtimes/<rid>/` directory). */
export const executables: Record<string, string> = {
  'linux-x64': 'runtimes/linux-x64/merge-demo',
  'osx-arm64': 'runtimes/osx-arm64/merge-demo',
  'win-x64': 'runtimes/win-x64/MergeDemo.exe',
}

/** The manifest every per-RID tree starts from; `entrypoints` is filled in per tree. */
export function baseManifest(): Record<string, unknown> {
  return {
    manifestVersion: 1,
    id: 'com.example.merge-demo',
    name: 'Merge Demo',
    version: '2.0.0',
    description: 'A plugin built once per runtime identifier.',
    license: 'MIT',
    entrypoints: {},
    permissions: ['host:variables', 'net:outbound'],
    health: {path: '/_svc/health', intervalSeconds: 30},
  }
}

/** Deterministic bytes that deflate cannot shrink (a SHA-256 chain), so large ones take the stored path. */
export function noise(seed: string, length: number): Buffer {
  const out = Buffer.alloc(length)
  let block = createHash('sha256').update(seed).digest()
  for (let offset = 0; offset < length; offset += block.length) {
    block.copy(out, offset)
    block = createHash('sha256').update(block).digest()
  }
  return out
}

/** Options of {@link packRids}. */
export interface TreeOptions {
  /** Changes the manifest before it is written (after `entrypoints` is set). */
  manifest?: (manifest: Record<string, unknown>) => Record<string, unknown>
  /** Raw manifest text, used as is instead of the generated manifest. */
  manifestText?: string
  /** Extra files (or replacements) by path. */
  files?: Record<string, string | Buffer>
  /** File name of the artifact (default: `<rids>.svcPlugin`). */
  name?: string
}

/**
 * Writes a plugin tree that declares `rids` (shared files plus one directory per RID, with a
 * large incompressible file in it) under `root` and packs it; returns the artifact path.
 */
export async function packRids(root: string, rids: string[], options: TreeOptions = {}): Promise<string> {
  const name = options.name ?? `${rids.join('+')}.svcPlugin`
  const tree = path.join(root, `tree-${name}`)
  const files: Record<string, string | Buffer> = {
    'README.md': '# Merge Demo\n\nShared by every RID.\n',
    'Localization/Strings.resx': '<root><data name="Title"><value>Merge</value></data></root>\n',
    'Localization/Strings.de.resx': '<root><data name="Title"><value>Zusammenführen</value></data></root>\n',
    'assets/config.json': '{"refresh": 300}\n',
  }
  const entrypoints: Record<string, unknown> = {}
  for (const rid of rids) {
    const executable = executables[rid]!
    entrypoints[rid] = {executable, arguments: ['--rid', rid]}
    files[executable] = Buffer.concat([Buffer.from(`#!${rid}\n`), noise(`exe-${rid}`, 2048)])
    files[`${path.posix.dirname(executable)}/native.bin`] = noise(`native-${rid}`, 200 * 1024)
  }
  Object.assign(files, options.files ?? {})
  let manifest: Record<string, unknown> = {...baseManifest(), entrypoints}
  if (options.manifest) manifest = options.manifest(manifest)
  await mkdir(tree, {recursive: true})
  await writeFile(path.join(tree, 'manifest.json'), options.manifestText ?? `${JSON.stringify(manifest, null, 2)}\n`)
  for (const [file, data] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(tree, file)), {recursive: true})
    await writeFile(path.join(tree, file), data)
  }
  const output = path.join(root, name)
  await pack(tree, {output})
  return output
}

/** One entry of an archive, read into memory. */
export interface LoadedEntry {
  name: string
  mode: 0o644 | 0o755
  store: boolean
  data: Buffer
}

/** Reads every entry of a (small, test) archive into memory, in archive order. */
export async function loadArchive(file: string): Promise<LoadedEntry[]> {
  const archive = await openArchive(file)
  try {
    const entries: LoadedEntry[] = []
    for (const entry of archive.entries) {
      entries.push({name: entry.name, mode: entry.mode & 0o111 ? 0o755 : 0o644, store: entry.method === 0, data: await archive.readEntry(entry)})
    }
    return entries
  } finally {
    await archive.close()
  }
}

/** Writes `entries` as a new archive with the deterministic writer (to craft inputs that lie), in the writer's order. */
export async function saveArchive(file: string, entries: readonly LoadedEntry[]): Promise<void> {
  const rank = (entry: LoadedEntry) => (entry.name === 'manifest.json' ? 0 : 1)
  const ordered = [...entries].sort((a, b) => rank(a) - rank(b) || compareEntryNames(a.name, b.name))
  await writeArchive(
    file,
    ordered.map((entry): WriterEntry => ({name: entry.name, mode: entry.mode, store: entry.store, source: {kind: 'buffer', data: entry.data}})),
    {overwrite: true},
  )
}

/** Rewrites the archive at `file` in place after `change` edits its entries. */
export async function rewriteArchive(file: string, change: (entries: LoadedEntry[]) => LoadedEntry[]): Promise<void> {
  await saveArchive(file, change(await loadArchive(file)))
}
