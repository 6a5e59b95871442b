/**
 * The shape of a manifest.json after it parsed and passed development-level validation
 * (the manifest format). Unknown properties are kept, never rejected.
 */
export interface Manifest {
  manifestVersion: 1
  id: string
  name: string
  version: string
  entrypoints: Record<string, Entrypoint>
  description?: string
  icon?: string
  publisher?: Publisher
  license?: string
  repository?: string
  compatibility?: Compatibility
  homepage?: string
  shutdown?: {gracefulTimeoutSeconds?: number; [key: string]: unknown}
  health?: {path?: string; intervalSeconds?: number; timeoutSeconds?: number; unhealthyThreshold?: number; [key: string]: unknown}
  permissions?: string[]
  languages?: string[]
  dependencies?: PluginReference[]
  conflicts?: PluginReference[]
  iconPacks?: PluginReference[]
  files?: FileDigest[]
  signature?: SignatureBlock
  [key: string]: unknown
}

/** One runtime identifier's way to start the plugin. */
export interface Entrypoint {
  executable: string
  arguments?: string[]
  runtime?: {kind?: string; dotnetVersion?: string; [key: string]: unknown}
  [key: string]: unknown
}

/** The `publisher` block (who publishes the plugin; informational, checked by the store against the uploading account). */
export interface Publisher {
  name: string
  id?: string
  email?: string
  url?: string
  [key: string]: unknown
}

/** The `compatibility` block: every member optional, an absent member declares nothing. */
export interface Compatibility {
  sdk?: string
  protocol?: {minimum: number; maximum: number}
  svc?: string
  [key: string]: unknown
}

/** An entry of `dependencies`, `conflicts` or `iconPacks`. */
export interface PluginReference {
  id: string
  versionRange?: string
  optional?: boolean
  [key: string]: unknown
}

/** An entry of the generated `files[]` list. */
export interface FileDigest {
  path: string
  /** `sha256:` followed by 64 lowercase hex digits. */
  sha256: string
  size: number
}

/** The generated `signature` block. */
export interface SignatureBlock {
  algorithm: string
  keyId: string
  value: string
  signedAt: string
  [key: string]: unknown
}
