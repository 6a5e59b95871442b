import {Flags} from '@oclif/core'
import {activateCommand} from './actions/activate.js'
import {BaseCommand} from './base.js'
import {dataRootAdvice, dataRootOptions, stringArgument} from './flags.js'

/** `svc-plugin activate <id> <version>`: the library `activate` (rollback). */
export default class Activate extends BaseCommand<typeof Activate> {
  static override summary = 'Make an installed version the active one (rollback).'
  static override description = `Re-reads the version's manifest and switches current.json to it atomically. A version admitted unsigned cannot be activated once the plugin was installed Trusted.

Exit status: 0 activated, 1 refused (not-installed, version-not-installed, trust-downgrade, manifest-invalid), 2 usage error, 3 the data root does not exist (data-root-not-found).`

  static override advice = dataRootAdvice

  static override examples = ['<%= config.bin %> activate com.example.weather-station 1.4.1 --data-root ~/.svc']

  static override args = {
    id: stringArgument({description: 'The plugin id.', required: true}),
    version: stringArgument({description: 'The installed version to activate.', required: true}),
  }

  static override flags = {
    'data-root': Flags.string({...dataRootOptions, description: 'The host data directory.', required: true}),
  }

  async run(): Promise<void> {
    this.setExit(await activateCommand({args: this.args, flags: this.flags}, this.context))
  }
}
