import {isUtf8} from 'node:buffer'
import {lstatSync, readdirSync, realpathSync, type Dirent, type Stats} from 'node:fs'
import path from 'node:path'
import {cancellationPoint} from '../cancellation.js'
import {folderPathAsOpened} from '../fs/opened-path.js'
import {ArchiveError} from '../archive/errors.js'
import {SizeTally} from '../archive/limits.js'
import {EntryNameRegistry, compareEntryNames} from '../archive/names.js'
import {checkEntryPath, describeEntryPathProblem} from '../archive/path-policy.js'
import type {ArchiveLimits} from '../archive/types.js'
import type {SourceRefusal} from '../manifest/content.js'
import {deriveLanguages} from '../manifest/languages.js'
import {renderPackedManifest} from '../manifest/packed-manifest.js'
import {signingEntryNames} from '../model/signing-files.js'
import {ignoreFileName, readPackageFileRule} from './package-files.js'
import {formatMiB, plural} from '../quantities.js'

/**
 * The one judgement of a plugin source folder: which files its package holds and every reason the folder
 * cannot be packed as it is. `pack` refuses the folder with the first reason; `validate` reports each one as
 * an error with the same code.
 */

/** A regular file of the source tree that goes into the artifact. */
export interface SourceFile {
  /** Path inside the artifact: relative to the source root, `/`-separated. */
  name: string
  /** Absolute path on disk, free of links: the walk starts from the source root's real path. */
  absolutePath: string
  size: number
}

/** What {@link judgeSourceTree} found. */
export interface JudgedSourceTree {
  /** Every regular file of the package, in archive order (those a refusal names included). */
  files: SourceFile[]
  /**
   * Operating-system files left out (`.DS_Store`, `Thumbs.db`, `__MACOSX/`…), a folder's path ending
   * in `/`, in archive order.
   */
  leftOut: string[]
  /**
   * Every reason the folder cannot be packed, in the order pack meets them: the entries' (in archive order),
   * then the limits'. Empty for a folder pack takes.
   */
  refusals: SourceRefusal[]
}

/** Root names only `sign` may write: a tree holding them would pack an unsignable artifact. */
const signingNames = new Set(signingEntryNames)

/**
 * Lists every entry under `root` that belongs in the artifact (see package-files.ts: not `manifest.json`,
 * `*.svcPlugin`, `.git/`, the ignore file and what it lists, operating-system files) and judges it before a
 * byte is read: symbolic links, FIFOs, sockets and devices (never opened), setuid, setgid and sticky bits,
 * the names the signer writes, names that are not UTF-8, names the entry-path policy refuses and names that
 * collide are `source-entry-rejected`; more entries or bytes than `limits` allow are `limit-exceeded`. The files
 * at the paths in `exclude` are left out, whatever path the walk meets them by, as pack leaves out its own output. A folder or entry that cannot be
 * listed or looked at is an {@link ArchiveError}: `source-changed` when it went away meanwhile, `unreadable`
 * otherwise. Once `signal` is aborted, the next folder is not listed and no further status is taken (its
 * `AbortError` instead).
 */
