import {Flags} from '@oclif/core'
import {signCommand} from './actions/sign.js'
import {BaseCommand} from './base.js'
import {signingRouteFlags, stringArgument} from './flags.js'

export default class Sign extends BaseCommand<typeof Sign> {
  static override summary = 'Sign a packed .svcPlugin artifact with a package certificate.'
  static override description = `Adds certificate.json and certificate.sig (and issuer.json and issuer.sig for a certificate issued by an issuer) and signs the canonical digest of every byte of the artifact. The signature trailer is appended to the packed manifest.json; nothing is re-serialised. The certificate must be valid now and match the private key; the artifact must be unsigned and carry a complete files[] (as pack writes it). The signed artifact is checked after writing. The output is never overwritten. --json prints {path, certificateId, signedAt, artifactDigest, containerDigest}.

A key that never leaves its vault: --signer-command runs a command with the bytes to sign on its standard input and reads the signature from its standard output; --prepare writes those bytes (the signed statement: signing time, key id, digests) to a file and nothing else, and --prepared with --signature completes the artifact from that statement and the signature made elsewhere. A signature that does not verify with the certificate's key is refused before anything is written (signature-invalid); a statement prepared for another artifact or certificate is statement-mismatch.

Exit status: 0 signed (or prepared), 1 refused (already signed, certificate not valid now, key mismatch, incomplete files[], wrong certificate purpose, a signature that does not verify, a failing signing command, a statement of something else), 2 usage error or the output exists, 3 a file cannot be read or the artifact is not a ZIP.`

  static override examples = [
    '<%= config.bin %> sign weather-1.4.2.svcPlugin --private-key signing.key --certificate cert/certificate.json --certificate-signature cert/certificate.sig --output dist/weather-1.4.2.svcPlugin',
    '<%= config.bin %> sign weather-1.4.2.svcPlugin --signer-command \'openssl pkeyutl -sign -rawin -inkey signing.pem -in "$SVC_PLUGIN_MESSAGE_FILE"\' --certificate cert/certificate.json --certificate-signature cert/certificate.sig --output dist/weather-1.4.2.svcPlugin',
    '<%= config.bin %> sign weather-1.4.2.svcPlugin --certificate cert/certificate.json --certificate-signature cert/certificate.sig --prepare weather.statement',
    '<%= config.bin %> sign weather-1.4.2.svcPlugin --certificate cert/certificate.json --certificate-signature cert/certificate.sig --prepared weather.statement --signature weather.sig --output dist/weather-1.4.2.svcPlugin',
  ]

  static override args = {
    artifact: stringArgument({description: 'The packed, unsigned .svcPlugin.', required: true}),
  }

  static override flags = {
    'private-key': Flags.string({description: 'The private key file of the certificate (from keygen); or one of --signer-command, --prepare, --prepared with --signature.', helpValue: '<file>'}),
    ...signingRouteFlags,
    certificate: Flags.string({description: 'certificate.json.', required: true, helpValue: '<file>'}),
    'certificate-signature': Flags.string({description: 'certificate.sig.', required: true, helpValue: '<file>'}),
    'issuer-certificate': Flags.string({description: 'issuer.json, when the certificate was issued by an issuer (with --issuer-signature).', helpValue: '<file>'}),
    'issuer-signature': Flags.string({description: 'issuer.sig.', helpValue: '<file>'}),
    output: Flags.string({char: 'o', description: 'Where to write the signed artifact (never overwritten); required but with --prepare.', helpValue: '<file>'}),
  }

  async run(): Promise<void> {
    this.setExit(await signCommand(this.input, this.context))
  }
}
