import type {DiagnosticCode, diagnosticCodes} from '../manifest/diagnostic.js'

/** What a code means, an example of it, and how to fix it: the text of its page in `docs/codes/`. */
export interface CodeDocumentation {
  /** One sentence: what the code means. */
  summary: string
  /** A situation that gives the code (Markdown). */
  example: string
  /** What to do about it. */
  fix: string
  /** For a diagnostic code that is also an error code with another sense: what the error means. */
  asError?: string
}

type Entry = readonly [summary: string, example: string, fix: string, asError?: string]

/**
 * The one table of diagnostic codes. Typed over the code list so that a new code does not compile
 * without its entry.
 */
const diagnostics: Record<(typeof diagnosticCodes)[number], Entry> = {
  'unsupported-manifest-version': ['manifestVersion is not 1.', '`"manifestVersion": 2`', 'Set `"manifestVersion": 1`, the only manifest format there is.'],
  'invalid-plugin-id': ['The plugin id is not a reverse-domain id of at most 128 characters.', '`"id": "Weather_Station"`', 'Use lowercase dot-separated segments that start with a letter, e.g. `com.example.weather-station`.'],
  'invalid-version': [
    'The version is not a SemVer 2.0 version of at most 128 characters.',
    '`"version": "1.4"`, `"version": "v1.4.0"`, or a pre-release part that makes it longer than 128 characters',
    'Write MAJOR.MINOR.PATCH, e.g. `1.4.0`, with no leading `v`, in at most 128 characters.',
    'A version given on the command line (e.g. `--host-version 2.x`) is not a SemVer 2.0 version.',
  ],
  'no-entrypoints': ['entrypoints declares no runtime identifier.', '`"entrypoints": {}`', 'Add one member per runtime identifier, e.g. `"linux-x64": {"executable": "runtimes/linux-x64/plugin"}`.'],
  'entrypoint-outside-version-directory': ['An entrypoint executable escapes the version directory.', '`"executable": "../tools/run"` or an absolute path', 'Give a relative path inside the plugin folder, with forward slashes and no `..`.'],
  'invalid-entrypoint-runtime': [
    'An entrypoint executable is a script or breaks the .dll rule of its runtime kind.',
    '`"executable": "start.bat"`, or a `.dll` without `"runtime": {"kind": "FrameworkDependent"}`',
    'Point at the compiled executable; use a `.dll` exactly when the runtime kind is FrameworkDependent (with its dotnetVersion).',
  ],
  'invalid-icon': ['The icon path is not a safe relative forward-slash path.', '`"icon": "C:\\\\icons\\\\icon.png"`', 'Give a relative path inside the package with forward slashes, e.g. `assets/icon.png`.'],
  'icon-declared-not-present': ['The declared icon file is not in the package.', '`"icon": "assets/icon.png"` with no such file', 'Add the file to the plugin folder or correct the path.'],
  'invalid-permission': ['A permission is declared more than once.', '`"permissions": ["net:outbound", "net:outbound"]`', 'List each permission once.'],
  'unknown-permission': ['A permission is not in the known vocabulary.', '`"permissions": ["host:coffee-machine"]`', 'Check the spelling against the known permissions (e.g. `host:variables`, `net:outbound`); an unknown one is only a warning.'],
  'invalid-language': ['A language tag is blank, badly shaped or duplicated.', '`"languages": ["en", "EN"]`', 'List each language once, shaped like `en`, `de-CH` or `zh-Hant-TW`.'],
  'invalid-compatibility': ['A compatibility range or protocol range is invalid.', '`"protocol": {"minimum": 3, "maximum": 1}` or `"svc": "^2.0"`', 'Use comparators such as `>=1.0.0, <2.0.0` and a protocol minimum no greater than its maximum.'],
  'invalid-dependency': ['A dependency, conflict or icon pack reference is invalid or contradictory.', 'The same id under `dependencies` and `conflicts`', 'Name each plugin once by a valid id, with a valid version range, and never depend on a plugin you conflict with.'],
  'publication-metadata-missing': ['A field the store requires for publication is missing.', 'No `license` when validating at `--level publication`', 'Add the field named in the message (description, icon, publisher, license, repository, compatibility).'],
  'generated-field-authored': ['A generated field (files, signature, containerDigest) is written by hand in a source tree.', 'A source manifest.json with a `files` array', 'Remove the field: `svc-plugin pack` writes files and `svc-plugin sign` writes signature and containerDigest.'],
  'entrypoint-layout-invalid': ['Entrypoint executables do not each live in their own directory.', '`linux-x64` and `osx-arm64` both pointing at `runtimes/linux-x64/plugin`', 'Give each runtime identifier its own folder, e.g. `runtimes/<rid>/`.'],
  malformed: ['manifest.json is not strict UTF-8 JSON holding one object.', 'A trailing comma, a comment, a byte order mark or a duplicate key', 'Fix the JSON at the position shown: no comments, no trailing commas, each key once, UTF-8 without BOM.'],
  'invalid-name': ['The name is blank, longer than 128 characters or holds control characters.', '`"name": "  "`', 'Give a display name of 1 to 128 printable characters.'],
  'invalid-publisher': ['The publisher block is invalid.', '`"publisher": {"id": "Example Labs"}`', 'Give publisher a name, and an id that is a reverse-domain id, if any.'],
  'invalid-file-digest': ['A files[] entry is invalid or duplicated.', 'Two entries for `bin/plugin.dll`, or a digest that is not `sha256:` and 64 hex digits', 'Let `svc-plugin pack` write files; do not edit it by hand.'],
  'invalid-signature': ['The signature block is badly shaped.', 'A signature without `signedAt`', 'Sign the artifact again with `svc-plugin sign`; never edit the signature.'],
  'file-missing': ['A file listed in files[] is not there.', 'An artifact whose files[] names `lib/a.dll` that is not in the archive', 'Pack the plugin again so that files[] matches the content.'],
  'file-size-mismatch': ['A file listed in files[] has another size.', 'A file changed after packing', 'Pack the plugin again; never change a packed file.'],
  'file-digest-mismatch': ['A file listed in files[] has another SHA-256 digest.', 'A file changed after packing', 'Pack the plugin again; never change a packed file.'],
  'undeclared-file': ['An artifact entry is not listed in files[].', 'A file added to an artifact after packing', 'Pack the plugin again from its folder.'],
  'no-file-digests': [
    'A packed artifact has no files[], so nothing tells a changed file from the packed one.',
    'An artifact zipped by hand from a plugin folder whose manifest.json has no `files` array',
    'Pack the plugin with `svc-plugin pack`, which writes files[] with every file\'s size and SHA-256 digest.',
  ],
  'entrypoint-not-packed': ['A declared entrypoint executable is not in the package.', '`"executable": "runtimes/win-x64/plugin.exe"` with no such file at package level', 'Build the executable into the folder named, or correct the path.'],
  'languages-recomputed': ['The declared languages differ from those derived from the localization files.', '`"languages": ["en"]` beside `Localization/Strings.de.resx`', 'Let `svc-plugin pack` derive languages, or list exactly the languages of the resource files.'],
  'id-mismatch': [
    'The manifest id disagrees with its installed directory.',
    'An install directory `com.example.a` holding a manifest of `com.example.b`',
    'Reinstall the plugin; never move installed folders by hand.',
    'The artifact is of another plugin than the id the command was told to expect.',
  ],
  'version-mismatch': [
    'The manifest version disagrees with its installed directory.',
    'A version directory `1.0.0` holding a manifest of 1.0.1',
    'Reinstall the plugin; never move installed folders by hand.',
    'The artifact is of another version than the one the command was told to expect.',
  ],
  'entrypoint-missing': ["The executable of the host's own runtime identifier is not on disk.", 'Validating on linux-x64 a folder with no `runtimes/linux-x64/plugin` built yet', 'Build for this runtime identifier, or name another host with `--rid`.'],
  incompatible: ['The plugin cannot run on the named host (protocol or host version).', '`"svc": ">=3.0.0"` checked with `--host-version 2.5.0`', 'Widen the compatibility ranges if the plugin truly works there, or use a matching host.'],
  'unsafe-entry': ['An archive entry has an unsafe name or type.', 'An entry named `../../etc/passwd`, an absolute path or a symbolic link', 'Pack the plugin with `svc-plugin pack`, which only writes safe entries.'],
  'limit-exceeded': ['The archive, or the artifact a plugin folder would pack into, breaks a size or count limit.', 'More entries, or more bytes once inflated, than an artifact may hold', 'Ship less: leave build leftovers out with `.svcpluginignore`.'],
  'archive-malformed': ['The archive is not a well-formed ZIP file.', 'A truncated download, or bytes appended after the end record', 'Download or pack the artifact again.'],
  'archive-unsupported': ['The archive uses a ZIP feature that is not supported.', 'Encrypted entries, ZIP64 or a compression method other than deflate', 'Pack the plugin with `svc-plugin pack`.'],
  'manifest-missing': ['The archive holds no manifest.json.', 'A ZIP of the folder above the plugin, with `plugin/manifest.json` inside', 'Pack the plugin folder itself with `svc-plugin pack`, so that manifest.json is at the root.'],
  'secret-detected': ['The package holds a private key, a .env file or a credential of a well-known shape.', 'A `signing.key` or `.env` file inside the plugin folder', 'Remove the secret (and rotate it if it was ever shared), or list the file in `.svcpluginignore`.'],
  'source-entry-rejected': [
    'A file of the plugin folder cannot be packed: a symbolic link, a FIFO, socket or device, a setuid, setgid or sticky bit, a name the signer writes, a name the entry-path policy refuses, or two names that collide.',
    'A symbolic link in the plugin folder, or `README\u034f.md` (an invisible character) beside `README.md`',
    'Replace it with a regular file, rename it, or leave it out with `.svcpluginignore`.',
  ],
  'source-looks-like-debug-build': ['The packed tree looks like a debug build (bin/Debug/).', 'Packing a folder that holds `bin/Debug/net8.0/`', 'Publish a release build and pack its output.'],
  'large-file': ['One packed file is larger than a plugin usually needs.', 'A 300 MB data file in the plugin folder', 'Check that the file belongs in the plugin; leave it out with `.svcpluginignore` if not.'],
  'package-near-limit': ['The package is close to an artifact limit (size or number of files).', 'A package at 95% of the largest size an artifact may have', 'Ship less before the limit is reached.'],
}

