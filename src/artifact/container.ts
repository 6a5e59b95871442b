import type {ByteRange} from '../archive/file-digest.js'
import type {ArchiveEntry, EntryLocation, StrictArchive} from '../archive/types.js'
import {signerMembers} from '../model/signing-files.js'
import {locateTrailer} from './trailer.js'

/**
 * The container digest (docs/artifact-format.md, "The container digest"): SHA-256 of the whole artifact
 * file with four byte ranges counted as 0x00 — the 64 hex digits of the manifest's `containerDigest`, the
 * trailer's `value`, and manifest.json's CRC-32 in its local header and in its central-directory record.
 * The signed manifest carries it as the last member of U, so the one signature covers every byte of the file.
 */

/** The manifest member that carries the container digest. */
export const containerDigestMember = signerMembers.containerDigest

/** Bytes of a digest in hex. */
const hexLength = 64
const claimPrefix = `,"${containerDigestMember}":"sha256:`
const claimShape = new RegExp(`^${claimPrefix}([0-9a-f]{${hexLength}})"$`)

/** Where a signed manifest's `containerDigest` and signature value lie in its bytes, read from the bytes alone. */
export interface ContainerClaim {
  /** The 64 lowercase hex digits the manifest claims. */
  sha256: string
  /** Offset of the first hex digit in manifest.json's bytes. */
  hexOffset: number
  /** Offset and length of the trailer's `value` in manifest.json's bytes. */
  valueOffset: number
  valueLength: number
}

/**
 * The manifest's claim, when its bytes end with the signature trailer and, right before it, with
 * `,"containerDigest":"sha256:<64 lowercase hex>"`; null otherwise (a manifest without the member, or with
 * it anywhere else or spelled otherwise, claims nothing here: the checklist judges that).
 */
export function containerClaim(manifest: Uint8Array): ContainerClaim | null {
  const trailer = locateTrailer(manifest)
  const claimLength = claimPrefix.length + hexLength + 1
  if (trailer === null || trailer.start < claimLength) return null
  const match = claimShape.exec(Buffer.from(manifest.buffer, manifest.byteOffset + trailer.start - claimLength, claimLength).toString('latin1'))
  if (match === null) return null
  return {sha256: match[1]!, hexOffset: trailer.start - hexLength - 1, valueOffset: trailer.valueOffset, valueLength: trailer.signature.value.length}
}

/** The byte ranges of the artifact file counted as 0x00, given the claim and where manifest.json lies (stored). */
export function containerRanges(claim: ContainerClaim, manifest: EntryLocation): ByteRange[] {
  return [
    {start: manifest.data + claim.hexOffset, length: hexLength},
    {start: manifest.data + claim.valueOffset, length: claim.valueLength},
    // The CRC-32 fields: 14 bytes into the local header, 16 into the central record.
    {start: manifest.localHeader + 14, length: 4},
    {start: manifest.centralRecord + 16, length: 4},
  ]
}

/** What an artifact file says about its container digest. */
export interface ContainerEvidence {
  /** manifest.json is stored (method 0): only then do its bytes lie in the file as they are. */
  manifestStored: boolean
  /**
   * 64 lowercase hex digits: the container digest of the file, computed with the ranges of the manifest's
   * claim; null when the manifest claims none or is not stored (there is nothing to compute).
   */
  sha256: string | null
}

/**
 * Starts computing the container evidence of an opened archive whose manifest.json (`entry`) holds
 * `manifest`: at once, in the background (see `StrictArchive.digestFile`). The promise is never left
 * rejected unobserved; it rejects with the reader's ArchiveError when the file cannot be read again.
 */
export function startContainerEvidence(archive: StrictArchive, entry: ArchiveEntry, manifest: Uint8Array): Promise<ContainerEvidence> {
  const manifestStored = entry.method === 0
  const claim = containerClaim(manifest)
  if (claim === null || !manifestStored) return Promise.resolve({manifestStored, sha256: null})
  const evidence = archive.digestFile(containerRanges(claim, archive.locate(entry))).then((sha256) => ({manifestStored, sha256}))
  evidence.catch(() => undefined)
  return evidence
}

/**
 * A signed manifest's U without its container claim: when U ends with `,"containerDigest":"sha256:<64
 * lowercase hex>"}` (the member the signer adds last), U with that member removed, which is the packed
 * manifest's U again; U itself otherwise.
 */
export function withoutContainerClaim(unsigned: Uint8Array): Uint8Array {
  const claimLength = claimPrefix.length + hexLength + 1
  const end = unsigned.length - 1
  if (end < claimLength || unsigned[end] !== 0x7d) return unsigned
  const claim = Buffer.from(unsigned.buffer, unsigned.byteOffset + end - claimLength, claimLength).toString('latin1')
  if (!claimShape.test(claim)) return unsigned
  return new Uint8Array(Buffer.concat([unsigned.subarray(0, end - claimLength), unsigned.subarray(end)]))
}
