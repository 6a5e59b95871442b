import {stat} from 'node:fs/promises'
import path from 'node:path'
import {missingManifestAdvice} from '../archive/foreign.js'
import type {ArchiveLimits} from '../archive/types.js'
import {readFolderContent} from '../artifact/folder.js'
import {withArtifact, type OpenedArtifact} from '../artifact/open.js'
import {certificateIdPattern, maxCertificateBytes, readCertificateObject} from '../pki/certificate.js'
import {SvcPluginError} from '../errors.js'
import {readInputFile} from '../fs/input.js'
import type {ReadJsonResult} from '../json/strict-json.js'
import {readManifestDocument} from '../manifest/validate.js'
import {maxManifestBytes} from '../model/manifest-size.js'
import {entryNameOf} from '../model/entry-name.js'
import {signingFileNames} from '../model/signing-files.js'
import {isKnownPermission} from '../model/index.js'

/** Why `inspect` could not describe its subject. */
export type InspectErrorCode = 'file-not-found' | 'manifest-missing' | 'manifest-malformed'

/** Thrown by {@link inspect} when there is no readable manifest to describe. */
export class InspectError extends SvcPluginError<InspectErrorCode> {}

/**
 * How a `signature` block looks, without verifying it: `well-formed` (an Ed25519 value of 64 bytes, not
 * cryptographically verified), `unrecognized-algorithm` (another algorithm, which nothing here can check),
 * `invalid-length` (an Ed25519 value that does not decode to 64 bytes).
 */
export type SignatureShape = 'well-formed' | 'unrecognized-algorithm' | 'invalid-length'

/** A signature as the artifact declares it, never verified: each member as written, null where it is absent or not text. */
export interface SignatureFacts {
  algorithm: string | null
  /** The certificate id the signature names. */
  keyId: string | null
  /** The `certificateId` of the certificate.json the artifact carries; null when it carries none that reads as one. */
  certificateId: string | null
  /** When it was signed, as written (RFC 3339). */
  signedAt: string | null
  shape: SignatureShape
}

/** A read-only description of an artifact or a plugin folder; it never judges. */
export interface Inspection {
  subject: {kind: 'artifact' | 'directory'; path: string}
  id: unknown
  version: unknown
  name: unknown
  description: unknown
  entrypoints: {rid: string; executable: unknown; arguments: unknown[]; runtime: {kind: string; dotnetVersion?: unknown}; present: boolean}[]
  permissions: {name: string; known: boolean}[]
  languages: unknown[]
  dependencies: unknown[]
  conflicts: unknown[]
  iconPacks: unknown[]
  compatibility: unknown
  /** The signature block as data; null when the artifact is not signed. */
  signature: SignatureFacts | null
  entries: number
  uncompressedBytes: number
  /** Size of the artifact file; `null` for a folder. */
  archiveBytes: number | null
  /** Uncompressed ÷ archive bytes; `null` for a folder. */
  compressionRatio: number | null
}

/**
 * Describes an artifact (`.svcPlugin`) or a plugin folder: manifest facts, which entrypoint
 * executables are present, the signature's shape and the archive's sizes. Archives are opened
 * through the strict reader, so a hostile one is refused with its ArchiveError code.
 */
export async function inspect(subject: string, options: {limits?: Partial<ArchiveLimits>} = {}): Promise<Inspection> {
  const info = await stat(subject).catch((error: NodeJS.ErrnoException) => {
    throw new InspectError('file-not-found', `${subject} does not exist.`, {cause: error, details: {path: subject}})
  })
  return info.isDirectory() ? inspectDirectory(subject) : inspectArtifact(subject, options.limits)
}

async function inspectArtifact(file: string, limits: Partial<ArchiveLimits> | undefined): Promise<Inspection> {
  return withArtifact(file, {limits}, async (artifact) => {
    if (artifact.manifest === null) throw new InspectError('manifest-missing', `${file} has no manifest.json at its root.${missingManifestAdvice(artifact.entries.map((entry) => entry.name))}`, {details: {path: file}})
    const manifest = parseManifest(artifact.manifest.document, `${file}!manifest.json`)
    const names = new Set(artifact.entries.map((entry) => entry.name))
    const uncompressedBytes = artifact.entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
    return describe(manifest, {
      subject: {kind: 'artifact', path: file},
      certificateId: manifest.signature === undefined ? null : await carriedCertificateId(artifact),
      has: (name) => names.has(name),
      entries: artifact.entries.length,
      uncompressedBytes,
      archiveBytes: artifact.size,
    })
  })
}

