import {Flags} from '@oclif/core'
import {storeCountersignCommand} from '../actions/store/countersign.js'
import {BaseCommand} from '../base.js'
import {stringArgument, uploadFlags} from '../flags.js'

export default class StoreCountersign extends BaseCommand<typeof StoreCountersign> {
  static override summary = 'Countersign an upload the store accepts, with a registry certificate, in a detached file.'
  static override description = `Runs the store's verification of the upload (the checks of store verify, with the same flags) and, when it is accepted, signs a statement naming the artifact file's SHA-256, its canonical digest and the publisher's signature, with the store's "registry" certificate. The artifact is not changed by a byte: the countersignature is its own file, <artifact>.countersig beside the artifact unless --output says otherwise, never overwritten. A host that runs verify or install with --require-store-signature accepts the artifact only with it.

The certificate must chain to a root of --trust, have key usage "registry" (certificate-wrong-purpose otherwise) and be valid now; the key is --private-key, or --signer-command, a command that reads the statement on its standard input and prints the 64-byte signature (raw or one line of base64). An upload the store does not accept is refused (upload-refused) and nothing is written. --json prints {path, artifact, certificateId, countersignedAt, artifactSha256, artifactDigest}.

Exit status: 0 countersigned, 1 refused (the upload, the certificate's purpose or validity, the key), 2 usage error or the output exists, 3 a file cannot be read.`

  static override examples = [
    '<%= config.bin %> store countersign weather-1.4.2.svcPlugin --account-name "Example Labs" --account-id com.example --trust trust.json --private-key store.key --certificate store/certificate.json --certificate-signature store/certificate.sig',
    '<%= config.bin %> store countersign weather-1.4.2.svcPlugin --account-name "Example Labs" --trust trust.json --signer-command "vault sign store-key" --certificate store/certificate.json --certificate-signature store/certificate.sig --output weather.countersig',
  ]

  static override advice = {'revocation-list-stale': 'Or pass --allow-stale-revocations to apply it anyway.'}

  static override args = {
    artifact: stringArgument({description: 'The uploaded .svcPlugin to countersign.', required: true}),
  }

  static override flags = {
    ...uploadFlags,
    'private-key': Flags.string({description: "The registry certificate's private key file.", helpValue: '<file>', exactlyOne: ['private-key', 'signer-command']}),
    'signer-command': Flags.string({description: 'A command that signs: the statement on its standard input, the signature on its standard output.', helpValue: '<command>', exactlyOne: ['private-key', 'signer-command']}),
    certificate: Flags.string({description: 'The registry certificate, certificate.json.', required: true, helpValue: '<file>'}),
    'certificate-signature': Flags.string({description: 'Its signature, certificate.sig.', required: true, helpValue: '<file>'}),
    'issuer-certificate': Flags.string({description: 'issuer.json, when the certificate was issued by an issuer (with --issuer-signature).', helpValue: '<file>', dependsOn: ['issuer-signature']}),
    'issuer-signature': Flags.string({description: 'issuer.sig.', helpValue: '<file>', dependsOn: ['issuer-certificate']}),
    output: Flags.string({char: 'o', description: 'Where to write the countersignature (default: <artifact>.countersig; never overwritten).', helpValue: '<file>'}),
  }

  async run(): Promise<void> {
    this.setExit(await storeCountersignCommand(this.input, this.context))
  }
}
