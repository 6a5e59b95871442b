import {Flags} from '@oclif/core'
import {certIssueCommand} from '../actions/cert/issue.js'
import {BaseCommand} from '../base.js'
import {choiceFlag, signingRouteFlags} from '../flags.js'
import {keyUsages, subjectKinds} from '#cli'

export default class CertIssue extends BaseCommand<typeof CertIssue> {
  static override summary = 'Issue a certificate for a public key, signed by the root or by an issuer certificate.'
  static override description = `Signs a certificate for the subject's public key with the root key (--root-key) or with an issuer's key (--issuer-key, --issuer-certificate, --issuer-signature). Writes certificate.json and certificate.sig into the output folder; a certificate with --usage issuer is written as issuer.json and issuer.sig, the names it carries in an artifact. A certificate issued by an issuer gets copies of issuer.json and issuer.sig beside it, so the folder holds the whole chain for sign. Times are UTC, written YYYY-MM-DDTHH:MM:SSZ; validity bounds are inclusive and must lie inside the issuer's. Existing files are never overwritten.

A root or issuer key that never leaves its vault: --signer-command runs a command with the statement to sign (svc-plugin-certificate/1 and the certificate's JSON) on its standard input and reads the signature from its standard output; --prepare writes that statement to a file and nothing else, and --prepared with --signature completes the certificate from it (give the same flags again). The signature is checked against the issuer certificate's key, or the root's (--root-public-key), before anything is written.

Exit status: 0 written, 1 the certificate was refused (invalid subject key, issuer rules, a signature that does not verify, a failing signing command, a statement of another certificate), 2 usage error or an output file exists, 3 a key or certificate file cannot be read.`

  static override examples = [
    '<%= config.bin %> cert issue --root-key pki/root.key --root-key-id root_example --subject-public-key signing.pub --subject-kind creator --subject-id com.example --subject-name "Example Labs" --not-after 2031-01-01T00:00:00Z --output cert',
    '<%= config.bin %> cert issue --issuer-key issuer.key --issuer-certificate pki/issuer.json --issuer-signature pki/issuer.sig --subject-public-key signing.pub --subject-kind organization --subject-id com.example --subject-name "Example Labs" --not-after 2031-01-01T00:00:00Z --output cert',
  ]

  static override advice = {'invalid-validity': 'Check --not-before and --not-after.'}

  static override flags = {
    'root-key': Flags.string({description: 'The root private key file (a certificate signed by the root); or one of --signer-command, --prepare, --prepared with --signature.', helpValue: '<file>'}),
    'root-public-key': Flags.string({description: "The root's public key file, with a root key held elsewhere (--signer-command, --prepared): its signature is checked before anything is written.", helpValue: '<file>'}),
    ...signingRouteFlags,
    'issuer-key': Flags.string({description: "The issuer's private key file (a certificate signed by an issuer certificate; with the next two).", helpValue: '<file>'}),
    'issuer-certificate': Flags.string({description: 'The issuer certificate (issuer.json).', helpValue: '<file>'}),
    'issuer-signature': Flags.string({description: "The issuer certificate's signature (issuer.sig).", helpValue: '<file>'}),
    'subject-public-key': Flags.string({description: "The subject's public key file (from keygen).", required: true, helpValue: '<file>'}),
    'subject-kind': choiceFlag(subjectKinds)({description: 'Who the certificate is for.', required: true}),
    'subject-id': Flags.string({description: "The subject's id (for creators and organizations, the manifest's publisher.id).", required: true, helpValue: '<id>'}),
    'subject-name': Flags.string({description: "The subject's display name.", required: true, helpValue: '<name>'}),
    usage: choiceFlag(keyUsages)({description: 'What the key may do: sign artifacts, sign registry data, or issue certificates.', default: 'package'}),
    'not-before': Flags.string({description: 'Start of validity, YYYY-MM-DDTHH:MM:SSZ (default: now).', helpValue: '<time>'}),
    'not-after': Flags.string({description: 'End of validity, YYYY-MM-DDTHH:MM:SSZ.', required: true, helpValue: '<time>'}),
    'root-key-id': Flags.string({description: 'The root key id (required with --root-key; with an issuer, defaults to its root).', helpValue: '<id>'}),
    output: Flags.string({char: 'o', description: 'Folder to write the certificate files into; required but with --prepare.', helpValue: '<dir>'}),
  }

  async run(): Promise<void> {
    this.setExit(await certIssueCommand(this.input, this.context))
  }
}