/** The schema keywords whose failures are reported as `schema:<keyword>` (those the manifest schema uses). */
const schemaKeywords: Record<string, Entry> = {
  required: ['A required member is missing.', 'A manifest without `name`', 'Add the member named in the message.'],
  type: ['A value has the wrong JSON type.', '`"manifestVersion": "1"` (a string, not a number)', 'Write the value with the type the message names.'],
  const: ['A value is not the one value allowed.', '`"manifestVersion": 2`', 'Write the value the message names.'],
  enum: ['A value is not one of the values allowed.', 'A word that is not in the listed choices', 'Pick one of the values the message lists.'],
  pattern: ['A text value does not have the required shape.', '`"homepage": "ftp://example.com"`', 'Write the value in the shape the message describes.'],
  format: ['A text value is not in the required format.', '`"signedAt": "yesterday"`', 'Write the value in the format named (e.g. an RFC 3339 date-time).'],
  minLength: ['A text value is empty or too short.', '`"executable": ""`', 'Give the value.'],
  maxLength: ['A text value is too long.', 'An id longer than 128 characters', 'Shorten the value to the length the message names.'],
  minimum: ['A number is below its lowest allowed value.', '`"protocol": {"minimum": 0, ...}`', 'Raise the number to at least the limit the message names.'],
  maximum: ['A number is above its highest allowed value.', 'A number over the limit named', 'Lower the number to at most the limit the message names.'],
  minProperties: ['An object has fewer members than it needs.', '`"entrypoints": {}`', 'Add the members the object needs.'],
  uniqueItems: ['A list holds the same value twice.', '`"languages": ["en", "en"]`', 'List each value once.'],
}

