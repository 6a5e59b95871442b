import {stat} from 'node:fs/promises'
import {readInputFile} from '../fs/input.js'
import {replaceFilePair} from '../fs/output.js'
import {RevocationError} from './errors.js'
import {maxRevocationListBytes, type RevocationList} from './list.js'
import {formatMiB} from '../quantities.js'

/**
 * The signature file of a list file: beside it, the `.json` extension replaced by `.sig`
 * (`revocations.json` → `revocations.sig`); a name without `.json` gets `.sig` appended.
 */
export function revocationSignatureFile(jsonFile: string): string {
  return jsonFile.toLowerCase().endsWith('.json') ? `${jsonFile.slice(0, -'.json'.length)}.sig` : `${jsonFile}.sig`
}

/**
 * Reads `revocations.json` and its signature file (default {@link revocationSignatureFile}) as they are;
 * `verifyRevocationList` judges them. `revocation-list-unreadable` when a file is missing or unreadable,
 * `revocation-list-invalid` when the list is larger than a list may be (it is not read then).
 */
export async function readRevocationList(jsonFile: string, sigFile: string = revocationSignatureFile(jsonFile)): Promise<RevocationList> {
  const {bytes, size} = await readInput(jsonFile, maxRevocationListBytes)
  if (size > maxRevocationListBytes) {
    throw new RevocationError('revocation-list-invalid', `${jsonFile} is ${formatMiB(size)}, more than the ${formatMiB(maxRevocationListBytes)} a revocation list may be.`, {details: {path: jsonFile}})
  }
  const json = new Uint8Array(bytes)
  // A signature file is one line of base64; a little more is enough to refuse anything else.
  const sig = (await readInput(sigFile, 4096)).bytes.toString('latin1')
  return {json, sig}
}

/** True when a list file exists at `jsonFile` (whatever its content). */
export async function revocationListExists(jsonFile: string): Promise<boolean> {
  try {
    await stat(jsonFile)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw unreadable(jsonFile, error)
  }
}

/**
 * Writes a list pair ({@link replaceFilePair}): both files go to temporary siblings first, then each is
 * renamed over its file, so neither is ever half-written, and a failed second rename undoes the first. A
 * process killed between the two renames leaves a pair that fails verification, never one that verifies
 * with the wrong content. A failure is `write-failed` naming the file.
 */
export async function writeRevocationList(list: RevocationList, jsonFile: string, sigFile: string = revocationSignatureFile(jsonFile)): Promise<void> {
  const sigText = list.sig.endsWith('\n') ? list.sig : `${list.sig}\n`
  await replaceFilePair({file: jsonFile, content: list.json}, {file: sigFile, content: sigText})
}

async function readInput(file: string, limit: number): Promise<{bytes: Buffer; size: number}> {
  try {
    return await readInputFile(file, {limit})
  } catch (error) {
    throw unreadable(file, error)
  }
}

function unreadable(file: string, error: unknown): RevocationError {
  return new RevocationError('revocation-list-unreadable', `Cannot read the revocation list file ${file}: ${(error as Error).message}`, {cause: error, details: {path: file}})
}
