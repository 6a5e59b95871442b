import {Flags} from '@oclif/core'
import {certRootCommand} from '../actions/cert/root.js'
import {BaseCommand} from '../base.js'

export default class CertRoot extends BaseCommand<typeof CertRoot> {
  static override summary = 'Create a root key and the trust store that trusts it.'
  static override description = `Writes root.key (private, mode 0600), root.pub and trust.json ({"roots": [{"rootKeyId", "publicKey"}]}) into the output folder. Hosts and stores verify artifacts against trust.json; root.key issues certificates (cert issue). Existing files are never overwritten.

Exit status: 0 written, 2 a file already exists or the root key id is not root_ followed by 4 to 32 of [0-9a-z].`

  static override examples = ['<%= config.bin %> cert root --output ./pki', '<%= config.bin %> cert root --output ./pki --root-key-id root_example2030']

  static override flags = {
    output: Flags.string({char: 'o', description: 'Folder to write root.key, root.pub and trust.json into.', required: true, helpValue: '<dir>'}),
    'root-key-id': Flags.string({description: 'The root key id (default: root_ and 16 random hex digits).', helpValue: '<id>'}),
  }

  async run(): Promise<void> {
    this.setExit(await certRootCommand(this.input, this.context))
  }
}