/** Codes of the toolchain's typed errors that are not also diagnostic codes: why a command stopped. */
const errors: Record<string, Entry> = {
  usage: ['The command line is wrong: a missing argument or flag, a bad flag value, an argument too many.', '`svc-plugin validate --level strict`', 'Run the command with `--help` and correct the arguments.'],
  'unknown-command': ['There is no such command.', '`svc-plugin valdate`', 'Run `svc-plugin --help` for the list of commands.'],
  'unknown-flag': ['The command has no such flag.', '`svc-plugin validate --levle package`', 'Use the flag the message suggests, or run the command with `--help` for its flags.'],
  internal: [
    'A bug in svc-plugin: something failed that the tool did not expect.',
    'Any command ending with exit status 70',
    'Run the command again with `SVC_PLUGIN_DEBUG=1` to see the stack trace, and report it with the command line that caused it.',
  ],
  cancelled: [
    'The operation was cancelled: its AbortSignal was aborted (at the command line, by Ctrl-C or SIGTERM). It undid what it had begun: no output is left, a data root is as it was. The error is named AbortError.',
    'Pressing Ctrl-C during `svc-plugin pack`; `AbortSignal.timeout(60_000)` passing during `verifyUpload`',
    'Run the operation again, with a longer deadline if one cut it short.',
  ],
  'file-not-found': ['An input file or folder does not exist (or a pattern matched nothing).', '`svc-plugin validate plugins/missing`', 'Check the path, relative to the current folder.'],
  'not-a-regular-file': ['An input is a folder, a device or a pipe where a regular file belongs.', '`svc-plugin verify ./plugin` (a folder)', 'Pass the file itself.'],
  unreadable: ['An input exists but cannot be read (permissions, a folder where a file belongs, an I/O error).', '`svc-plugin validate --manifest ./plugin` (a folder)', 'Check the permissions and the kind of path; pass the manifest file or the folder with the right flag.'],
  'not-an-artifact': [
    'An input that should be a .svcPlugin artifact is not a ZIP file; the message says what it is (a folder, a manifest) and which command takes that.',
    '`svc-plugin verify manifest.json`, or `svc-plugin validate --artifact plugin` (a folder)',
    'Pass the artifact written by `svc-plugin pack`; check a manifest or a folder with `svc-plugin validate`, which tells them apart by their content.',
  ],
  'not-a-manifest': [
    'A path given as a manifest is a folder or a .svcPlugin artifact; the message says which flag takes it.',
    '`svc-plugin validate --manifest weather.svcPlugin`',
    'Pass an artifact with `--artifact` and a folder with `--directory`, or give the path as PATH: `svc-plugin validate <path>` tells the kinds apart by their content.',
  ],
  'not-a-folder': [
    'A path given as a plugin folder is a file: a manifest, a .svcPlugin artifact or another file; the message says which command or flag takes it.',
    '`svc-plugin pack plugin/manifest.json`, or `svc-plugin validate --directory weather.svcPlugin`',
    'Pass the folder that holds manifest.json (`svc-plugin pack plugin`); validate a manifest with `--manifest` and an artifact with `--artifact`.',
  ],
  'trust-store-unreadable': ['The trust store cannot be read.', '`--trust-store missing.json`', 'Check the path and permissions of the trust store file.'],
  'key-unreadable': ['A key file cannot be read.', '`--key missing.key`', 'Check the path and permissions of the key file.'],
  'certificate-unreadable': ['A certificate file cannot be read.', '`--certificate missing.json`', 'Check the path and permissions of the certificate files.'],
  'revocation-list-unreadable': ['A revocation list file cannot be read.', '`--revocation-list missing.json`', 'Check the path and permissions of the revocation list.'],
  'output-exists': ['The output already exists and would be overwritten.', 'Packing to `plugin.svcPlugin` a second time', 'Remove the old output, choose another path, or pass `--force`.'],
  'write-failed': ['An output cannot be written: a file stands where a folder is needed, the file system does not allow creating files there, no permission, or a full or read-only disk.', '`--output /proc/plugin.svcPlugin`', 'Choose an output in a folder you can write to, with room.'],
  'io-error': ['A read or write failed while the command ran.', 'A disk removed during an install', 'Check the disk and run the command again.'],
  'level-not-met': ['The package does not meet the requirement level asked for.', '`svc-plugin pack --level publication` without a license', 'Fix the problems listed, or ask for a lower level.'],
  'not-reproduced': [
    'Packing the source folder again does not give the artifact: an entry, its content, its mode or method, or a member of the manifest differs (the message names the first difference).',
    '`svc-plugin pack ./plugin --reproduce weather.svcPlugin` after a file of the plugin was edited',
    'Pack from the exact tree the artifact was built from (the same commit, the same build output, the same .svcpluginignore); if the difference is expected, the artifact was not built from this tree.',
  ],
  'data-root-not-found': [
    'The data root does not exist. Listing, activating, uninstalling and checking installed plugins never create one; only an install does.',
    '`svc-plugin list --data-root ~/.svc-typo`',
    'Check the path given with `--data-root` (or `SVC_PLUGIN_DATA_ROOT`); install a plugin there first if it is meant to be new.',
  ],
  'unsafe-data-root': ['The data root is not safe to work in (a symbolic link or not a real directory where one belongs).', 'A data root whose `plugins` folder is a symbolic link', 'Point the data root at a real directory that only the host writes.'],
  'too-many-selectors': ['More than one way to name the subject was given.', '`svc-plugin validate --manifest a.json --directory b`', 'Name the subject once: a PATH, or one of the flags.'],
  'data-root-inside-plugin': [
    'The data root the development loop installs into is inside the plugin folder it watches, and pack would pack it into every build.',
    '`svc-plugin dev . --data-root ./data`',
    'Put the data root outside the plugin folder, or list it in `.svcpluginignore` (a line `data/`).',
  ],
  'invalid-argument': ['An argument is not usable.', 'A negative number where a count belongs', 'Correct the argument the message names.'],
  'merge-needs-two': ['Merging needs at least two artifacts.', '`svc-plugin merge a.svcPlugin`', 'Pass every per-runtime artifact of the version to merge.'],
  'invalid-key-name': ['A key name is not usable as a file name.', '`svc-plugin keygen ../key`', 'Use letters, digits, dots, hyphens and underscores.'],
  'invalid-root-key-id': ['A root key id is not valid.', 'An empty root key id', 'Use the id printed when the root was created.'],
  'invalid-key-usage': ['A certificate key usage is not one of those known.', '`--usage everything`', 'Choose one of the usages `--help` lists.'],
  'invalid-validity': ['A certificate validity period is not valid.', '`--days 0`', 'Give a positive period that ends after it starts.'],
  'invalid-signer': ['The signer arguments do not fit together.', 'A key without its certificate', 'Pass the key and the certificate issued for it.'],
  'invalid-revocation': ['A revocation request is not valid.', 'Revoking a certificate id that is blank', 'Name the certificate or key to revoke as `--help` shows.'],
  'trust-store-invalid': ['The trust store is not a valid trust store.', 'A trust store with a root whose key is not Ed25519', 'Recreate the trust store with `svc-plugin cert` commands.'],
  'invalid-range': ['A version range argument is not valid.', '`--range ">>1.0"`', 'Use comparators such as `>=1.0.0, <2.0.0`.'],
  'invalid-entrypoint': ['An entrypoint argument is not valid.', 'An entrypoint path with `..`', 'Give a relative path inside the plugin.'],
  'source-changed': ['A source file changed while it was being packed.', 'A build writing into the folder during `svc-plugin pack`', 'Let the build finish, then pack again.'],
  'manifest-invalid': ['The manifest has errors, so the command refuses it.', 'Installing an artifact whose manifest has no entrypoints', 'Run `svc-plugin validate` on it and fix every error.'],
  'manifest-malformed': ['The manifest is not strict JSON holding one object.', 'A manifest with a trailing comma', 'Fix the JSON; `svc-plugin validate` shows where.'],
  'hash-mismatch': ['Content does not match the digest recorded for it.', 'An artifact changed after it was signed', 'Get the artifact again from its publisher.'],
  'identity-mismatch': ['Artifacts that should be of one plugin version have different ids or versions.', 'Merging 1.0.0 for linux-x64 with 1.0.1 for win-x64', 'Merge artifacts of the same id and version.'],
  'manifest-mismatch': ['Artifacts that should share one manifest disagree in it.', 'Merging two builds whose names differ', 'Pack every runtime from the same manifest.'],
  'duplicate-rid': ['Two artifacts being merged declare the same runtime identifier.', 'Merging two linux-x64 artifacts', 'Merge one artifact per runtime identifier.'],
  'file-conflict': ['Two artifacts being merged hold the same path with different content.', 'Both hold `assets/icon.png`, with different bytes', 'Make shared files identical, or keep runtime files under `runtimes/<rid>/`.'],
  'artifact-digest-mismatch': ['The artifact is not the one expected (its digest differs).', 'Installing with `--digest` of another build', 'Get the artifact the digest was published for.'],
  'already-installed': ['This version of the plugin is already installed.', 'Installing 1.0.0 twice', 'Pass `--force` to reinstall, or install another version.'],
  'consent-required': [
    'An update asks for permissions, dependencies or runtime identifiers the active version did not, and no consent was given for them.',
    'Updating a plugin from 1.0.0 to 2.0.0, which adds the permission `net:outbound`',
    'Read what it adds; to accept it, install again with `--accept-new-permissions` (a host passes a `consent` callback).',
  ],
  'unsigned-not-permitted': ['The artifact is not signed and the host requires signatures.', 'Installing an unsigned artifact on a host that only takes signed ones', 'Sign the artifact with `svc-plugin sign`, or allow unsigned plugins on that host.'],
  'signature-invalid': ['The signature does not verify.', 'An artifact changed after it was signed', 'Get the artifact again, or sign it again.'],
  'signature-untrusted': ['The signature verifies but its certificate does not chain to a trusted root.', 'A plugin signed by a publisher this host does not trust', 'Add the publisher root to the trust store, if you trust it.'],
  'signature-revoked': ['The signing certificate or key has been revoked.', 'A certificate listed in the revocation list', 'Get a version signed with a current certificate.'],
  'store-signature-missing': [
    'A store countersignature is required and the artifact has none: no `<artifact>.countersig` beside it (or none at the path given), or an installed version was admitted without one.',
    '`svc-plugin install weather-1.4.2.svcPlugin --require-store-signature` of an artifact downloaded without its `.countersig`, or signed with a stolen publisher key and never accepted by the store',
    'Download the artifact together with its `.countersig` from the store (or pass `--store-signature <file>`); a store countersigns what it accepts with `svc-plugin store countersign`.',
  ],
  'store-signature-invalid': [
    'The store countersignature does not hold for this artifact: its file is malformed, its certificate does not chain to a trusted root with key usage `registry`, it was made outside the certificate\'s validity, its signature does not verify, it names another artifact file, canonical digest or publisher signature, or its certificate is revoked. The message says which.',
    'The `.countersig` of weather-1.4.1 placed beside weather-1.4.2, or a countersignature by a store certificate the host\'s trust store does not hold',
    'Get the countersignature the store published for this very file; a store countersigns again with a current registry certificate.',
  ],
  'upload-refused': [
    'The store\'s verification of the upload refuses it, so the store does not countersign it.',
    '`svc-plugin store countersign` of an unsigned artifact, or of one whose publisher is not the uploading account',
    'Run `svc-plugin store verify` with the same flags to see every problem; countersign only what it accepts.',
  ],
  'publisher-changed': ['An update is signed by another publisher than the installed version.', 'Updating com.example.a with an artifact signed by someone else', 'Uninstall first if the change of publisher is intended.'],
  'trust-downgrade': ['An update would lower the trust the plugin holds.', 'Updating a signed plugin with an unsigned artifact', 'Install a signed artifact.'],
  'not-installed': ['The plugin is not installed.', '`svc-plugin uninstall com.example.missing`', 'Check the id with `svc-plugin list`.'],
  'version-not-installed': ['That version of the plugin is not installed.', '`svc-plugin activate com.example.a 9.9.9`', 'Check the versions with `svc-plugin list`.'],
  'dependency-in-use': ['Another installed plugin depends on this one.', 'Uninstalling a plugin others list in dependencies', 'Uninstall the dependent plugins first.'],
  'lock-timeout': ['Another operation holds the lock on this plugin for too long.', 'Two installs of one plugin at once', 'Wait for the other operation to end, then run the command again.'],
  'key-invalid': ['A key file is not a valid Ed25519 key.', 'A key file that was edited', 'Create a new key with `svc-plugin keygen`.'],
  'key-mismatch': ['The key does not belong to the certificate.', 'Signing with one key and another key\'s certificate', 'Use the key the certificate was issued for.'],
  'certificate-untrusted': ['A certificate does not chain to a trusted root.', 'A certificate issued by an unknown root', 'Add the root to the trust store, if you trust it.'],
  'certificate-malformed': ['A certificate is not well formed.', 'A certificate file that was edited', 'Issue the certificate again.'],
  'certificate-wrong-purpose': ['A certificate is used for something its key usage does not allow.', 'Signing plugins with a certificate issued for revocation lists', 'Use a certificate issued for signing plugins.'],
  'certificate-issuer-missing': ['The issuer of a certificate is not supplied.', 'A signing certificate without its issuer files', 'Supply the issuer certificate beside it.'],
  'certificate-issuer-mismatch': ['A certificate names another issuer than the one supplied.', 'A certificate paired with the wrong issuer file', 'Supply the issuer that issued it.'],
  'certificate-outlives-issuer': ['A certificate is valid longer than its issuer.', 'Issuing a two-year certificate from a root that ends next month', 'Issue it with a validity inside the issuer\'s.'],
  'chain-too-long': ['A certificate chain has more links than allowed.', 'A certificate issued by a certificate issued by a certificate', 'Issue certificates directly from a root.'],
  'certificate-not-yet-valid': ['A certificate was not yet valid at the time that counts.', 'An artifact whose signedAt is before the certificate starts', 'Sign again once the certificate is valid.'],
  'package-format-unsupported': ['The artifact uses a package format this version of svc-plugin does not know.', 'A signature whose format version is newer than the verifier', 'Update svc-plugin, or ask the publisher for an artifact in the current format.'],
  'package-unreadable': ['The artifact cannot be read as a .svcPlugin archive, so nothing in it can be verified.', 'A truncated download, or a file that is not a ZIP', 'Download the artifact again; run `svc-plugin validate --artifact` to see what the reader refuses.'],
  'manifest-too-large': ['manifest.json is larger than the 8 MiB a manifest may be.', 'A manifest.json of 9 MiB', 'Keep manifest.json small: it describes the plugin, the files go beside it.'],
  'signature-missing': ['The artifact carries no signature where one is required.', '`svc-plugin verify` of an artifact that was never signed', 'Sign it with `svc-plugin sign`, or (for a host that allows it) install with `--allow-unsigned`.'],
  'signature-algorithm-unsupported': ['The signature names an algorithm other than Ed25519.', '`"signature": {"algorithm": "rsa-pss", …}`', 'Sign the artifact with `svc-plugin sign`, which signs with Ed25519.'],
  'signature-key-id-mismatch': ['The signature names another key than the certificate it carries.', 'A signature copied from another artifact next to a different certificate', 'Sign the artifact again with the key that belongs to its certificate.'],
  'signed-in-future': ['The signing time is later than the time of the check.', '`signedAt` a day ahead of the verifier\'s clock', 'Check the signing machine\'s clock and sign again.'],
  'container-unsigned': [
    'The signature does not cover the container: the artifact was signed without `containerDigest` (by an older signer), so its ZIP headers and compressed bytes are not signed. A warning, or a refusal where the container signature is required.',
    '`svc-plugin store verify` of an artifact signed before container digests existed, or `verify --require-container-signature` of one',
    'Sign the packed artifact again with a current `svc-plugin sign`; a host that accepts it anyway can leave the requirement off.',
  ],
  'container-digest-malformed': [
    'manifest.json has a `containerDigest` that is not the last member of the signed manifest written exactly `"containerDigest":"sha256:<64 lowercase hex digits>"`.',
    'A signed manifest whose `containerDigest` was moved, upper-cased or escaped by another tool',
    'Sign the packed artifact again with `svc-plugin sign`; never edit a signed manifest.',
  ],
  'container-manifest-compressed': [
    'manifest.json carries a `containerDigest` but is compressed in the archive; a manifest with a container digest is stored as it is.',
    'A signed artifact unpacked and zipped again by another tool',
    'Use the artifact exactly as `svc-plugin sign` wrote it; never re-zip a signed artifact.',
  ],
  'container-digest-mismatch': [
    'The archive is not the container that was signed: its container digest differs from the signed `containerDigest` (a header, a time, an attribute or a compressed byte changed).',
    'A signed artifact with one ZIP header date changed, or a deflate stream re-encoded or padded',
    'Get the artifact again from its publisher; never re-zip or edit a signed artifact.',
  ],
  revoked: ['The signing certificate (or its issuer) is revoked by the root\'s revocation list.', 'A publisher key reported as compromised', 'Do not install it; the publisher must sign a new artifact with a new certificate.'],
  'version-not-newer': ['The uploaded version is not newer than every version the store has published.', 'Uploading 1.4.1 when 1.4.2 is published', 'Raise `version` above the newest published one and pack again.'],
  'unexpected-file-type': ['An installed version holds a symbolic link or a special file where only regular files belong.', 'A link placed in a version directory after install', 'Reinstall the version; never change an installed version directory by hand.'],
  'trust-record-missing': ['An installed version verifies Trusted but has no record of being admitted so.', 'A version directory copied in by hand', 'Install the artifact with `svc-plugin install` so that its admission is recorded.'],
  'certificate-changed': ['An installed version now verifies under another certificate than the one recorded at install, of another publisher or root.', 'Files of another publisher copied over an installed version', 'Reinstall the version from its artifact; treat the data root as tampered with.'],
  'unexpected-mode': [
    'A file or directory of an installed version has another mode than the one install set (0644 for files, 0755 for the host\'s executable and for directories).',
    'An installed file made setuid (`chmod 4777`), or the entrypoint executable without its execute bit',
    'Reinstall the version (`svc-plugin install --force`); never change an installed version directory by hand, and find out who did.',
  ],
  'directory-writable-by-others': [
    'A directory between the data root and an installed version (`plugins`, `plugins/<id>`, `versions`) is writable by its group or by everyone.',
    '`plugins/` left `0777` by a script, or created by hand under `umask 000`',
    'Make it writable by its owner alone (`chmod go-w`), then check that nobody replaced `current.json`, `trust.json` or a version meanwhile.',
  ],
  'certificate-expired': ['A certificate had expired at the time that counts.', 'Signing with a certificate that ended last year', 'Issue a new certificate and sign again.'],
  'already-signed': ['The artifact is already signed.', 'Signing an artifact twice', 'Sign the unsigned artifact written by pack.'],
  'signature-malformed': ['A signature or signature file is badly shaped.', 'A signature value that is not Base64', 'Sign the artifact again.'],
  'invalid-digest-input': ['An input of the digest cannot be used.', 'A digest asked of something that is not an artifact', 'Pass a .svcPlugin artifact.'],
  'publisher-mismatch': ['The publisher in the manifest does not match the signing certificate.', 'Signing com.example.a with a certificate of another publisher', 'Sign with a certificate of the publisher the manifest names.'],
  'signer-failed': ['A signing command failed or did not print a signature.', '`--signer-command "vault sign"` when the vault is locked', 'Run the command by hand with a message on standard input: it must print the 64-byte signature, raw or as one line of base64.'],
  'statement-malformed': ['A prepared statement cannot be read, or is not a statement of this operation.', '`sign --prepared cert/certificate.json`: a file that is not what `--prepare` wrote', 'Pass the file `--prepare` wrote for this same command, unchanged.'],
  'statement-mismatch': ['A prepared statement is not the one this command would sign.', 'Completing with the statement prepared for another artifact or another certificate, or a revocation list changed since it was prepared', 'Run the command with `--prepare` again on the same inputs, sign the new statement, and complete with it.'],
  'signature-unreadable': ['A signature file cannot be read, or does not hold a signature.', '`--signature sig.der`: a DER-wrapped signature instead of the raw 64 bytes', 'Pass the 64-byte Ed25519 signature, raw or as one line of base64 (`openssl pkeyutl -sign -rawin` prints the raw bytes).'],
  'self-verification-failed': ['A signed artifact did not verify right after signing.', 'A disk that corrupted the written artifact', 'Check the disk and sign again.'],
  'revocation-list-invalid': ['A revocation list is not valid or not signed by a trusted root.', 'A revocation list edited by hand', 'Get the revocation list from its publisher again.'],
  'revocation-list-stale': ['A revocation list is past its next-update time.', 'A revocation list whose nextUpdate has passed', 'Get the current revocation list.'],
  'revocation-list-rollback': ['A revocation list is older than one this data root has seen.', 'Installing with last month\'s revocation list', 'Use the newest revocation list.'],
  'already-revoked': ['That certificate or key is already revoked.', 'Revoking the same certificate twice', 'Nothing to do.'],
}

