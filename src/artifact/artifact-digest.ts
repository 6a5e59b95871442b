import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {openArchive} from '../archive/reader.js'
import type {ArchiveLimits} from '../archive/types.js'
import {computeArtifactDigest, type ArtifactDigest} from './digest.js'
import {SigningError} from '../pki/errors.js'
import {readSignedManifestJson, splitTrailer, unsignedManifestOf} from './trailer.js'

/** The canonical digest of an artifact on disk, and whether it carries a signature trailer. */
export interface ArtifactDigestOfFile extends ArtifactDigest {
  signed: boolean
}

/**
 * Computes the canonical artifact digest P (DESIGN §7.2) of a `.svcPlugin` on disk, reading every
 * byte once through the strict reader: for a signed artifact U is the manifest without its
 * trailer, for an unsigned one the manifest without its trailing whitespace — the U that `sign`
 * will sign. Archive errors are thrown as they are; a manifest whose signature block is not the
 * exact trailer is `signature-malformed`.
 */
export async function artifactDigestOf(file: string, options: {limits?: Partial<ArchiveLimits>} = {}): Promise<ArtifactDigestOfFile> {
  const limits = resolveLimits(options.limits)
  const archive = await openArchive(file, {limits})
  try {
    const manifestEntry = archive.get(manifestEntryName)
    if (manifestEntry === undefined) throw new SigningError('manifest-malformed', `${file} has no manifest.json at its root.`)
    const files = await archive.digestEntries()
    files.delete(manifestEntryName)
    const manifestBytes = await archive.readEntry(manifestEntry, limits.maxManifestBytes)
    const manifest = readSignedManifestJson(manifestBytes)
    if ('code' in manifest) throw new SigningError('manifest-malformed', manifest.message)
    if (manifest.signatureCount === 0) return {...computeArtifactDigest({unsignedManifest: unsignedManifestOf(manifestBytes), files}), signed: false}
    const split = splitTrailer(manifestBytes, manifest)
    if ('code' in split) throw new SigningError('signature-malformed', split.message)
    return {...computeArtifactDigest({unsignedManifest: split.unsigned, files}), signed: true}
  } finally {
    await archive.close()
  }
}
