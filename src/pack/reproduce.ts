import path from 'node:path'
import {manifestEntryName, resolveLimits} from '../archive/limits.js'
import {throwIfCancelled} from '../cancellation.js'
import {compareEntryNames} from '../archive/names.js'
import type {ArchiveLimits, EntryDigest} from '../archive/types.js'
import {withoutContainerClaim} from '../artifact/container.js'
import {withArtifact, type OpenedArtifact} from '../artifact/open.js'
import {splitSignedManifest, unsignedManifestOf} from '../artifact/trailer.js'
import {readJsonDocument} from '../json/strict-json.js'
import {childPointer} from '../json/pointer.js'
import {signingEntryNames} from '../model/signing-files.js'
import {hashSourceFiles, type HashedFile} from './hash.js'
import {packedManifestOf, planPackFiles, readPackSource, type PlannedFile} from './pack.js'

/**
 * Proving a rebuild: packs a source folder again without writing anything and compares what pack would
 * write with an artifact — entry names, uncompressed bytes (by digest), modes, methods and the manifest
 * (the unsigned manifest without `containerDigest`). Compressed bytes are not compared: they depend on the
 * zlib build. See docs/reproducible-builds.md.
 */

/** The code of a rebuild that differs from the artifact (exit status 1). */
export type ReproduceCode = 'not-reproduced'

/** Options of {@link reproduce}. */
export interface ReproduceOptions {
  /** Overrides of the archive limits, as pack takes them. */
  limits?: Partial<ArchiveLimits>
  /** Cancels the comparison: it rejects with an error named `AbortError` (code `cancelled`); it has written nothing. */
  signal?: AbortSignal
}

/**
 * What differs first between the rebuild (`expected`) and the artifact (`actual`):
 * - `missing-entry`: the rebuild has `entry`, the artifact does not (a file added to the tree);
 * - `extra-entry`: the artifact has `entry`, the rebuild does not (a file removed from the tree);
 * - `mode`: `entry`'s Unix mode (octal text, e.g. `100755`);
 * - `method`: `entry` is deflated where pack always stores it (`stored`, `deflated`);
 * - `content`: `entry`'s uncompressed bytes (their `sha256:` digests);
 * - `manifest`: the unsigned manifest's member at `pointer` (its JSON values; absent where one side has none).
 */
export interface ReproduceDifference {
  kind: 'missing-entry' | 'extra-entry' | 'mode' | 'method' | 'content' | 'manifest'
  entry?: string
  pointer?: string
  expected?: unknown
  actual?: unknown
}

/** The outcome of {@link reproduce}. */
export interface ReproduceResult {
  /** True when the rebuild equals the artifact in everything compared. */
  reproduced: boolean
  /** The artifact, absolute. */
  artifact: string
  /** The source folder, absolute. */
  source: string
  /** True when the artifact is signed: its signing files and its manifest's signature were set aside. */
  signed: boolean
  /** The first difference, in archive order and then the manifest's; null when reproduced. */
  difference: ReproduceDifference | null
}

/** One entry as compared: its mode, its method and the digest of its bytes (null for manifest.json). */
interface ComparedEntry {
  mode: number
  method: 0 | 8 | null
  digest: EntryDigest | null
}

/**
 * Rebuilds the artifact pack would make of `source` and compares it with `artifact` (opened once, every
 * entry inflated and hashed once; every source file read once), writing nothing. The pack's plan is the
 * same as pack's: its ignore file, its left-out files, its modes, its packed manifest; what pack would
 * refuse in the folder is refused here the same way (PackError). The artifact path is left out of the tree,
 * as pack leaves out its output. An artifact that cannot be read throws the reader's ArchiveError.
 */
export async function reproduce(source: string, artifact: string, options: ReproduceOptions = {}): Promise<ReproduceResult> {
  const {signal} = options
  throwIfCancelled(signal)
  const limits = resolveLimits(options.limits)
  const artifactPath = path.resolve(artifact)
  const packSource = await readPackSource(source)
  const planned = await planPackFiles(packSource, {exclude: [artifactPath], limits, signal})
  // The container is the signer's, not pack's: it is not computed, and every byte of the artifact is read once.
  return withArtifact(artifactPath, {limits, containerEvidence: false, ...(signal === undefined ? {} : {signal})}, async (opened) => {
    const [hashed, actual] = await Promise.all([hashPlanned(planned.files, signal), readArtifact(opened)])
    const expected = rebuiltEntries(planned.files, hashed)
    const expectedManifest = unsignedManifestOf(packedManifestOf(packSource.manifest, hashed))
    const difference =
      firstEntryDifference(expected, actual.entries, actual.signed) ??
      (actual.manifest === null ? null : firstManifestDifference(expectedManifest, actual.manifest))
    return {reproduced: difference === null, artifact: artifactPath, source: packSource.root, signed: actual.signed, difference}
  })
}

/** Every planned file read once and hashed, in archive order. */
function hashPlanned(files: readonly PlannedFile[], signal: AbortSignal | undefined): Promise<HashedFile[]> {
  const toHash = files.map((file) => ({name: file.name, source: {kind: 'file' as const, path: file.absolutePath, size: file.size, exactPath: true}}))
  return hashSourceFiles(toHash, signal === undefined ? {} : {signal})
}