async function inspectDirectory(dir: string): Promise<Inspection> {
  const manifestFile = path.join(dir, 'manifest.json')
  const {bytes} = await readInputFile(manifestFile, {limit: maxManifestBytes + 1}).catch((error: unknown) => {
    throw new InspectError('manifest-missing', `${dir} has no readable manifest.json: ${(error as Error).message}`, {cause: error, details: {path: manifestFile}})
  })
  const manifest = parseManifest(readManifestDocument(bytes), manifestFile)
  const content = await readFolderContent(dir, {digests: false})
  let uncompressedBytes = bytes.length
  for (const file of content.files.values()) uncompressedBytes += file.size
  return describe(manifest, {
    subject: {kind: 'directory', path: dir},
    certificateId: null,
    has: (name) => content.files.has(name),
    entries: content.files.size + 1,
    uncompressedBytes,
    archiveBytes: null,
  })
}

function parseManifest(document: ReadJsonResult, file: string): Record<string, unknown> {
  if (!document.ok) {
    // The reader's message already says where (line and column); the details carry them for a host.
    const {line, column} = document.problem
    throw new InspectError('manifest-malformed', `${file} cannot be read: ${document.problem.message}`, {details: {path: file, line, column}})
  }
  return document.value as Record<string, unknown>
}

interface Facts {
  subject: Inspection['subject']
  /** The certificate id of the certificate.json carried beside a signature. */
  certificateId: string | null
  has: (name: string) => boolean
  entries: number
  uncompressedBytes: number
  archiveBytes: number | null
}

function describe(manifest: Record<string, unknown>, facts: Facts): Inspection {
  return {
    subject: facts.subject,
    id: manifest.id ?? null,
    version: manifest.version ?? null,
    name: manifest.name ?? null,
    description: manifest.description ?? null,
    entrypoints: describeEntrypoints(manifest.entrypoints, facts.has),
    permissions: arrayOf(manifest.permissions)
      .filter((value): value is string => typeof value === 'string')
      .map((name) => ({name, known: isKnownPermission(name)})),
    languages: arrayOf(manifest.languages),
    dependencies: arrayOf(manifest.dependencies),
    conflicts: arrayOf(manifest.conflicts),
    iconPacks: arrayOf(manifest.iconPacks),
    compatibility: manifest.compatibility ?? null,
    signature: signatureFacts(manifest.signature, facts.certificateId),
    entries: facts.entries,
    uncompressedBytes: facts.uncompressedBytes,
    archiveBytes: facts.archiveBytes,
    compressionRatio: facts.archiveBytes ? Math.round((facts.uncompressedBytes / facts.archiveBytes) * 100) / 100 : null,
  }
}

function describeEntrypoints(value: unknown, has: (name: string) => boolean): Inspection['entrypoints'] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return []
  return Object.entries(value as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rid, raw]) => {
      const entry = (raw !== null && typeof raw === 'object' ? raw : {}) as Record<string, unknown>
      const runtime = (entry.runtime !== null && typeof entry.runtime === 'object' ? entry.runtime : {}) as Record<string, unknown>
      const executable = entry.executable ?? null
      return {
        rid,
        executable,
        arguments: arrayOf(entry.arguments),
        runtime: {kind: typeof runtime.kind === 'string' ? runtime.kind : 'SelfContained', ...(runtime.dotnetVersion === undefined ? {} : {dotnetVersion: runtime.dotnetVersion})},
        present: typeof executable === 'string' && has(entryNameOf(executable)),
      }
    })
}

/** The signature block as data (never verified); null when there is none. */
export function signatureFacts(signature: unknown, certificateId: string | null = null): SignatureFacts | null {
  if (signature === undefined || signature === null) return null
  const block = (typeof signature === 'object' ? signature : {}) as Record<string, unknown>
  const text = (value: unknown): string | null => (typeof value === 'string' ? value : null)
  return {algorithm: text(block.algorithm), keyId: text(block.keyId), certificateId, signedAt: text(block.signedAt), shape: signatureShape(block)}
}

/** How the block looks: its algorithm, and an Ed25519 value's decoded length. */
function signatureShape(block: Record<string, unknown>): SignatureShape {
  if (block.algorithm !== 'ed25519') return 'unrecognized-algorithm'
  const value = typeof block.value === 'string' ? block.value : ''
  const decoded = /^[A-Za-z0-9+/]*={0,2}$/.test(value) ? Buffer.from(value, 'base64') : Buffer.alloc(0)
  return decoded.length === 64 ? 'well-formed' : 'invalid-length'
}

/** The `certificateId` of the certificate.json an artifact carries, or null when there is none that reads as one. */
async function carriedCertificateId(artifact: OpenedArtifact): Promise<string | null> {
  const entry = artifact.archive.get(signingFileNames.certificateJson)
  if (entry === undefined || entry.uncompressedSize > maxCertificateBytes) return null
  const certificate = readCertificateObject(await artifact.archive.readEntry(entry, maxCertificateBytes))
  const id = certificate?.certificateId
  return typeof id === 'string' && certificateIdPattern.test(id) ? id : null
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
