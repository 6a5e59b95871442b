import {isArchiveError} from '../archive/errors.js'
import {EntryNameRegistry, compareEntryNames} from '../archive/names.js'
import {entryCollisionKey} from '../archive/path-policy.js'
import type {ArchiveEntry} from '../archive/types.js'
import {entryNameOf} from '../model/entry-name.js'
import {MergeError} from './errors.js'
import type {MergeInput} from './inputs.js'

/** One payload file of the merged artifact and the input copy it is written from. */
export interface PlannedFile {
  name: string
  size: number
  /** `sha256:` + 64 lowercase hex digits, as declared (and later verified) by every input holding it. */
  sha256: string
  /** The first input, in merge order, that holds the file. */
  source: MergeInput
  /** The entry of `source` that holds it. */
  entry: ArchiveEntry
}

/**
 * The union of every input's payload, each path once, sorted by `compareEntryNames`. A path held by
 * several inputs must have the same size and digest everywhere (identical copies are kept once);
 * otherwise `file-conflict`. Also `file-conflict`: two inputs spelling one path in different case
 * (the merged archive would hold names the entry-path policy refuses) and a path that is a file in
 * one input and a directory in another (no installer could extract both).
 */
export function unionPayload(inputs: readonly MergeInput[]): PlannedFile[] {
  const byKey = new Map<string, PlannedFile>()
  for (const input of inputs) {
    for (const entry of input.payload) {
      const declared = input.declared.get(entry.name)!
      const key = entryCollisionKey(entry.name)
      const held = byKey.get(key)
      if (!held) {
        byKey.set(key, {name: entry.name, size: declared.size, sha256: declared.sha256, source: input, entry})
        continue
      }
      if (held.name !== entry.name) {
        throw conflict(entry.name, [held.source, input], 'case-collision', `${held.source.file} holds ${held.name} and ${input.file} holds ${entry.name}: one path spelled two ways cannot be merged.`)
      }
      if (held.size !== declared.size || held.sha256 !== declared.sha256) {
        throw conflict(entry.name, [held.source, input], 'different-bytes', `${entry.name} differs between ${held.source.file} and ${input.file}; a file both inputs hold must be identical.`)
      }
    }
  }
  const merged = [...byKey.values()].sort((a, b) => compareEntryNames(a.name, b.name))
  // The readers' own rule for names that need one path to be both a file and a folder.
  const names = new EntryNameRegistry()
  for (const file of merged) {
    try {
      names.add(file.name)
    } catch (error) {
      if (!isArchiveError(error) || error.details.reason !== 'file-directory-collision') throw error
      const fileName = String(error.details.entry)
      const folderKey = `${entryCollisionKey(String(error.details.folder))}/`
      const asFile = merged.find((other) => other.name === fileName)!
      const asFolder = merged.find((other) => entryCollisionKey(other.name).startsWith(folderKey))!
      throw conflict(fileName, [asFile.source, asFolder.source], 'file-and-directory', `${fileName} is a file in ${asFile.source.file} but a folder in ${asFolder.source.file}, which holds ${asFolder.name}.`)
    }
  }
  return merged
}

/**
 * A RID's directory (the parent of its executable) belongs to the input that declares the RID: a
 * file another input places there is `file-conflict` unless the owner holds the identical file.
 * Otherwise a stale `runtimes/<rid>/` left in one build would leak into the RID another build
 * owns. An executable at the package root owns no directory; the layout rule
 * refuses it on its own.
 */
export function checkRidDirectories(inputs: readonly MergeInput[]): void {
  const directories: {key: string; rid: string; owner: MergeInput}[] = []
  for (const input of inputs) {
    for (const [rid, entrypoint] of Object.entries(input.manifest.entrypoints)) {
      const executable = entryNameOf(entrypoint.executable)
      const slash = executable.lastIndexOf('/')
      if (slash > 0) directories.push({key: entryCollisionKey(executable.slice(0, slash)), rid, owner: input})
    }
  }
  const ownerOf = (name: string) => {
    const key = entryCollisionKey(name)
    let best: (typeof directories)[number] | undefined
    for (const directory of directories) {
      if (key.startsWith(`${directory.key}/`) && (!best || directory.key.length > best.key.length)) best = directory
    }
    return best
  }
  for (const input of inputs) {
    for (const entry of input.payload) {
      const directory = ownerOf(entry.name)
      if (!directory || directory.owner === input) continue
      // unionPayload already proved that a copy the owner holds is identical.
      if (directory.owner.declared.has(entry.name)) continue
      throw conflict(entry.name, [directory.owner, input], 'foreign-rid-directory', `${input.file} holds ${entry.name}, inside the directory of RID ${directory.rid}, which ${directory.owner.file} provides.`, {rid: directory.rid})
    }
  }
}

function conflict(name: string, inputs: MergeInput[], reason: string, message: string, extra: Record<string, unknown> = {}): MergeError {
  return new MergeError('file-conflict', message, {details: {path: name, inputs: inputs.map((input) => input.file), reason, ...extra}})
}
