import {Flags} from '@oclif/core'
import {signCommand} from './actions/sign.js'
import {BaseCommand} from './base.js'
import {stringArgument} from './flags.js'

export default class Sign extends BaseCommand<typeof Sign> {
  static override summary = 'Sign a packed .svcPlugin artifact with a package certificate.'
  static override description = `Adds certificate.json and certificate.sig (and issuer.json and issuer.sig for a certificate issued by an issuer) and signs the canonical digest of every byte of the artifact. The signature trailer is appended to the packed manifest.json; nothing is re-serialised. The certificate must be valid now and match the private key; the artifact must be unsigned and carry a complete files[] (as pack writes it). The signed artifact is checked after writing. The output is never overwritten. --json prints {path, certificateId, signedAt, artifactDigest}.

Exit status: 0 signed, 1 refused (already signed, certificate not valid now, key mismatch, incomplete files[], wrong certificate purpose), 2 usage error or the output exists, 3 a file cannot be read or the artifact is not a ZIP.`

  static override examples = [
    '<%= config.bin %> sign weather-1.4.2.svcPlugin --private-key signing.key --certificate cert/certificate.json --certificate-signature cert/certificate.sig --output dist/weather-1.4.2.svcPlugin',
  ]

  static override args = {
    artifact: stringArgument({description: 'The packed, unsigned .svcPlugin.', required: true}),
  }

  static override flags = {
    'private-key': Flags.string({description: 'The private key file of the certificate (from keygen).', required: true, helpValue: '<file>'}),
    certificate: Flags.string({description: 'certificate.json.', required: true, helpValue: '<file>'}),
    'certificate-signature': Flags.string({description: 'certificate.sig.', required: true, helpValue: '<file>'}),
    'issuer-certificate': Flags.string({description: 'issuer.json, when the certificate was issued by an issuer (with --issuer-signature).', helpValue: '<file>'}),
    'issuer-signature': Flags.string({description: 'issuer.sig.', helpValue: '<file>'}),
    output: Flags.string({char: 'o', description: 'Where to write the signed artifact (never overwritten).', required: true, helpValue: '<file>'}),
  }

  async run(): Promise<void> {
    this.setExit(await signCommand(this.input, this.context))
  }
}
