import {Flags} from '@oclif/core'
import {keygenCommand} from './actions/keygen.js'
import {BaseCommand} from './base.js'

export default class Keygen extends BaseCommand<typeof Keygen> {
  static override summary = 'Create an Ed25519 key pair for signing artifacts.'
  static override description = `Writes <name>.key (the 32-byte private seed, base64, one line, mode 0600) and <name>.pub (the public key, same format) into the output folder. Existing files are never overwritten. Send the .pub file to your certificate issuer; keep the .key file secret.

Exit status: 0 written, 2 a key file already exists or the name is not a plain file name.`

  static override examples = ['<%= config.bin %> keygen', '<%= config.bin %> keygen --output ~/.svc-plugin --name publisher']

  static override flags = {
    output: Flags.string({char: 'o', description: 'Folder to write the key files into (created if needed).', default: '.', helpValue: '<dir>'}),
    name: Flags.string({char: 'n', description: 'Base name of the key files.', default: 'signing', helpValue: '<name>'}),
  }

  async run(): Promise<void> {
    this.setExit(await keygenCommand(this.input, this.context))
  }
}
