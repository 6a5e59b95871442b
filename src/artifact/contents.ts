import type {EntryDigest} from '../archive/types.js'
import type {ReadJsonResult} from '../json/strict-json.js'
import type {SecretFinding} from '../manifest/content.js'
import {signingEntryNames} from '../model/signing-files.js'
import {readManifestDocument} from '../manifest/validate.js'
import {maxCertificateBytes} from '../pki/certificate.js'
import type {ContainerEvidence} from './container.js'

/** manifest.json as read once: its exact bytes and their strict-JSON reading. */
export interface ManifestRead {
  bytes: Uint8Array
  document: ReadJsonResult
  /**
   * For a manifest read from an artifact file: that file's container evidence, computed from the moment
   * the artifact was opened. Absent for a manifest read from a tree (extracted or installed) or from memory.
   */
  container?: Promise<ContainerEvidence>
}

/**
 * What an artifact holds, read once, in the one shape every consumer takes: the validator, verification,
 * signing, install (from the tree it extracted), the launch check (from an installed version) and the store.
 */
export interface ArtifactContents {
  /** manifest.json, null when the artifact has none. */
  manifest: ManifestRead | null
  /** Real size and SHA-256 of every entry except manifest.json (the signing files included). */
  files: ReadonlyMap<string, EntryDigest>
  /**
   * The bytes of the signing files (certificate.json, certificate.sig, issuer.json, issuer.sig) the artifact
   * holds; null for one that is larger than a certificate file may be (it is then never read).
   */
  signingFiles: ReadonlyMap<string, Uint8Array | null>
  /** Secrets found in the entries, when the reader was asked to look (see `contents({secrets: true})`). */
  secrets?: readonly SecretFinding[]
  /**
   * What the artifact file says about its container digest, when the contents were read from an artifact
   * file (taken from the manifest as it was read); absent for a tree, whose container is gone.
   */
  container?: ContainerEvidence
}

/** Reads manifest bytes once into a {@link ManifestRead}. */
export function manifestRead(bytes: Uint8Array): ManifestRead {
  return {bytes, document: readManifestDocument(bytes)}
}

/** True for an entry whose bytes {@link ArtifactContents.signingFiles} keeps: a signing file no larger than a certificate may be. */
export function isKeptSigningFile(name: string, size: number): boolean {
  return signingEntryNames.includes(name) && size <= maxCertificateBytes
}

/**
 * Builds the contents from the manifest, the digests of every other entry and a reader of the signing
 * files that are present and small enough (the caller's reader decides where the bytes come from); a
 * manifest read from an artifact file brings its container evidence along (awaited here).
 */
export async function contentsOf(
  manifest: ManifestRead | null,
  files: ReadonlyMap<string, EntryDigest>,
  readSigningFile: (name: string) => Promise<Uint8Array> | Uint8Array,
): Promise<ArtifactContents> {
  const signingFiles = new Map<string, Uint8Array | null>()
  for (const name of signingEntryNames) {
    const digest = files.get(name)
    if (digest === undefined) continue
    signingFiles.set(name, isKeptSigningFile(name, digest.size) ? await readSigningFile(name) : null)
  }
  const container = manifest?.container === undefined ? undefined : await manifest.container
  return container === undefined ? {manifest, files, signingFiles} : {manifest, files, signingFiles, container}
}
