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
  /** 1-based column (UTF-16 code units) of the finding on its line, when the scan knows it. */
  column?: number | null
}
