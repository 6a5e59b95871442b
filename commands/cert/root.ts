import {Flags} from '@oclif/core'
import {certRootCommand} from '../actions/cert/root.js'
import {BaseCommand} from '../base.js'

export default class CertRoot extends BaseCommand<typeof CertRoot> {
  static override summary = 'Create a root key and the trust store that trusts it.'
  static override description = `Writes root.key (private, mode 0600), root.pub and trust.json ({"roots": [{"rootKeyId", "publicKey"}]}) into the output folder. Hosts and stores verify artifacts against trust.json; root.key issues certificates (cert issue). Existing files are never overwritten.

With --root-public-key the root's private key is never seen: root.pub is a copy of that key and trust.json trusts it; certificates are then issued with --signer-command or --prepare/--prepared (cert issue).

Exit status: 0 written, 1 the public key is not a strict Ed25519 key, 3 the public key file cannot be read, 2 a file already exists or the root key id is not root_ followed by 4 to 32 of [0-9a-z].`

  static override examples = [
    '<%= config.bin %> cert root --output ./pki',
    '<%= config.bin %> cert root --output ./pki --root-key-id root_example2030',
    '<%= config.bin %> cert root --output ./pki --root-key-id root_example2030 --root-public-key offline-root.pub',
  ]

  static override flags = {
    output: Flags.string({char: 'o', description: 'Folder to write root.key, root.pub and trust.json into.', required: true, helpValue: '<dir>'}),
    'root-key-id': Flags.string({description: 'The root key id (default: root_ and 16 random hex digits).', helpValue: '<id>'}),
    'root-public-key': Flags.string({description: 'A root whose private key stays in a vault: its public key file (one line of base64 of 32 bytes); writes root.pub and trust.json only.', helpValue: '<file>'}),
  }

  async run(): Promise<void> {
    this.setExit(await certRootCommand(this.input, this.context))
  }
}
