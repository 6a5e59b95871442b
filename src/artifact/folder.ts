import {readTree} from '../fs/tree.js'
import {isExcludedFromPackage, type PackageContent, type SecretFinding} from '../manifest/content.js'
import {findSecrets, isEnvironmentFile, maxScannedBytes} from './secrets.js'

/**
 * The package content of a plugin source folder: every regular file except those never packed
 * (`manifest.json`, `*.svcPlugin`, `.git/`); symbolic links and special files are not followed. With
 * `digests`, each file is streamed once through SHA-256; with `secrets`, the same read looks for secrets.
 */
export async function readFolderContent(dir: string, options: {digests: boolean; secrets?: boolean}): Promise<PackageContent> {
  const secrets: SecretFinding[] = []
  const tree = await readTree(dir, {
    digests: options.digests,
    exclude: (name) => isExcludedFromPackage(name),
    ...(options.secrets === true ? {inspect: {maxBytes: maxScannedBytes, use: async (name: string, bytes: Buffer) => void secrets.push(...(await findSecrets(name, bytes)))}} : {}),
  })
  if (options.secrets !== true) return {kind: 'directory', files: tree.files}
  for (const name of tree.files.keys()) if (isEnvironmentFile(name) && !secrets.some((secret) => secret.path === name)) secrets.push(...(await findSecrets(name, new Uint8Array())))
  return {kind: 'directory', files: tree.files, secrets: secrets.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))}
}
