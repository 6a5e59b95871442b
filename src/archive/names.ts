import {ArchiveError} from './errors.js'
import {entryCollisionKey, quoteName} from './path-policy.js'

/**
 * Compares entry names by the UTF-8 bytes of the path, the order of every archive's payload
 * entries: that is code-point order, which UTF-16 code-unit order (JavaScript's `<`) is not for
 * characters above U+FFFF.
 */
export function compareEntryNames(a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    // A surrogate encodes a code point above U+FFFF, which sorts after every other BMP character.
    const xSurrogate = x >= 0xd800 && x <= 0xdfff
    const ySurrogate = y >= 0xd800 && y <= 0xdfff
    if (xSurrogate !== ySurrogate) return xSurrogate ? 1 : -1
    return x < y ? -1 : 1
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1
}

/**
 * The file names of one archive, refusing any name that would land on a file or folder another
 * name already claims: an exact duplicate, a name equal case-insensitively or after
 * NFC, or a file where another entry needs a folder (`a` beside `a/b`). Used by the reader and the
 * writer alike, so nothing is written that no reader would accept.
 */
export class EntryNameRegistry {
  /** Collision key → the first file name with that key. */
  readonly #files = new Map<string, string>()
  /** Collision key → the first spelling of every folder the file names imply. */
  readonly #folders = new Map<string, string>()
  /** Folder spellings already registered, to skip recomputing their keys. */
  readonly #seenFolders = new Set<string>()

  /** Registers the file entry `name` (already judged by the path policy); throws an ArchiveError on a collision. */
  add(name: string): void {
    const key = entryCollisionKey(name)
    const existing = this.#files.get(key)
    if (existing !== undefined) throw collision(existing, name)
    const folder = this.#folders.get(key)
    if (folder !== undefined) throw fileFolderCollision(name, folder)
    let end = name.indexOf('/')
    while (end !== -1) {
      const prefix = name.slice(0, end)
      if (!this.#seenFolders.has(prefix)) {
        this.#seenFolders.add(prefix)
        const prefixKey = entryCollisionKey(prefix)
        const file = this.#files.get(prefixKey)
        if (file !== undefined) throw fileFolderCollision(file, prefix)
        const spelled = this.#folders.get(prefixKey)
        // Two spellings of one folder (`share/a`, `SHARE/b`) become one folder on Windows and macOS.
        if (spelled === undefined) this.#folders.set(prefixKey, prefix)
        else throw collision(spelled, prefix, 'Folders')
      }
      end = name.indexOf('/', end + 1)
    }
    this.#files.set(key, name)
  }
}

function collision(first: string, second: string, what: 'Entries' | 'Folders' = 'Entries'): ArchiveError {
  if (first === second) {
    return new ArchiveError('archive-malformed', `The entry name ${quoteName(second)} appears twice.`, {reason: 'duplicate-name', entry: second})
  }
  if (first.normalize('NFC') === second.normalize('NFC')) {
    // Both look alike when printed: spell the code points out.
    return new ArchiveError('archive-malformed', `${what} ${codePoints(first)} and ${codePoints(second)} are the same name in different Unicode normal forms.`, {
      reason: 'nfc-collision',
      entry: second,
      other: first,
    })
  }
  return new ArchiveError('archive-malformed', `${what} ${quoteName(first)} and ${quoteName(second)} differ only in case.`, {
    reason: 'case-collision',
    entry: second,
    other: first,
  })
}

function fileFolderCollision(file: string, folder: string): ArchiveError {
  return new ArchiveError('archive-malformed', `Entry ${quoteName(file)} is a file, but other entries need ${quoteName(folder)} to be a folder.`, {
    reason: 'file-directory-collision',
    entry: file,
    folder,
  })
}

/** A name quoted with every non-ASCII character written as \u escapes. */
function codePoints(name: string): string {
  return quoteName(name).replace(/[^\x20-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)
}