export async function judgeSourceTree(root: string, options: {exclude?: readonly string[]; limits: ArchiveLimits; signal?: AbortSignal | undefined}): Promise<JudgedSourceTree> {
  const rule = await readPackageFileRule(root)
  const top = realFolderPath(root)
  // Told by their identity, so that the same file reached by another path (a link on the way, a bind mount, a
  // hard link) is left out too; a path that does not exist yet names nothing the walk can meet.
  const excluded = new Set((options.exclude ?? []).map(fileIdentity).filter((identity) => identity !== null))
  const found: {name: string; absolutePath: string; notUtf8?: true}[] = []
  const leftOut: string[] = []
  // Each folder is listed by a synchronous call, as each entry's status is taken below: a listing is a few
  // microseconds of work, a trip through the thread pool costs more (measured on 20,000 files in 200
  // folders: the walk takes about 60 ms less, a seventh of it). The event loop still turns once a folder,
  // so that an abort is heard while the walk goes on.
  const walk = async (dir: string, prefix: string): Promise<void> => {
    await cancellationPoint(options.signal)
    const {entries, notUtf8} = listFolder(dir, prefix)
    for (const entry of entries) {
      const name = `${prefix}${entry.name}`
      // `dir` is absolute and normalised and a listed name holds no separator: joining is appending.
      const absolutePath = `${dir}${dir.endsWith(path.sep) ? '' : path.sep}${entry.name}`
      const decision = rule(entry.isDirectory() ? `${name}/` : name)
      if (decision === 'system-file') leftOut.push(entry.isDirectory() ? `${name}/` : name)
      if (decision !== 'packed') continue
      if (notUtf8.has(entry.name)) found.push({name, absolutePath, notUtf8: true})
      else if (entry.isDirectory()) await walk(absolutePath, `${name}/`)
      else found.push({name, absolutePath})
    }
  }
  await walk(top, '')
  found.sort((a, b) => compareEntryNames(a.name, b.name))
  const names = new EntryNameRegistry()
  const files: SourceFile[] = []
  const refusals: SourceRefusal[] = []
  // One synchronous call per entry: a status is a few microseconds of work, less than a promise and a
  // trip through the thread pool cost; the event loop turns every thousand entries.
  for (let index = 0; index < found.length; index++) {
    if (index % 1024 === 1023) await cancellationPoint(options.signal)
    const entry = found[index]!
    if (entry.notUtf8 === true) {
      refusals.push(rejected(entry.name, `${entry.name} has a name that is not UTF-8 (shown with U+FFFD where its bytes are not); an artifact's names are. Rename it or list it in ${ignoreFileName}.`, {reason: 'invalid-utf8'}))
      continue
    }
    const stats = statusOf(entry.name, entry.absolutePath)
    if (excluded.has(`${stats.dev}:${stats.ino}`)) continue
    const refusal = judgeEntry(names, entry.name, stats)
    if (refusal !== null) refusals.push(refusal)
    if (stats.isFile()) files.push({name: entry.name, absolutePath: entry.absolutePath, size: stats.size})
  }
  refusals.push(...limitRefusals(files, options.limits))
  return {files, leftOut: leftOut.sort(compareEntryNames), refusals}
}

/**
 * The entries of folder `dir` (`prefix` is its path in the package), and those of their names that are not
 * UTF-8 as Node decoded them (a byte that is not UTF-8 reads as U+FFFD, so such a name cannot be opened by
 * the name read: it is refused instead).
 */
function listFolder(dir: string, prefix: string): {entries: Dirent[]; notUtf8: ReadonlySet<string>} {
  const name = prefix === '' ? '.' : prefix.slice(0, -1)
  const entries = walkCall(name, dir, () => readdirSync(dir, {withFileTypes: true}))
  if (!entries.some((entry) => entry.name.includes('\uFFFD'))) return {entries, notUtf8: new Set()}
  // Only then listed again as bytes: U+FFFD may also be a name's own character, written in UTF-8.
  const raw = walkCall(name, dir, () => readdirSync(dir, {encoding: 'buffer'}))
  return {entries, notUtf8: new Set(raw.filter((name) => !isUtf8(name)).map((name) => name.toString('utf8')))}
}

/**
 * The path the walk starts from: the folder's own, free of links, as the system names it (see
 * `fs/opened-path.ts`), so that every path listed is a file's own (see `exactPath` of a writer source). A
 * folder whose path is not UTF-8 is `unreadable`: Node would name it with U+FFFD, another folder's name.
 */
function realFolderPath(root: string): string {
  const resolved = path.resolve(root)
  const real = walkCall('.', resolved, () => folderPathAsOpened(resolved) ?? realpathSync(resolved, {encoding: 'buffer'}))
  if (!isUtf8(real)) {
    throw new ArchiveError('unreadable', `${resolved} is a folder whose real path is not UTF-8 (${JSON.stringify(real.toString('latin1'))}); rename or move it.`, {reason: 'source-io', entry: '.', path: resolved})
  }
  return real.toString('utf8')
}

/** `dev:ino` of the file at `file` (not following a link), or null when there is none. */
function fileIdentity(file: string): string | null {
  try {
    const stats = lstatSync(file)
    return `${stats.dev}:${stats.ino}`
  } catch {
    return null
  }
}

/** The status of a listed entry (not following a link). */
function statusOf(name: string, absolutePath: string): Stats {
  return walkCall(name, absolutePath, () => lstatSync(absolutePath))
}

/**
 * Runs one call of the walk on `absolutePath` (`name` in the package): a failure is `source-changed` when the
 * folder or entry went away since it was listed (renamed, removed, replaced), `unreadable` otherwise (no
 * permission, a path too long, a failing disk). The message names the path once, with the system's code.
 */
function walkCall<T>(name: string, absolutePath: string, call: () => T): T {
  try {
    return call()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error))
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new ArchiveError('source-changed', `${absolutePath} went away while the folder was read (${code}); try again when nothing is changing it.`, {reason: 'source-missing', entry: name, path: absolutePath}, {cause: error})
    }
    throw new ArchiveError('unreadable', `${absolutePath} cannot be read (${code}).`, {reason: 'source-io', entry: name, path: absolutePath}, {cause: error})
  }
}

