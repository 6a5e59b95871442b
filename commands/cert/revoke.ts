import {Flags} from '@oclif/core'
import {certRevokeCommand} from '../actions/cert/revoke.js'
import {BaseCommand} from '../base.js'
import {choiceFlag, signingRouteFlags} from '../flags.js'
import {revocationReasons} from '#cli'

export default class CertRevoke extends BaseCommand<typeof CertRevoke> {
  static override summary = 'Revoke a certificate, a key or an artifact in a root-signed revocation list.'
  static override description = `Adds one entry to revocations.json and signs the list again with the root key: its sequence goes up by one, issuedAt is now and nextUpdate is now + 7 days unless --next-update says otherwise. When the list does not exist it is created with sequence 1 (then --root-key-id is required). The signature goes to revocations.sig beside the list (the .json extension replaced by .sig); both files are replaced through temporary files and renames.

A root key that never leaves its vault: --signer-command runs a command with the statement to sign (svc-plugin-revocations/1 and the new list's exact bytes) on its standard input and reads the signature from its standard output; --prepare writes that statement to a file and nothing else, and --prepared with --signature completes the list from it (give the same flags again): the list written is exactly the one prepared. Both need --root-public-key; the signature is checked before anything is written. A statement that no longer fits the list (it changed meanwhile) is refused.

Name exactly one target: --certificate (a certificate.json or issuer.json: its id), --certificate-id, --public-key (its fingerprint, sha256 of the 32 raw key bytes), --artifact (a signed .svcPlugin: its canonical artifact digest) or --artifact-digest.

Reasons: a key entry, or a certificate revoked for key-compromise or malicious, refuses every signature whatever its signing time; a certificate revoked for superseded, cessation-of-operation or unspecified refuses signatures made at or after --revoked-at (default now); an artifact entry refuses that artifact always. Revoking an issuer certificate revokes everything it issued. A target already listed is only replaced by a stricter revocation.

Output (stdout): "Revoked <kind> <value> (sequence <n>)." --json prints {created, entry, sequence, listFile, sigFile, list}.

Exit status: 0 revoked (or the statement prepared), 1 refused (already revoked, the list does not verify under the root key, a signature by another key, a statement that no longer fits), 2 usage error (no or several targets, a malformed id, digest or time, a wrong or missing root key id), 3 a key, certificate, artifact or list file cannot be read.`

  static override examples = [
    '<%= config.bin %> cert revoke --list revocations.json --root-key pki/root.key --root-key-id root_example --certificate cert/certificate.json --reason superseded',
    '<%= config.bin %> cert revoke --list revocations.json --root-key pki/root.key --public-key signing.pub --reason key-compromise',
    '<%= config.bin %> cert revoke --list revocations.json --root-public-key pki/root.pub --public-key signing.pub --reason key-compromise --prepare revoke.statement',
    '<%= config.bin %> cert revoke --list revocations.json --root-key pki/root.key --artifact weather-1.4.2.svcPlugin --reason malicious --next-update 2030-07-01T00:00:00Z',
  ]

  static override flags = {
    list: Flags.string({description: 'The revocation list, revocations.json (created when missing).', required: true, helpValue: '<file>'}),
    'root-key': Flags.string({description: 'The root private key file that signs the list; or one of --signer-command, --prepare, --prepared with --signature.', helpValue: '<file>'}),
    'root-public-key': Flags.string({description: "The root's public key file, with a root key held elsewhere (--signer-command, --prepare, --prepared): the current list and the new signature are checked against it.", helpValue: '<file>'}),
    ...signingRouteFlags,
    'root-key-id': Flags.string({description: "The root key id (required to create the list; otherwise it must be the list's).", helpValue: '<id>'}),
    certificate: Flags.string({description: 'Revoke this certificate (certificate.json or issuer.json).', helpValue: '<file>'}),
    'certificate-id': Flags.string({description: 'Revoke the certificate with this id (cert_…).', helpValue: '<id>'}),
    'public-key': Flags.string({description: 'Revoke this public key (a key file from keygen).', helpValue: '<file>'}),
    artifact: Flags.string({description: 'Revoke this signed artifact.', helpValue: '<file>'}),
    'artifact-digest': Flags.string({description: 'Revoke the artifact with this canonical digest (sha256:…).', helpValue: '<sha256:hex>'}),
    reason: choiceFlag(revocationReasons)({description: 'Why it is revoked.', required: true}),
    'revoked-at': Flags.string({description: 'When the revocation takes effect, YYYY-MM-DDTHH:MM:SSZ (default: now).', helpValue: '<time>'}),
    'next-update': Flags.string({description: 'When the list must be replaced, YYYY-MM-DDTHH:MM:SSZ (default: now + 7 days).', helpValue: '<time>'}),
  }

  async run(): Promise<void> {
    this.setExit(await certRevokeCommand(this.input, this.context))
  }
}
