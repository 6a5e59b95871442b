import type {HostCompatibility} from '../model/compatibility.js'

/** The host a manifest is judged for: what an install on that host would say, previewed by the validator. */
export interface HostContext {
  /** The host's runtime identifier: its entrypoint (or the fallback) must be on disk. */
  rid: string
  /** When given, the plugin's `compatibility` is judged against this host (`incompatible`). */
  compatibility?: HostCompatibility
  /**
   * The declared executables that exist beside the manifest (package paths), for a manifest file or a
   * folder; without it the host's entrypoint is not looked for.
   */
  existingExecutables?: ReadonlySet<string>
}
