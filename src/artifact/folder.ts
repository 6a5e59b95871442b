import {cancellable} from '../cancellation.js'
import {readTree} from '../fs/tree.js'
import type {PackageContent} from '../manifest/content.js'
import {readPackageFileRule} from './package-files.js'
import {SecretScanner, maxScannedBytes} from './secrets.js'

/**
 * The package content of a plugin source folder: every regular file that `pack` would ship (not
 * `manifest.json`, `*.svcPlugin`, `.git/`, what `.svcpluginignore` lists or operating-system files);
 * symbolic links and special files are not followed. With `digests`, each file is streamed once through SHA-256; with `secrets`, the same read
 * looks for secrets. `signal` cancels the reading (and the wait for the secret scan).
 */
export async function readFolderContent(dir: string, options: {digests: boolean; secrets?: boolean; signal?: AbortSignal | undefined}): Promise<PackageContent> {
  const scanner = options.secrets === true ? new SecretScanner() : null
  const rule = await readPackageFileRule(dir)
  const tree = await readTree(dir, {
    digests: options.digests,
    signal: options.signal,
    exclude: (name, isDirectory) => rule(isDirectory ? `${name}/` : name) !== 'packed',
    ...(scanner === null ? {} : {inspect: {maxBytes: maxScannedBytes, use: async (name: string, bytes: Buffer) => scanner.add(name, bytes)}}),
  })
  if (scanner === null) return {kind: 'directory', files: tree.files}
  // A file too large to be read whole is still judged by its name.
  for (const [name, file] of tree.files) if (file.size > maxScannedBytes) scanner.add(name, null)
  return {kind: 'directory', files: tree.files, secrets: await cancellable(scanner.findings(), options.signal)}
}