/**
 * Warnings an install (and `verify --installed`) gives about a plugin it installed or checked: they never
 * fail the command; a blocking one keeps the plugin from starting on its own.
 */
const installWarnings: Record<string, Entry> = {
  'no-entrypoint-for-runtime': [
    "The plugin declares no entrypoint for the host's runtime identifier, so the host cannot start it.",
    'Installing a plugin built only for `win-x64` on a `linux-x64` host',
    'Install the build for this runtime identifier, or add an entrypoint for it and pack again.',
  ],
  'sdk-compatibility-unchecked': ['The plugin\'s `compatibility.sdk` range is recorded, not checked: no host checks an SDK version.', '`"compatibility": {"sdk": ">=2.0.0"}`', 'Nothing to do; the range documents what the plugin was built against.'],
  'svc-compatibility-unchecked': [
    "The host is a development build (0.0.0-dev), so the plugin's `compatibility.svc` range was not checked.",
    '`svc-plugin install` without `--host-version`',
    'Pass `--host-version <version>` to judge the range as that host would.',
  ],
  'dependency-missing': ['A plugin this one depends on is not installed.', '`"dependencies": [{"id": "com.example.maps", "versionRange": "^2.0.0"}]` with no com.example.maps installed', 'Install the dependency; an optional one only limits what the plugin can do.'],
  'dependency-out-of-range': [
    'A plugin this one depends on is installed, but its active version is outside the range asked for.',
    'A dependency on `^2.0.0` while 1.9.0 is active',
    'Install and activate a version of the dependency inside the range.',
  ],
  'conflict-installed': ['An active plugin declares a conflict with this one, or this one with it; the plugin is not started on its own.', '`"conflicts": [{"id": "com.example.old-weather"}]` with that plugin active', 'Uninstall one of the two plugins.'],
  'icon-pack-unresolved': ['An icon pack the plugin uses is not installed in a version inside its range.', '`"iconPacks": [{"id": "com.example.icons"}]` with no such pack installed', 'Install the icon pack; until then the host shows its default icons.'],
  'artifact-unsigned': ['The plugin was installed unsigned, because the host allows unsigned plugins.', '`svc-plugin install plugin.svcPlugin --allow-unsigned`', 'Sign the artifact (`svc-plugin sign`) and install it again, so that the host can tell who published it.'],
}

