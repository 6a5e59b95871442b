import type {ArchiveLimits} from '../archive/types.js'
import type {ResolvedEntrypoint} from '../model/entrypoint.js'
import type {EffectiveSettings} from '../model/settings.js'
import type {RevocationList} from '../revocation/list.js'
import type {TrustStore} from '../pki/trust.js'
import type {ProtocolRange} from './compatibility.js'
import type {LockOptions} from './locked.js'
import type {CommitStep} from './transaction.js'
import type {AdmittedVerdict} from './trust-record.js'
import type {InstallWarning} from './warnings.js'

/** Options of `install`. Only `dataRoot` is required. */
export interface InstallOptions extends LockOptions {
  /** The host's data directory: plugins live under `<dataRoot>/plugins/`. */
  dataRoot: string
  /** The host's runtime identifier, for entrypoint resolution; default `hostRid()`. */
  hostRid?: string
  /**
   * The host's SemVer version, checked against the plugin's `compatibility.svc` range. A host passes its
   * own version. Default `0.0.0-dev`, a development build, which skips that check (and says so with the
   * warning `svc-compatibility-unchecked`).
   */
  hostVersion?: string
  /** The protocol majors the host serves; default 1–3. */
  protocol?: ProtocolRange
  /** The roots a signature must chain to; default none (then no signed artifact is Trusted). */
  trust?: TrustStore
  /** Install an unsigned artifact (never one with a broken signature); warning `artifact-unsigned`. */
  allowUnsigned?: boolean
  /**
   * A root-signed revocation list, verified against `trust` (`revocation-list-invalid`) and recorded in the
   * data root's revocation state before anything else is judged, unless older than the newest this data root
   * has seen (`revocation-list-rollback`); then refused when past its nextUpdate (`revocation-list-stale`).
   * It applies to the signature with every list the data root has recorded (verdict Revoked: `signature-revoked`).
   */
  revocations?: RevocationList
  /** Apply a revocation list past its `nextUpdate` instead of refusing the install with `revocation-list-stale`. */
  allowStaleRevocations?: boolean
  /**
   * Refuse a signed artifact whose signature does not cover its container (signed without `containerDigest`:
   * `signature-invalid` with reason `container-unsigned`) instead of installing it with the warning
   * `container-unsigned`.
   */
  requireContainerSignature?: boolean
  /** Refuse (`id-mismatch`) unless the manifest's id is this one. */
  expectId?: string
  /** Refuse (`version-mismatch`) unless the manifest's version is this one. */
  expectVersion?: string
  /**
   * Refuse (`artifact-digest-mismatch`) unless the artifact file's SHA-256 is this one (64 hex digits, with or
   * without `sha256:`), as the store published it. The file is hashed through the descriptor it is read from.
   */
  expectSha256?: string
  /** Replace a version that is already installed. */
  force?: boolean
  /** Make the new version the active one (default true). */
  activate?: boolean
  /** Inactive versions kept beyond the active and the previous one (default 1). */
  retain?: number
  /** Archive limits; each unset field keeps its default. */
  limits?: Partial<ArchiveLimits>
  /** The verifier's clock for the signature checks; default the current time. */
  now?: Date
  /** Awaited at each step: a host draws progress with it. */
  onProgress?: (progress: InstallProgress) => Promise<void> | void
  /**
   * Cancels the install up to its commit point (the journal): it rejects with an error named `AbortError`
   * (code `cancelled`, the signal's reason as its `cause`) once it has removed its staging directory and given
   * up the plugin's lock, leaving the data root as it was (a revocation list given is remembered as seen all
   * the same). An abort after the commit point finds the install complete.
   */
  signal?: AbortSignal
}

/** The steps of an install as reported to `onProgress`, in order (`extracting` repeats: after each entry, and every MiB inside a large one). */
export type InstallStep = 'judged' | 'locked' | 'extracting' | 'extracted' | 'verified' | 'committed' | CommitStep

/** One progress report. */
export interface InstallProgress {
  step: InstallStep
  /** Bytes extracted so far and in all (both 0 before extraction). */
  bytesDone: number
  bytesTotal: number
  /** The entry being written, during `extracting`. */
  entry?: string
}

/** What `install` did. */
export interface InstallResult {
  id: string
  version: string
  /** True when this version is now the active one. */
  activated: boolean
  /** The version that was active before, null when none was. */
  previousVersion: string | null
  /** How the artifact was admitted. */
  verdict: AdmittedVerdict
  /** The signing certificate's id, null when unsigned. */
  certificateId: string | null
  /** The entrypoint for the host's RID (or its fallback), null when the plugin has none for it; `executable` uses `/`. */
  entrypoint: ResolvedEntrypoint | null
  /** The effective shutdown and health settings, every default and clamp applied. */
  settings: EffectiveSettings
  /** True when nothing blocks starting the plugin on its own. */
  autoStart: boolean
  /**
   * The installed version's directory (the archive's root): executables are relative to it.
   * `versions/<version>` (docs/data-root.md).
   */
  directory: string
  /** The plugin's own state directory, kept across updates. */
  dataDirectory: string
  warnings: InstallWarning[]
}

/** What `uninstall` did. */
export interface UninstallResult {
  id: string
  /** The versions removed, newest first. */
  removedVersions: string[]
  /** The version that was active, null when none was. */
  previousVersion: string | null
  /** True when the data directory and the trust record were removed as well. */
  purged: boolean
  /** Plugins that depend on this one and were left without it (only with `force`). */
  dependents: string[]
}

/** What `activate` did. */
export interface ActivateResult {
  id: string
  version: string
  /** The directory of the version now active, `versions/<version>`. */
  directory: string
  /** The version that was active before, null when none was. */
  previousVersion: string | null
  /** The entrypoint for the host's RID, null when the version has none for it. */
  entrypoint: ResolvedEntrypoint | null
}
