import {createHash} from 'node:crypto'
import {constants} from 'node:fs'
import {open, readdir} from 'node:fs/promises'
import path from 'node:path'
import type {EntryDigest} from '../archive/types.js'

/** What a directory holds, as archive-style relative paths. */
export interface TreeDigest {
  /** Every regular file with its size and SHA-256, by `/`-separated path. */
  files: Map<string, EntryDigest>
  /** Paths that are neither a regular file nor a directory (symbolic links, devices, sockets): never followed. */
  unexpected: string[]
}

/**
 * Hashes every regular file under `root`, streaming, never following a symbolic link (an installed version
 * holds only regular files and the directories above them).
 */
export async function digestTree(root: string): Promise<TreeDigest> {
  const files = new Map<string, EntryDigest>()
  const unexpected: string[] = []
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, {withFileTypes: true})
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full, name)
      else if (entry.isFile()) files.set(name, await digestFile(full))
      else unexpected.push(name)
    }
  }
  await walk(root, '')
  return {files, unexpected}
}

/** Size and SHA-256 of one file, read as a stream. */
export async function digestFile(file: string): Promise<EntryDigest> {
  const hash = createHash('sha256')
  let size = 0
  // No following a link that replaced the file after the directory was listed.
  const handle = await open(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  try {
    for await (const chunk of handle.createReadStream({autoClose: false}) as AsyncIterable<Buffer>) {
      hash.update(chunk)
      size += chunk.byteLength
    }
  } finally {
    await handle.close()
  }
  return {size, sha256: `sha256:${hash.digest('hex')}`}
}
