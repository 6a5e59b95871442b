import type {ArchiveEntry, ArchiveLimits, StrictArchive} from '../archive/types.js'
import {openArtifact, type OpenedArtifact} from '../artifact/open.js'
import {compareDeclaredFiles, isExemptFromFiles} from '../manifest/declared-files.js'
import {readManifest} from '../manifest/read-manifest.js'
import type {FileDigest, Manifest} from '../model/manifest.js'
import {shellCommand} from '../model/shell-command.js'
import {MergeError} from './errors.js'

/** One opened input of a merge: its artifact, its manifest and the entries that make up its payload. */
export interface MergeInput {
  /** The path the caller gave. */
  file: string
  archive: StrictArchive
  manifest: Manifest
  /** The RIDs its `entrypoints` declare, sorted. */
  rids: string[]
  /** Every entry other than `manifest.json` (and, in a signed input, the signing files), in archive order. */
  payload: ArchiveEntry[]
  /** Its `files[]`, by path. */
  declared: ReadonlyMap<string, FileDigest>
  /** True when it carried a `signature`, which the merge drops with its signing files. */
  signed: boolean
}

/**
 * Opens one input (the strict reader, the manifest read once) and checks what can be checked without
 * inflating payload bytes: a manifest valid at development level, a `files[]` list, and a payload whose
 * names and sizes are exactly the ones `files[]` declares. Throws {@link MergeError} (`manifest-invalid`,
 * `hash-mismatch`) or the reader's ArchiveError; closes the artifact on failure. `signal` cancels every
 * read of the input, also those made later through `archive`.
 */
export async function openMergeInput(file: string, limits: ArchiveLimits, signal?: AbortSignal): Promise<MergeInput> {
  const artifact = await openArtifact(file, {limits, signal})
  try {
    return readInput(file, artifact)
  } catch (error) {
    await artifact.close()
    throw error
  }
}

function readInput(file: string, artifact: OpenedArtifact): MergeInput {
  if (artifact.manifest === null) {
    throw new MergeError('manifest-invalid', `${file} has no manifest.json at its root: it is not a packed plugin.`, {details: {input: file}})
  }
  const {manifest, report} = readManifest(artifact.manifest.document, {file: `${file}!manifest.json`, subjectKind: 'artifact', subjectPath: file})
  if (manifest === null) {
    const command = shellCommand(['svc-plugin', 'validate', `--artifact=${file}`])
    throw new MergeError('manifest-invalid', `The manifest of ${file} is not valid; ${command === null ? 'validate it' : `run ${command}`} for every problem.`, {
      details: {input: file},
      report,
    })
  }
  // The signing files belong to one signature over one artifact and mean nothing once the payload
  // changes: the merge drops them with the signature. In an unsigned input they are files like any other.
  const signed = Object.hasOwn(manifest, 'signature')
  const payload = artifact.entries.filter((entry) => !isExemptFromFiles(entry.name, signed))
  return {
    file,
    archive: artifact.archive,
    manifest,
    rids: Object.keys(manifest.entrypoints).sort(),
    payload,
    declared: checkDeclaredNames(file, manifest, payload, signed),
    signed,
  }
}

/**
 * `files[]` against the central directory (names and sizes, the one comparison of `declared-files`): every
 * payload entry declared, every declared file present, sizes equal. The digests are checked later, while
 * the bytes stream (verify.ts). A missing `files[]` is refused rather than trusted: a merge cannot vouch
 * for bytes nobody declared.
 */
function checkDeclaredNames(file: string, manifest: Manifest, payload: readonly ArchiveEntry[], signed: boolean): Map<string, FileDigest> {
  if (!Array.isArray(manifest.files)) {
    throw hashMismatch(file, null, 'no-file-digests', `${file} declares no files[]: its bytes cannot be checked. Pack it again with svc-plugin pack.`)
  }
  const sizes = new Map(payload.map((entry) => [entry.name, {size: entry.uncompressedSize}]))
  const [first] = compareDeclaredFiles(manifest.files, sizes, {exhaustive: true, signed})
  if (first !== undefined) throw hashMismatch(file, first.path, first.code, `${file}: ${first.message}`)
  return new Map(manifest.files.map((digest) => [digest.path, digest]))
}

/** The `hash-mismatch` refusal for one input and one path; `reason` is the file problem's code. */
export function hashMismatch(file: string, entry: string | null, reason: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown): MergeError {
  return new MergeError('hash-mismatch', message, {details: {input: file, path: entry, reason, ...extra}, cause})
}