/** Why one listed entry cannot go into the artifact, or null; a name that may is claimed in `names`. */
function judgeEntry(names: EntryNameRegistry, name: string, stats: Stats): SourceRefusal | null {
  if (!stats.isFile()) {
    const kind = stats.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'
    return rejected(name, `${name} is ${kind}; an artifact holds regular files only. Replace it with the file itself or list it in ${ignoreFileName}.`, {reason: stats.isSymbolicLink() ? 'symlink' : 'special-file'})
  }
  // An artifact's files get 0644 or 0755; a source file asking for setuid, setgid or sticky is a mistake to fix, not to drop silently.
  if ((stats.mode & 0o7000) !== 0) {
    return rejected(name, `${name} has the setuid, setgid or sticky bit (mode 0o${(stats.mode & 0o7777).toString(8)}); an artifact never carries them. Clear the bit (chmod u-s,g-s,-t) or list it in ${ignoreFileName}.`, {reason: 'special-mode-bits'})
  }
  if (signingNames.has(name)) {
    return rejected(name, `${name} is a name the signer writes at the artifact root; a source tree must not hold it. Remove it or list it in ${ignoreFileName}.`, {reason: 'reserved-signing-name'})
  }
  const problem = checkEntryPath(name)
  if (problem) return rejected(name, `${describeEntryPathProblem(name, problem)} Rename it or list it in ${ignoreFileName}.`, {reason: problem})
  // Names equal case-insensitively or after NFC (`A.txt` beside `a.txt`), or a file where another path
  // needs a folder, would land on one file on Windows and macOS.
  try {
    names.add(name)
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error
    return rejected(name, `${error.message} Rename one of them or list it in ${ignoreFileName}.`, error.details)
  }
  return null
}

function rejected(name: string, message: string, details: Record<string, unknown>): SourceRefusal {
  return {code: 'source-entry-rejected', message, path: name, details: {...details, path: name}}
}

/** Which limit each archive reason names. */
const limitOfReason: Readonly<Record<string, keyof ArchiveLimits>> = {
  'entry-too-large': 'maxEntryBytes',
  'total-too-large': 'maxTotalBytes',
}

/**
 * The limits the readers would refuse the artifact for, judged on the files before a byte is read, with the
 * archive layer's own checks: too many entries, then the first entry too large or beyond the total.
 */
function limitRefusals(files: readonly SourceFile[], limits: ArchiveLimits): SourceRefusal[] {
  const refusals: SourceRefusal[] = []
  // The manifest, and room for the certificate entries sign adds: a packed artifact can always be signed.
  const entries = files.length + 1 + signingEntryNames.length
  if (entries > limits.maxEntries) {
    refusals.push({
      code: 'limit-exceeded',
      message: `The plugin has ${plural(files.length, 'file')}; with manifest.json and the ${signingEntryNames.length} certificate entries signing adds, its artifact would hold ${entries} entries, over the limit of ${limits.maxEntries}. Leave files out (.svcpluginignore) or combine them.`,
      path: null,
      details: {limit: 'maxEntries', value: entries},
    })
  }
  try {
    const tally = new SizeTally(limits)
    for (const file of files) tally.add(file.name, file.size)
  } catch (error) {
    if (!(error instanceof ArchiveError)) throw error
    const {reason, entry, actual} = error.details as {reason: string; entry?: string; actual?: number}
    refusals.push({code: 'limit-exceeded', message: error.message, path: entry ?? null, details: {limit: limitOfReason[reason] ?? reason, ...(entry === undefined ? {} : {path: entry}), value: actual}})
  }
  return refusals
}

/**
 * The refusal of a packed manifest over `limits.maxManifestBytes`: the source manifest with `files[]` listing
 * `names` and `languages` derived from them, measured before a byte is read (every digest has one length),
 * or null when it fits.
 */
export function packedManifestRefusal(manifest: Record<string, unknown>, files: readonly {name: string; size: number}[], limits: ArchiveLimits): SourceRefusal | null {
  const digest = `sha256:${'0'.repeat(64)}`
  const languages = deriveLanguages(files.map((file) => file.name))
  const text = renderPackedManifest(manifest, {files: files.map((file) => ({path: file.name, sha256: digest, size: file.size})), ...(languages.length > 0 ? {languages} : {})})
  const bytes = Buffer.byteLength(text)
  if (bytes <= limits.maxManifestBytes) return null
  return {code: 'limit-exceeded', message: `The packed manifest.json would be ${formatMiB(bytes)}, over the ${formatMiB(limits.maxManifestBytes)} limit.`, path: null, details: {limit: 'maxManifestBytes', value: bytes}}
}