/** Codes a run reports about itself rather than about a subject. */
const runOutcomes: Record<string, Entry> = {
  'too-many-warnings': [
    'The run found more warnings than `--max-warnings` allows, so it fails although no subject has an error.',
    '`svc-plugin validate plugin --max-warnings 0` on a plugin with an unknown permission',
    'Fix the warnings, or raise `--max-warnings` (a negative number, or leaving the flag out, allows any number).',
  ],
}

/** The codes a run reports about itself (`too-many-warnings`). */
export function runOutcomeCodes(): string[] {
  return Object.keys(runOutcomes)
}

function documentation([summary, example, fix, asError]: Entry): CodeDocumentation {
  return asError === undefined ? {summary, example, fix} : {summary, example, fix, asError}
}

/** What a code means, an example and a fix: a diagnostic code, a `schema:<keyword>` code or an error code. */
export function codeDocumentation(code: string): CodeDocumentation {
  if (code.startsWith('schema:')) {
    const keyword = code.slice('schema:'.length)
    const entry = Object.hasOwn(schemaKeywords, keyword) ? schemaKeywords[keyword] : undefined
    return entry === undefined ? {summary: `The manifest breaks the schema keyword "${keyword}".`, example: 'See the message.', fix: 'Correct the value the pointer names.'} : documentation(entry)
  }
  const table = [diagnostics as Record<string, Entry>, errors, installWarnings, runOutcomes].find((candidate) => Object.hasOwn(candidate, code))
  return table === undefined ? {summary: code, example: '', fix: ''} : documentation(table[code]!)
}

