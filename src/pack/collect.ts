import path from 'node:path'
import fg from 'fast-glob'
import ignore from 'ignore'
import {ArchiveError} from '../archive/errors.js'
import {EntryNameRegistry, compareEntryNames} from '../archive/names.js'
import {checkEntryPath, describeEntryPathProblem} from '../archive/path-policy.js'
import {InputFileError, readInputFile} from '../fs/input.js'
import {isExcludedFromPackage} from '../manifest/content.js'
import {PackError} from './errors.js'

/** A regular file of the source tree that goes into the artifact. */
export interface SourceFile {
  /** Path inside the artifact: relative to the source root, `/`-separated. */
  name: string
  /** Absolute path on disk. */
  absolutePath: string
  size: number
}

/** Root names only `sign` may write: a tree holding them would pack an unsignable artifact. */
const signingNames = new Set(['certificate.json', 'certificate.sig', 'issuer.json', 'issuer.sig'])

/** The file that lists extra exclusions, in gitignore syntax. */
export const ignoreFileName = '.svcpluginignore'

/**
 * Lists every regular file under `root` that belongs in the artifact: everything
 * except the root `manifest.json`, `*.svcPlugin` files, the output file, `.git/` folders, the
 * ignore file itself and what it matches. Symlinks, FIFOs, sockets, devices and names the
 * entry-path policy refuses are `source-entry-rejected`: a build must not silently drop them.
 * Names are judged in archive order (`compareEntryNames`), so the same tree always fails on the
 * same path.
 */
export async function collectSourceFiles(root: string, options: {exclude?: readonly string[]} = {}): Promise<SourceFile[]> {
  const ignored = await readIgnoreFile(root)
  const excluded = new Set((options.exclude ?? []).map((file) => path.resolve(file)))
  const found = (
    await fg('**/*', {
      cwd: root,
      dot: true,
      onlyFiles: false,
      followSymbolicLinks: false,
      stats: true,
      ignore: ['**/.git/**'],
    })
  ).sort((a, b) => compareEntryNames(a.path, b.path))
  const names = new EntryNameRegistry()
  const files: SourceFile[] = []
  for (const entry of found) {
    const name = entry.path
    if (isExcluded(name) || ignored.ignores(name)) continue
    const absolutePath = path.join(root, name)
    if (excluded.has(absolutePath)) continue
    const stats = entry.stats!
    if (stats.isDirectory()) continue
    if (!stats.isFile()) {
      const kind = stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'
      throw new PackError('source-entry-rejected', `${name} is ${kind}; an artifact holds regular files only. Replace it with the file itself or list it in ${ignoreFileName}.`, {
        details: {path: name, reason: stats.isSymbolicLink() ? 'symlink' : 'special-file'},
      })
    }
    // An artifact's files get 0644 or 0755; a source file asking for setuid, setgid or sticky is a mistake to fix, not to drop silently.
    if ((stats.mode & 0o7000) !== 0) {
      throw new PackError('source-entry-rejected', `${name} has the setuid, setgid or sticky bit (mode 0o${(stats.mode & 0o7777).toString(8)}); an artifact never carries them. Clear the bit (chmod u-s,g-s,-t) or list it in ${ignoreFileName}.`, {
        details: {path: name, reason: 'special-mode-bits'},
      })
    }
    if (signingNames.has(name)) {
      throw new PackError('source-entry-rejected', `${name} is a name the signer writes at the artifact root; a source tree must not hold it. Remove it or list it in ${ignoreFileName}.`, {
        details: {path: name, reason: 'reserved-signing-name'},
      })
    }
    const problem = checkEntryPath(name)
    if (problem) {
      throw new PackError('source-entry-rejected', `${describeEntryPathProblem(name, problem)} Rename it or list it in ${ignoreFileName}.`, {
        details: {path: name, reason: problem},
      })
    }
    claimName(names, name)
    files.push({name, absolutePath, size: stats.size})
  }
  return files
}

/**
 * Names equal case-insensitively or after NFC (`A.txt` beside `a.txt`), or a file where
 * another path needs a folder, would land on one file on Windows and macOS. The writer would refuse
 * them only after every file was hashed; refuse them here, naming the path.
 */
function claimName(names: EntryNameRegistry, name: string): void {
  try {
    names.add(name)
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error
    throw new PackError('source-entry-rejected', `${error.message} Rename one of them or list it in ${ignoreFileName}.`, {
      cause: error,
      details: {...error.details, path: name},
    })
  }
}

function isExcluded(name: string): boolean {
  return name === ignoreFileName || isExcludedFromPackage(name)
}

async function readIgnoreFile(root: string): Promise<ReturnType<typeof ignore>> {
  const rules = ignore()
  try {
    rules.add((await readInputFile(path.join(root, ignoreFileName))).bytes.toString('utf8'))
  } catch (error) {
    if (!(error instanceof InputFileError && error.code === 'file-not-found')) throw error
  }
  return rules
}
