import type {DiagnosticCode, diagnosticCodes} from '../manifest/diagnostic.js'

/**
 * One short sentence per diagnostic code, used as the SARIF rule description. Typed over the
 * code list so that a new code does not compile without its description.
 */
const descriptions: Record<(typeof diagnosticCodes)[number], string> = {
  'unsupported-manifest-version': 'manifestVersion is not 1.',
  'invalid-plugin-id': 'The plugin id is not a reverse-domain id of at most 128 characters.',
  'invalid-version': 'The version is not a SemVer 2.0 version.',
  'no-entrypoints': 'entrypoints declares no runtime identifier.',
  'entrypoint-outside-version-directory': 'An entrypoint executable escapes the version directory.',
  'invalid-entrypoint-runtime': 'An entrypoint executable is a script or breaks the .dll rule of its runtime kind.',
  'invalid-icon': 'The icon path is not a safe relative forward-slash path.',
  'icon-declared-not-present': 'The declared icon file is not in the package.',
  'invalid-permission': 'A permission is declared more than once.',
  'unknown-permission': 'A permission is not in the known vocabulary.',
  'invalid-language': 'A language tag is blank, badly shaped or duplicated.',
  'invalid-compatibility': 'A compatibility range or protocol range is invalid.',
  'invalid-dependency': 'A dependency, conflict or icon pack reference is invalid or contradictory.',
  'publication-metadata-missing': 'A field the store requires for publication is missing.',
  'generated-field-authored': 'A generated field (files, signature) is written by hand in a source tree.',
  'entrypoint-layout-invalid': 'Entrypoint executables do not each live in their own directory.',
  malformed: 'manifest.json is not strict UTF-8 JSON holding one object.',
  'invalid-name': 'The name is blank, longer than 128 characters or holds control characters.',
  'invalid-publisher': 'The publisher block is invalid.',
  'invalid-file-digest': 'A files[] entry is invalid or duplicated.',
  'invalid-signature': 'The signature block is badly shaped.',
  'file-missing': 'A file listed in files[] is not there.',
  'file-size-mismatch': 'A file listed in files[] has another size.',
  'file-digest-mismatch': 'A file listed in files[] has another SHA-256 digest.',
  'undeclared-file': 'An artifact entry is not listed in files[].',
  'no-file-digests': 'A packed artifact has no files[], so nothing tells a changed file from the packed one.',
  'entrypoint-not-packed': 'A declared entrypoint executable is not in the package.',
  'languages-recomputed': 'The declared languages differ from those derived from the localization files.',
  'id-mismatch': 'The manifest id disagrees with its installed directory.',
  'version-mismatch': 'The manifest version disagrees with its installed directory.',
  'entrypoint-missing': "The executable of the host's own runtime identifier is not on disk.",
  incompatible: 'The plugin cannot run on the named host (protocol or host version).',
  'unsafe-entry': 'An archive entry has an unsafe name or type.',
  'limit-exceeded': 'The archive breaks a size or count limit.',
  'archive-malformed': 'The archive is not a well-formed ZIP file.',
  'archive-unsupported': 'The archive uses a ZIP feature that is not supported.',
  'manifest-missing': 'The archive holds no manifest.json.',
  'secret-detected': 'The package holds a private key, a .env file or a credential of a well-known shape.',
  'source-looks-like-debug-build': 'The packed tree looks like a debug build (bin/Debug/).',
  'large-file': 'One packed file is larger than a plugin usually needs.',
  'package-near-limit': 'The package is close to an artifact limit (size or number of files).',
}

/** A one-sentence description of what a diagnostic code means. */
export function describeCode(code: DiagnosticCode): string {
  if (code.startsWith('schema:')) return `The manifest breaks the schema keyword "${code.slice('schema:'.length)}".`
  return descriptions[code as keyof typeof descriptions] ?? code
}
