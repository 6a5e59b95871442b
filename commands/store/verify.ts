import {Flags} from '@oclif/core'
import {storeVerifyCommand} from '../actions/store/verify.js'
import {BaseCommand} from '../base.js'
import {revocationsFlag, stringArgument, trustOptions} from '../flags.js'

export default class StoreVerify extends BaseCommand<typeof StoreVerify> {
  static override summary = "Judge an upload to the plugin store: validation, signature, publisher and version, every problem in one report."
  static override description = `Reads the artifact once through the strict archive reader and reports every problem together: publication-level validation with the package content (every declared RID's executable, the multi-RID layout, the icon, files[] against the bytes); the signature, which must be Trusted under --trust (and not revoked by --revocations) and cover the container, every byte of the archive file (container-unsigned otherwise; a warning with --no-require-container-signature); publisher.name equal to --account-name and publisher.id, when present, equal to --account-id (publisher-mismatch); and the version greater than every --published version (version-not-newer).

Output (stdout): one line per problem, "<severity> <code>: <message> [<pointer>]", then "accepted <id> <version>" or "refused <id> <version>: N problems" (N counts errors; warnings never refuse). --json prints {path, accepted, id, version, problems: [{code, severity, message, pointer?}], verdict, certificateId}.

Exit status: 0 accepted, 1 refused, 2 usage error, 3 the artifact, the trust store or the revocation list cannot be read (missing, not a ZIP).`

  static override examples = [
    '<%= config.bin %> store verify weather-1.4.2.svcPlugin --account-name "Example Labs" --account-id com.example --trust trust.json',
    '<%= config.bin %> store verify weather-1.4.2.svcPlugin --account-name "Example Labs" --trust trust.json --published 1.3.0 --published 1.4.0 --revocations revocations.json --json',
  ]

  static override advice = {'revocation-list-stale': 'Or pass --allow-stale-revocations to apply it anyway.'}

  static override args = {
    artifact: stringArgument({description: 'The uploaded .svcPlugin.', required: true}),
  }

  static override flags = {
    'account-name': Flags.string({description: "The uploading account's publisher name (publisher.name must equal it).", required: true, helpValue: '<name>'}),
    'account-id': Flags.string({description: "The uploading account's publisher id (publisher.id, when present, must equal it).", helpValue: '<id>'}),
    trust: Flags.string({...trustOptions, description: 'The trust store the signature must chain to.', required: true}),
    published: Flags.string({description: 'A version already published (repeat, or separate with commas); the upload must be greater.', multiple: true, delimiter: ',', helpValue: '<version>'}),
    revocations: revocationsFlag,
    'allow-stale-revocations': Flags.boolean({description: 'Apply a revocation list past its nextUpdate (a warning) instead of refusing the upload.', default: false}),
    'require-container-signature': Flags.boolean({
      description: 'Refuse an upload whose signature does not cover its container (signed without containerDigest: container-unsigned). On by default; --no-require-container-signature makes it a warning.',
      default: true,
      allowNo: true,
    }),
  }

  async run(): Promise<void> {
    this.setExit(await storeVerifyCommand(this.input, this.context))
  }
}