/**
 * Every documented code, each once: the diagnostic codes, the `schema:<keyword>` codes, the error codes, the
 * install warnings and the run's own outcomes.
 */
export function documentedCodes(): string[] {
  return [...Object.keys(diagnostics), ...Object.keys(schemaKeywords).map((keyword) => `schema:${keyword}`), ...Object.keys(errors), ...Object.keys(installWarnings), ...Object.keys(runOutcomes)]
}

/**
 * A code's page as Markdown: its title, what it means, `kind` (what reports it, when the caller knows), how
 * an error differs, an example and a fix. `npm run docs:codes` writes it to `docs/codes/`; SARIF carries it
 * as a rule's help where no published page can be linked.
 */
export function codePageMarkdown(code: string, kind?: string): string {
  const {summary, example, fix, asError} = codeDocumentation(code)
  return [
    `# \`${code}\``,
    '',
    summary,
    '',
    ...(kind === undefined ? [] : [`**Kind:** ${kind}`, '']),
    ...(asError === undefined ? [] : [`**As an error:** ${asError}`, '']),
    '## Example',
    '',
    example,
    '',
    '## How to fix it',
    '',
    fix,
    '',
  ].join('\n')
}

/** A code's page as plain text (the Markdown page's sentences, without its markup of headings). */
export function codePageText(code: string): string {
  const {summary, example, fix, asError} = codeDocumentation(code)
  return [`${code}: ${summary}`, ...(asError === undefined ? [] : [`As an error: ${asError}`]), `Example: ${example}`, `How to fix it: ${fix}`].join('\n\n')
}

/** A one-sentence description of what a diagnostic code means. */
export function describeCode(code: DiagnosticCode): string {
  return codeDocumentation(code).summary
}
