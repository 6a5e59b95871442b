import type {ArchiveLimits} from '../archive/types.js'
import {SigningError} from '../pki/errors.js'
import type {ArtifactContents} from './contents.js'
import {computeArtifactDigest, type ArtifactDigest} from './digest.js'
import {withArtifact} from './open.js'
import {readSignedManifestJson, splitTrailer, unsignedManifestOf} from './trailer.js'

/** The canonical digest of an artifact, and whether it carries a signature trailer. */
export interface ArtifactDigestOfFile extends ArtifactDigest {
  signed: boolean
}

/**
 * Computes the canonical artifact digest P (docs/signing.md) of a `.svcPlugin` on disk, reading every
 * byte once through the strict reader: for a signed artifact U is the manifest without its trailer, for
 * an unsigned one the manifest without its trailing whitespace — the U that `sign` will sign. Archive
 * errors are thrown as they are; a manifest whose signature block is not the exact trailer is
 * `signature-malformed`.
 */
export async function artifactDigestOf(file: string, options: {limits?: Partial<ArchiveLimits>} = {}): Promise<ArtifactDigestOfFile> {
  return withArtifact(file, {limits: options.limits}, async (artifact) => digestOfContents(await artifact.contents(), file))
}

/** {@link artifactDigestOf} of contents already read. */
export function digestOfContents(contents: ArtifactContents, label: string): ArtifactDigestOfFile {
  if (contents.manifest === null) throw new SigningError('manifest-malformed', `${label} has no manifest.json at its root.`)
  const {bytes, document} = contents.manifest
  const manifest = readSignedManifestJson(bytes, document)
  if ('code' in manifest) throw new SigningError('manifest-malformed', manifest.message)
  if (manifest.signatureCount === 0) return {...computeArtifactDigest({unsignedManifest: unsignedManifestOf(bytes), files: contents.files}), signed: false}
  const split = splitTrailer(bytes, manifest)
  if ('code' in split) throw new SigningError('signature-malformed', split.message)
  return {...computeArtifactDigest({unsignedManifest: split.unsigned, files: contents.files}), signed: true}
}
