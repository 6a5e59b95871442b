import {resolveLimits} from '../archive/limits.js'
import {cancellable} from '../cancellation.js'
import type {ArchiveLimits} from '../archive/types.js'
import {readFiles, type TreeFile} from '../fs/tree.js'
import {sourceError} from '../archive/source.js'
import type {PackageContent} from '../manifest/content.js'
import {SecretScanner, maxScannedBytes} from './secrets.js'
import {judgeSourceTree} from './source-tree.js'

/**
 * The package content of a plugin source folder, judged as `pack` judges it (see source-tree.ts): every
 * regular file that `pack` would ship (not `manifest.json`, `*.svcPlugin`, `.git/`, what `.svcpluginignore`
 * lists or operating-system files), and every reason pack would refuse the folder (`refusals`). Symbolic
 * links and special files are never opened; a file larger than one entry may hold is not read. With
 * `digests`, each file is read once through SHA-256; with `secrets`, the same read looks for secrets.
 * `signal` cancels the reading (and the wait for the secret scan).
 */
export async function readFolderContent(dir: string, options: {digests: boolean; secrets?: boolean; limits?: Partial<ArchiveLimits>; signal?: AbortSignal | undefined}): Promise<PackageContent> {
  const limits = resolveLimits(options.limits)
  const scanner = options.secrets === true ? new SecretScanner() : null
  const tree = await judgeSourceTree(dir, {limits, signal: options.signal})
  const readable = tree.files.filter((file) => file.size <= limits.maxEntryBytes)
  const nameOf = new Map(readable.map((file) => [file.absolutePath, file.name]))
  const files: Map<string, TreeFile> = await readFiles(
    readable.map((file) => ({name: file.name, absolute: file.absolutePath})),
    {digests: options.digests, signal: options.signal, exactPaths: true, ...(scanner === null ? {} : {inspect: {maxBytes: maxScannedBytes, use: async (name: string, bytes: Buffer) => scanner.add(name, bytes)}})},
  ).catch((error: unknown) => {
    // A file that changed since the walk listed it is refused as pack refuses it, naming the entry.
    const at = (error as NodeJS.ErrnoException | undefined)?.path
    const name = at === undefined ? undefined : nameOf.get(at)
    throw name === undefined ? error : sourceError(name, {path: at!}, error)
  })
  // A file too large to be read is known by its size; the refusals say it is too large.
  for (const file of tree.files) if (!files.has(file.name)) files.set(file.name, {size: file.size})
  const content: PackageContent = {kind: 'directory', files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), refusals: tree.refusals}
  if (scanner === null) return content
  // A file too large to be read whole is still judged by its name.
  for (const file of tree.files) if (file.size > maxScannedBytes) scanner.add(file.name, null)
  return {...content, secrets: await cancellable(scanner.findings(), options.signal)}
}
