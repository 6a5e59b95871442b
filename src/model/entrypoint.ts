import {ModelError} from './errors.js'
import type {Entrypoint, Manifest} from './manifest.js'
import {entryNameOf} from './entry-name.js'
import {entrypointCandidates} from './rid.js'

/** How an entrypoint runs: its own native executable, or a `.dll` started by an installed .NET runtime. */
export type RuntimeKind = 'SelfContained' | 'FrameworkDependent'

/** Shape of `runtime.dotnetVersion`: `major.minor`. */
export const dotnetVersionPattern: RegExp = /^\d+\.\d+$/

/** An entrypoint chosen for a host, with every default applied. */
export type ResolvedEntrypoint = {
  /** The entrypoint key that was used (the host RID or its fallback). */
  rid: string
  executable: string
  arguments: string[]
  /** `dotnetVersion` is carried only for `FrameworkDependent`, where it means something. */
  runtime: {kind: RuntimeKind; dotnetVersion?: string}
}

const runtimeKinds: readonly RuntimeKind[] = ['SelfContained', 'FrameworkDependent']

/** Lowercases A-Z only, so that no non-ASCII letter (such as the Kelvin sign) folds into a kind name. */
function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase())
}

/**
 * The runtime kind an entrypoint declares: `SelfContained` when `runtime` or `runtime.kind` is absent;
 * `runtime.kind` is read case-insensitively (ASCII letters only, no trimming); null for any other value,
 * including a `runtime` that is not an object or a `kind` that is not a string.
 */
export function runtimeKindOf(entry: Entrypoint): RuntimeKind | null {
  const runtime: unknown = entry.runtime
  if (runtime === undefined) return 'SelfContained'
  if (typeof runtime !== 'object' || runtime === null || Array.isArray(runtime)) return null
  const kind: unknown = (runtime as Record<string, unknown>)['kind']
  if (kind === undefined) return 'SelfContained'
  if (typeof kind !== 'string') return null
  const folded = asciiLowerCase(kind)
  return runtimeKinds.find((known) => known.toLowerCase() === folded) ?? null
}

/** Throws `invalid-entrypoint` for an entry that development-level validation would have rejected. */
function malformed(rid: string, why: string): never {
  throw new ModelError('invalid-entrypoint', `The entrypoint for ${rid} ${why}.`, {details: {rid}})
}

/**
 * The entrypoint a host with RID `hostRid` starts: the first of `entrypointCandidates(hostRid)` that the
 * manifest declares (own keys only), with `arguments` defaulting to `[]` and the runtime kind resolved; null
 * when none is declared. Throws `ModelError` `invalid-entrypoint` when the chosen entry is malformed (not an
 * object, no string executable, non-string arguments, unknown runtime kind), which a manifest that passed
 * development-level validation never is.
 */
export function resolveEntrypoint(manifest: Pick<Manifest, 'entrypoints'>, hostRid: string): ResolvedEntrypoint | null {
  const entrypoints: unknown = manifest.entrypoints
  if (typeof entrypoints !== 'object' || entrypoints === null) return null
  const rid = entrypointCandidates(hostRid).find((candidate) => Object.hasOwn(entrypoints, candidate))
  if (rid === undefined) return null
  const entry: unknown = (entrypoints as Record<string, unknown>)[rid]
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return malformed(rid, 'is not an object')
  const {executable, arguments: args, runtime} = entry as Entrypoint
  if (typeof executable !== 'string') return malformed(rid, 'has no executable')
  if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) {
    return malformed(rid, 'has arguments that are not a list of strings')
  }
  const kind = runtimeKindOf(entry as Entrypoint)
  if (kind === null) return malformed(rid, 'declares an unknown runtime kind')
  const dotnetVersion = runtime?.dotnetVersion
  return {
    rid,
    // Relative to the version directory with `/` separators, however the manifest wrote it.
    executable: entryNameOf(executable),
    arguments: args === undefined ? [] : [...args],
    runtime: kind === 'FrameworkDependent' && typeof dotnetVersion === 'string' ? {kind, dotnetVersion} : {kind},
  }
}