/** The entries pack would write, by name: manifest.json (deflated, 0644) and every payload file. */
function rebuiltEntries(files: readonly PlannedFile[], hashed: readonly HashedFile[]): Map<string, ComparedEntry> {
  const entries = new Map<string, ComparedEntry>([[manifestEntryName, {mode: 0o100644, method: 8, digest: null}]])
  files.forEach((file, index) => {
    const {size, sha256} = hashed[index]!
    entries.set(file.name, {mode: 0o100000 | file.mode, method: size === 0 ? 0 : 8, digest: {size, sha256}})
  })
  return entries
}

/** What the artifact holds: its entries (the signing files set aside when it is signed) and its unsigned manifest. */
interface ArtifactSide {
  entries: Map<string, ComparedEntry>
  signed: boolean
  /** U without `containerDigest`; null when the artifact has no manifest. */
  manifest: Uint8Array | null
}

/** Reads the artifact's entries once (inflated and hashed by `contents()`) and its manifest as signed. */
async function readArtifact(opened: OpenedArtifact): Promise<ArtifactSide> {
  const contents = await opened.contents()
  const manifest = opened.manifest
  const split = manifest === null ? null : splitSignedManifest(manifest.bytes, manifest.document)
  const signed = split !== null && !('code' in split)
  const entries = new Map<string, ComparedEntry>()
  for (const entry of opened.entries) {
    if (signed && signingEntryNames.includes(entry.name)) continue
    // The signer stores the manifest it rewrites: its method is the signer's, not pack's.
    const method = signed && entry.name === manifestEntryName ? null : entry.method
    entries.set(entry.name, {mode: entry.mode, method, digest: contents.files.get(entry.name) ?? null})
  }
  if (split === null) return {entries, signed, manifest: null}
  return {entries, signed, manifest: signed ? withoutContainerClaim(split.unsigned) : unsignedOf(manifest!.bytes)}
}

/** An unsigned manifest's U (its bytes without trailing whitespace), or the bytes as they are when it is no JSON object. */
function unsignedOf(bytes: Uint8Array): Uint8Array {
  try {
    return unsignedManifestOf(bytes)
  } catch {
    return bytes
  }
}

/**
 * The first entry that differs, in archive order (manifest.json first, then UTF-8 name order): missing
 * or extra, then its content, its mode, its method. Pack stores an empty entry and deflates every other one
 * unless deflate does not make it smaller, which depends on the deflate: so only a deflated entry where pack
 * stores is a method difference.
 */
function firstEntryDifference(expected: ReadonlyMap<string, ComparedEntry>, actual: ReadonlyMap<string, ComparedEntry>, signed: boolean): ReproduceDifference | null {
  const names = [...new Set([...expected.keys(), ...actual.keys()])].sort((a, b) => (a === manifestEntryName ? -1 : b === manifestEntryName ? 1 : compareEntryNames(a, b)))
  for (const entry of names) {
    const rebuilt = expected.get(entry)
    const found = actual.get(entry)
    if (found === undefined) return {kind: 'missing-entry', entry}
    if (rebuilt === undefined) return {kind: 'extra-entry', entry}
    if (rebuilt.digest !== null && found.digest?.sha256 !== rebuilt.digest.sha256) {
      return {kind: 'content', entry, expected: rebuilt.digest.sha256, actual: found.digest?.sha256 ?? null}
    }
    if (found.mode !== rebuilt.mode) return {kind: 'mode', entry, expected: octal(rebuilt.mode), actual: octal(found.mode)}
    if (found.method === 8 && rebuilt.method === 0 && !(signed && entry === manifestEntryName)) {
      return {kind: 'method', entry, expected: 'stored', actual: 'deflated'}
    }
  }
  return null
}

function octal(mode: number): string {
  return mode.toString(8)
}

/**
 * The first member of the unsigned manifest that differs, by JSON pointer in the rebuild's member order
 * (then the artifact's members the rebuild lacks): the deepest value that differs. The same value written
 * otherwise (member order, spacing) is a difference at the root, `""`, without values.
 */
function firstManifestDifference(expected: Uint8Array, actual: Uint8Array): ReproduceDifference | null {
  if (Buffer.compare(expected, actual) === 0) return null
  const read = readJsonDocument(actual, {maxBytes: Number.POSITIVE_INFINITY})
  if (!read.ok) return {kind: 'manifest', pointer: ''}
  const rebuilt = JSON.parse(Buffer.from(expected).toString('utf8')) as unknown
  return firstValueDifference(rebuilt, read.value, '') ?? {kind: 'manifest', pointer: ''}
}

function firstValueDifference(expected: unknown, actual: unknown, pointer: string): ReproduceDifference | null {
  const differs = (): ReproduceDifference => ({kind: 'manifest', pointer, ...(expected === undefined ? {} : {expected}), ...(actual === undefined ? {} : {actual})})
  if (expected === undefined || actual === undefined) return differs()
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let index = 0; index < Math.max(expected.length, actual.length); index++) {
      const found = firstValueDifference(expected[index], actual[index], childPointer(pointer, index))
      if (found !== null) return found
    }
    return null
  }
  if (isObject(expected) && isObject(actual)) {
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      const found = firstValueDifference(expected[key], actual[key], childPointer(pointer, key))
      if (found !== null) return found
    }
    return null
  }
  return Object.is(expected, actual) ? null : differs()
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
