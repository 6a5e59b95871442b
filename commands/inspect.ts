import {Flags} from '@oclif/core'
import {inspectCommand} from './actions/inspect.js'
import {BaseCommand} from './base.js'
import {stringArgument} from './flags.js'

export default class Inspect extends BaseCommand<typeof Inspect> {
  static override summary = 'Describe an artifact or a plugin folder without judging it.'
  static override description = `Prints what a .svcPlugin (or a plugin folder) declares and holds: identity, entrypoints by RID and whether each executable is present, permissions (unknown ones marked), languages, dependencies, conflicts, icon packs, compatibility, the signature's shape (not verified: use svc-plugin verify), entry count, sizes and compression ratio.

Exit status: 0 whenever the manifest can be read, 1 when the archive is refused by the strict reader or the manifest cannot be read, 3 when the file does not exist or is not a ZIP.`

  static override examples = ['<%= config.bin %> inspect com.example.weather-station-1.4.2.svcPlugin', '<%= config.bin %> inspect ./plugin --json']

  static override args = {
    subject: stringArgument({description: 'A .svcPlugin artifact or a plugin folder.', required: true}),
  }

  static override flags = {
    'show-digest': Flags.boolean({description: 'Also print the canonical artifact digest (reads every byte of an artifact).', default: false}),
  }

  async run(): Promise<void> {
    this.setExit(await inspectCommand(this.input, this.context))
  }
}
