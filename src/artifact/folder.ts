import {readTree} from '../fs/tree.js'
import {isExcludedFromPackage, type PackageContent} from '../manifest/content.js'

/**
 * The package content of a plugin source folder: every regular file except those never packed
 * (`manifest.json`, `*.svcPlugin`, `.git/`); symbolic links and special files are not followed. With
 * `digests`, each file is streamed once through SHA-256.
 */
export async function readFolderContent(dir: string, options: {digests: boolean}): Promise<PackageContent> {
  const tree = await readTree(dir, {digests: options.digests, exclude: (name) => isExcludedFromPackage(name)})
  return {kind: 'directory', files: tree.files}
}
