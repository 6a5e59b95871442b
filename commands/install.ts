import {Flags} from '@oclif/core'
import {installCommand} from './actions/install.js'
import {BaseCommand} from './base.js'
import {countFlag, dataRootOptions, protocolFlag, revocationsFlag, stringArgument, trustOptions} from './flags.js'

/** `svc-plugin install <artifact>`: the library `install` behind flags. */
export default class Install extends BaseCommand<typeof Install> {
  static override summary = 'Install a .svcPlugin artifact into a host data root.'
  static override description = `Checks everything before writing anything: the archive (strict reading), the manifest (development level), the expected id and the host compatibility. Then extracts into <data-root>/plugins/_staging, checks every file against files[] and the signature, and promotes the result into <data-root>/plugins/<id>/versions/<version> with one rename (a forced reinstall of an installed version uses a fresh <version>_<n> directory and switches current.json to it atomically). An unsigned artifact needs --allow-unsigned; a plugin once installed Trusted never accepts an unsigned version.

With --revocations, the root-signed revocation list (revocations.json, its revocations.sig beside it) must verify under --trust, must not be past its nextUpdate (unless --allow-stale-revocations) and must not be older than the newest list this data root has seen (revocation-list-rollback, recorded in <data-root>/plugins/_revocations.json); a revoked artifact is refused (signature-revoked, verdict Revoked).

A signature made by this version of sign also covers the container, every byte of the archive file (containerDigest in the signed manifest); an artifact signed without it installs with the warning container-unsigned, or is refused with --require-container-signature (signature-invalid, reason container-unsigned).

Without --host-version the host counts as a development build (0.0.0-dev): the plugin's compatibility.svc range is not checked (warning svc-compatibility-unchecked).

Exit status: 0 installed (warnings allowed), 1 refused (the code says why), 2 usage error, 3 the artifact, the trust store or the revocation list cannot be read.`

  static override examples = [
    '<%= config.bin %> install weather-1.4.2.svcPlugin --data-root ~/.svc --trust trust.json --host-version 1.8.0',
    '<%= config.bin %> install dev-build.svcPlugin --data-root ./data --allow-unsigned --no-activate',
    '<%= config.bin %> install weather-1.4.2.svcPlugin --data-root ./data --trust trust.json --expect-id com.example.weather-station --json',
  ]

  static override advice = {
    'unsigned-not-permitted': 'Pass --allow-unsigned to install it anyway (never for a plugin once installed Trusted).',
    'already-installed': 'Pass --force to replace it.',
    'revocation-list-stale': 'Or pass --allow-stale-revocations to apply it anyway.',
  }

  static override args = {
    artifact: stringArgument({description: 'The .svcPlugin file to install.', required: true}),
  }

  static override flags = {
    'data-root': Flags.string({...dataRootOptions, description: 'The host data directory (plugins live under <dir>/plugins).', required: true}),
    rid: Flags.string({description: 'The host runtime identifier (default: this machine, e.g. linux-x64).', helpValue: '<rid>'}),
    'host-version': Flags.string({description: 'The host version checked against compatibility.svc (default 0.0.0-dev: not checked).', helpValue: '<version>'}),
    protocol: protocolFlag({default: {minimum: 1, maximum: 3}, defaultHelp: async () => '1-3'}),
    trust: Flags.string({...trustOptions, description: 'Trust store file: the roots a signature must chain to (needed for a signed artifact).'}),
    'allow-unsigned': Flags.boolean({description: 'Install an unsigned artifact (never one with a broken signature).', default: false}),
    revocations: revocationsFlag,
    'allow-stale-revocations': Flags.boolean({description: 'Apply a revocation list past its nextUpdate instead of refusing the install.', default: false}),
    'require-container-signature': Flags.boolean({
      description: 'Refuse a signed artifact whose signature does not cover its container (signed without containerDigest) instead of installing it with the warning container-unsigned.',
      default: false,
    }),
    'expect-id': Flags.string({description: 'Refuse (id-mismatch) unless the artifact is this plugin id.', helpValue: '<id>'}),
    'expect-version': Flags.string({description: 'Refuse (version-mismatch) unless the artifact is this version.', helpValue: '<version>'}),
    'expect-sha256': Flags.string({description: 'Refuse (artifact-digest-mismatch) unless the artifact file has this SHA-256, as the store published it.', helpValue: '<hex>'}),
    force: Flags.boolean({char: 'f', description: 'Replace the version if it is already installed.', default: false}),
    activate: Flags.boolean({description: 'Make the new version the active one (--no-activate to only install it).', default: true, allowNo: true}),
    retain: countFlag(0)({description: 'Inactive versions to keep beyond the active and the previous one.', default: 1}),
  }

  async run(): Promise<void> {
    this.setExit(await installCommand(this.input, this.context))
  }
}
