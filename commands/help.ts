import {loadHelpClass} from '@oclif/core'
import {BaseCommand} from './base.js'
import {stringArgument} from './flags.js'
import {ExitCode} from './exit-codes.js'
import {commandNames, reportUnknownCommand} from './unknown-command.js'

/** `svc-plugin help [COMMAND…]`: the same help as `svc-plugin COMMAND --help`. */
export default class Help extends BaseCommand<typeof Help> {
  static override summary = 'Show the help of a command (or the list of commands).'
  static override description = 'The same as svc-plugin COMMAND --help. A topic command is named by its words: svc-plugin help cert root.'
  static override examples = ['<%= config.bin %> help validate', '<%= config.bin %> help cert issue']

  // Every positional argument is a word of the command.
  static override strict = false

  static override args = {
    command: stringArgument({description: 'The command, in words (cert root).', required: false}),
  }

  async run(): Promise<void> {
    const words = [...this.input.argv]
    const id = words.join(':')
    if (words.length > 0 && this.config.findCommand(id) === undefined && this.config.findTopic(id) === undefined) {
      reportUnknownCommand(id, this.argv.filter((word) => word.startsWith('-')), commandNames(this.config.commandIDs))
      this.exit(ExitCode.usage)
    }
    const HelpClass = await loadHelpClass(this.config)
    await new HelpClass(this.config, this.config.pjson.oclif.helpOptions).showHelp(words)
  }
}
