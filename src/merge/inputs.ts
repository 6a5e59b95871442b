import {openArchive} from '../archive/reader.js'
import type {ArchiveEntry, ArchiveLimits, StrictArchive} from '../archive/types.js'
import {validateManifest} from '../manifest/validate.js'
import type {FileDigest, Manifest} from '../model/manifest.js'
import {isUnlistedEntry} from '../signing/files-check.js'
import {MergeError} from './errors.js'

/** One opened input of a merge: its archive, its manifest and the entries that make up its payload. */
export interface MergeInput {
  /** The path the caller gave. */
  file: string
  archive: StrictArchive
  manifest: Manifest
  /** The RIDs its `entrypoints` declare, sorted. */
  rids: string[]
  /** Every entry other than `manifest.json` and the certificate files, in archive order. */
  payload: ArchiveEntry[]
  /** Its `files[]`, by path. */
  declared: ReadonlyMap<string, FileDigest>
  /** True when it carried a `signature` or signing files, which the merge drops. */
  signed: boolean
}

/**
 * Opens one input through the strict reader and checks what can be checked without inflating
 * payload bytes: a manifest valid at development level, a `files[]` list, and a payload whose
 * names and sizes are exactly the ones `files[]` declares. Throws {@link MergeError}
 * (`manifest-invalid`, `hash-mismatch`) or the reader's ArchiveError; closes the archive on failure.
 */
export async function openMergeInput(file: string, limits: ArchiveLimits): Promise<MergeInput> {
  const archive = await openArchive(file, {limits})
  try {
    return await readInput(file, archive)
  } catch (error) {
    await archive.close()
    throw error
  }
}

async function readInput(file: string, archive: StrictArchive): Promise<MergeInput> {
  const manifestEntry = archive.get('manifest.json')
  if (!manifestEntry) {
    throw new MergeError('manifest-invalid', `${file} has no manifest.json at its root: it is not a packed plugin.`, {details: {input: file}})
  }
  const bytes = await archive.readEntry(manifestEntry, archive.limits.maxManifestBytes)
  const report = validateManifest(bytes, {level: 'development', file: `${file}!manifest.json`, subjectKind: 'artifact', subjectPath: file})
  if (!report.valid) {
    throw new MergeError('manifest-invalid', `The manifest of ${file} is not valid; run svc-plugin validate --artifact ${file} for every problem.`, {
      details: {input: file},
      report,
    })
  }
  const manifest = JSON.parse(Buffer.from(bytes).toString('utf8')) as Manifest
  // The certificate files belong to one signature over one artifact (DESIGN §7.2) and mean
  // nothing once the payload changes: the merge drops them with the signature.
  const payload = archive.entries.filter((entry) => !isUnlistedEntry(entry.name))
  const signed = manifest.signature !== undefined || archive.entries.some((entry) => entry.name !== 'manifest.json' && isUnlistedEntry(entry.name))
  return {
    file,
    archive,
    manifest,
    rids: Object.keys(manifest.entrypoints).sort(),
    payload,
    declared: checkDeclaredNames(file, archive, manifest, payload),
    signed,
  }
}

/**
 * `files[]` against the central directory: every payload entry declared, every declared file
 * present, sizes equal. The digests are checked later, while the bytes stream (verify.ts).
 * A missing `files[]` is refused rather than trusted: a merge cannot vouch for bytes nobody declared.
 */
function checkDeclaredNames(file: string, archive: StrictArchive, manifest: Manifest, payload: readonly ArchiveEntry[]): Map<string, FileDigest> {
  if (!Array.isArray(manifest.files)) {
    throw hashMismatch(file, null, 'no-file-digests', `${file} declares no files[]: its bytes cannot be checked. Pack it again with svc-plugin pack.`)
  }
  const declared = new Map(manifest.files.map((digest) => [digest.path, digest]))
  for (const entry of payload) {
    const digest = declared.get(entry.name)
    if (!digest) {
      throw hashMismatch(file, entry.name, 'undeclared-file', `${file} holds ${entry.name}, which its files[] does not declare.`)
    }
    if (digest.size !== entry.uncompressedSize) {
      throw hashMismatch(file, entry.name, 'file-size-mismatch', `${file}: ${entry.name} is ${entry.uncompressedSize} bytes, but its files[] declares ${digest.size}.`)
    }
  }
  const present = new Set(payload.map((entry) => entry.name))
  for (const name of declared.keys()) {
    if (present.has(name)) continue
    const message = archive.get(name)
      ? `${file} lists ${name} in files[], which never lists manifest.json or certificate files.`
      : `${file} declares ${name} in files[], but the archive does not hold it.`
    throw hashMismatch(file, name, 'file-missing', message)
  }
  return declared
}

/** The `hash-mismatch` refusal for one input and one path; `reason` is the matching diagnostic code. */
export function hashMismatch(file: string, entry: string | null, reason: string, message: string, extra: Record<string, unknown> = {}, cause?: unknown): MergeError {
  return new MergeError('hash-mismatch', message, {details: {input: file, path: entry, reason, ...extra}, cause})
}
