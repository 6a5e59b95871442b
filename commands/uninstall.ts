import {Flags} from '@oclif/core'
import {uninstallCommand} from './actions/uninstall.js'
import {BaseCommand} from './base.js'
import {dataRootAdvice, dataRootOptions, stringArgument} from './flags.js'

/** `svc-plugin uninstall <id>`: the library `uninstall` behind flags. */
export default class Uninstall extends BaseCommand<typeof Uninstall> {
  static override summary = 'Uninstall every version of a plugin.'
  static override description = `Deactivates the plugin, then removes all its versions. Its data directory and trust record stay (so a plugin once installed Trusted still needs a signed artifact next time) unless --purge. Refused while another installed plugin depends on it, unless --force.

Exit status: 0 uninstalled, 1 refused (not-installed, dependency-in-use), 2 usage error, 3 the data root does not exist (data-root-not-found).`

  static override examples = [
    '<%= config.bin %> uninstall com.example.weather-station --data-root ~/.svc',
    '<%= config.bin %> uninstall com.example.weather-station --data-root ~/.svc --purge --json',
  ]

  static override advice = {...dataRootAdvice, 'dependency-in-use': 'Or pass --force to uninstall it anyway.'}

  static override args = {
    id: stringArgument({description: 'The plugin id.', required: true}),
  }

  static override flags = {
    'data-root': Flags.string({...dataRootOptions, description: 'The host data directory.', required: true}),
    force: Flags.boolean({char: 'f', description: 'Uninstall even though other installed plugins depend on it.', default: false}),
    purge: Flags.boolean({description: 'Also remove the plugin data directory and its trust record.', default: false}),
  }

  async run(): Promise<void> {
    this.setExit(await uninstallCommand({args: this.args, flags: this.flags}, this.context))
  }
}
