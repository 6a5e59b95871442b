/**
 * The one comparison of what two versions of a plugin ask of the host: the permissions they declare, the
 * plugins they depend on and the runtime identifiers they bring an entrypoint for. An install of an update
 * asks for consent to what it adds (docs/consent.md), and `inspect --compare` shows the same difference.
 * It reads manifests as documents (a member of the wrong shape declares nothing), so it serves a manifest
 * that passed validation and one `inspect` merely describes alike.
 */

/** What one kind of request gained and lost from one version to the next, each list sorted, without repeats. */
export interface RequestChange {
  added: string[]
  removed: string[]
}

/** What a newer manifest asks for that an older one did not, and what it no longer asks for. */
export interface ManifestChanges {
  /** Permission names (`permissions`). */
  permissions: RequestChange
  /** The ids of the plugins depended on (`dependencies`; an optional one counts as well). */
  dependencies: RequestChange
  /** The runtime identifiers with an entrypoint (the keys of `entrypoints`). */
  runtimes: RequestChange
}

// The kinds of request, in the order they are listed, and how one request of each is named in a sentence.
const requestKinds = ['permissions', 'dependencies', 'runtimes'] as const
const requestNouns: Readonly<Record<(typeof requestKinds)[number], string>> = {permissions: 'permission', dependencies: 'dependency', runtimes: 'runtime identifier'}

/** A manifest as a document: a validated `Manifest` or any parsed JSON object. */
export type ManifestDocument = Readonly<Record<string, unknown>>

/** Compares what `newer` asks for with what `older` asked for (see {@link ManifestChanges}). */
export function compareManifests(older: ManifestDocument, newer: ManifestDocument): ManifestChanges {
  const change = (read: (manifest: ManifestDocument) => Set<string>): RequestChange => {
    const before = read(older)
    const after = read(newer)
    return {added: [...after].filter((name) => !before.has(name)).sort(), removed: [...before].filter((name) => !after.has(name)).sort()}
  }
  return {permissions: change(permissionsOf), dependencies: change(dependencyIdsOf), runtimes: change(runtimesOf)}
}

/** True when the newer manifest asks for anything the older one did not. */
export function asksForMore(changes: ManifestChanges): boolean {
  return requestKinds.some((kind) => changes[kind].added.length > 0)
}

/**
 * Every addition (or every removal) as a phrase, permissions first, then dependencies, then runtime
 * identifiers: `permission net:outbound`, `dependency com.example.a`, `runtime identifier linux-arm64`.
 */
export function describeChanges(changes: ManifestChanges, which: keyof RequestChange): string[] {
  return requestKinds.flatMap((kind) => changes[kind][which].map((name) => `${requestNouns[kind]} ${name}`))
}

function permissionsOf(manifest: ManifestDocument): Set<string> {
  return new Set(arrayOf(manifest.permissions).filter((item): item is string => typeof item === 'string'))
}

function dependencyIdsOf(manifest: ManifestDocument): Set<string> {
  const ids = arrayOf(manifest.dependencies).map((item) => (item !== null && typeof item === 'object' ? (item as {id?: unknown}).id : undefined))
  return new Set(ids.filter((id): id is string => typeof id === 'string'))
}

function runtimesOf(manifest: ManifestDocument): Set<string> {
  const entrypoints = manifest.entrypoints
  return new Set(entrypoints !== null && typeof entrypoints === 'object' && !Array.isArray(entrypoints) ? Object.keys(entrypoints) : [])
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : []
}
