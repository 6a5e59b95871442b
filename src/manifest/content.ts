/** Where a package's content comes from: a source folder, an artifact, or an installed version directory. */
export type PackageContentKind = 'directory' | 'artifact' | 'installed'

/** Size and, when it was computed, digest of one file of a package. */
export interface ContentFile {
  size: number
  /** `sha256:` + 64 lowercase hex digits; absent when digests were not computed. */
  sha256?: string
}

/**
 * A snapshot of what a package holds, for the package-level checks: every file by its path relative to
 * the package root, `/`-separated, `manifest.json` itself excluded. The validator judges snapshots; it
 * never opens a folder or an archive itself.
 */
export interface PackageContent {
  kind: PackageContentKind
  files: ReadonlyMap<string, ContentFile>
  /** Secrets found in the files, when whoever read them looked (a package must not ship any). */
  secrets?: readonly SecretFinding[]
  /** For a source folder: every reason `pack` would refuse it (its entries, its limits). */
  refusals?: readonly SourceRefusal[]
}

/** Why a source folder cannot be packed as it is: what `pack` refuses it with, and `validate` reports. */
export interface SourceRefusal {
  code: 'source-entry-rejected' | 'limit-exceeded'
  /** A plain sentence naming the entry or the limit, and what to do. */
  message: string
  /** The package path of the entry the refusal is about, or null for the folder as a whole. */
  path: string | null
  /** What pack's error carries: `reason` for an entry, `limit` and `value` for a limit, `path`. */
  details: Record<string, unknown>
}

/** What kind of secret a file holds. */
export type SecretKind = 'private-key' | 'environment-file' | 'credential'

/** A secret found in one file of a package. */
export interface SecretFinding {
  /** The file, as a package path. */
  path: string
  kind: SecretKind
  /** What was found, in words: `a private key`, `a credential (aws: AWS secret access key)`. */
  what: string
  /** 1-based line of the finding in the file, when it has one. */
  line: number | null
  /** 1-based column (UTF-16 code units) of the finding on its line, when it has a line. */
  column?: number | null
}
