import {lstatSync, type Stats} from 'node:fs'
import {readdir} from 'node:fs/promises'
import path from 'node:path'
import {throwIfCancelled} from '../cancellation.js'
import {ArchiveError} from '../archive/errors.js'
import {EntryNameRegistry, compareEntryNames} from '../archive/names.js'
import {checkEntryPath, describeEntryPathProblem} from '../archive/path-policy.js'
import {ignoreFileName, readPackageFileRule} from '../artifact/package-files.js'
import {signingEntryNames} from '../model/signing-files.js'
import {PackError} from './errors.js'

/** A regular file of the source tree that goes into the artifact. */
export interface SourceFile {
  /** Path inside the artifact: relative to the source root, `/`-separated. */
  name: string
  /** Absolute path on disk. */
  absolutePath: string
  size: number
}

/** What {@link collectSourceFiles} found. */
export interface CollectedSource {
  /** The files to pack, in archive order. */
  files: SourceFile[]
  /**
   * Operating-system files left out (`.DS_Store`, `Thumbs.db`, `__MACOSX/`…), a folder's path ending
   * in `/`, in archive order.
   */
  leftOut: string[]
}

/** Root names only `sign` may write: a tree holding them would pack an unsignable artifact. */
const signingNames = new Set(signingEntryNames)

/**
 * Lists every regular file under `root` that belongs in the artifact (see package-files.ts: not
 * `manifest.json`, `*.svcPlugin`, `.git/`, the ignore file and what it lists, operating-system files)
 * and the operating-system files it left out. The output file is left out too. Symlinks, FIFOs,
 * sockets, devices and names the entry-path policy refuses are `source-entry-rejected`: a build must not
 * silently drop them. Names are judged in archive order (`compareEntryNames`), so the same tree always
 * fails on the same path. Once `signal` is aborted, the next folder is not listed (its `AbortError` instead).
 */
export async function collectSourceFiles(root: string, options: {exclude?: readonly string[]; signal?: AbortSignal} = {}): Promise<CollectedSource> {
  const rule = await readPackageFileRule(root)
  const excluded = new Set((options.exclude ?? []).map((file) => path.resolve(file)))
  const found: {name: string; absolutePath: string; kind: 'file' | 'other'}[] = []
  const leftOut: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    throwIfCancelled(options.signal)
    for (const entry of await readdir(dir, {withFileTypes: true})) {
      const name = `${prefix}${entry.name}`
      // `dir` is absolute and normalised and a listed name holds no separator: joining is appending.
      const absolutePath = `${dir}${dir.endsWith(path.sep) ? '' : path.sep}${entry.name}`
      const decision = rule(entry.isDirectory() ? `${name}/` : name)
      if (decision === 'system-file') leftOut.push(entry.isDirectory() ? `${name}/` : name)
      if (decision !== 'packed' || excluded.has(absolutePath)) continue
      if (entry.isDirectory()) await walk(absolutePath, `${name}/`)
      else found.push({name, absolutePath, kind: entry.isFile() ? 'file' : 'other'})
    }
  }
  await walk(path.resolve(root), '')
  found.sort((a, b) => compareEntryNames(a.name, b.name))
  const names = new EntryNameRegistry()
  const files: SourceFile[] = []
  // One synchronous call per file: a status is a few microseconds of work, less than a promise and a
  // trip through the thread pool cost, and nothing else is waiting to run meanwhile.
  for (const file of found) files.push(judgeSourceFile(names, file.name, file.absolutePath, lstatSync(file.absolutePath)))
  return {files, leftOut: leftOut.sort(compareEntryNames)}
}

/** One listed file as it goes into the artifact, or the reason it cannot. */
function judgeSourceFile(names: EntryNameRegistry, name: string, absolutePath: string, stats: Stats): SourceFile {
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
  return {name, absolutePath, size: stats.size}
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
