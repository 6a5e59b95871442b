import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {dataRootOptions} from './flags.js'
import {activate} from '../src/index.js'

/** `svc-plugin activate <id> <version>`: the library `activate` (rollback). */
export default class Activate extends BaseCommand<typeof Activate> {
  static override summary = 'Make an installed version the active one (rollback).'
  static override description = `Re-reads the version's manifest and switches current.json to it atomically. A version admitted unsigned cannot be activated once the plugin was installed Trusted.

Exit status: 0 activated, 1 refused (not-installed, version-not-installed, trust-downgrade, manifest-invalid), 2 usage error.`

  static override examples = ['<%= config.bin %> activate com.example.weather-station 1.4.1 --data-root ~/.svc']

  static override args = {
    id: Args.string({description: 'The plugin id.', required: true}),
    version: Args.string({description: 'The installed version to activate.', required: true}),
  }

  static override flags = {
    'data-root': Flags.string({...dataRootOptions, description: 'The host data directory.', required: true}),
  }

  async run(): Promise<void> {
    const {id, version} = this.args
    const result = await activate(this.flags['data-root'], id, version)
    if (this.flags.json) {
      this.outJson(result)
      return
    }
    if (result.previousVersion === result.version) {
      this.out(`${result.id} ${result.version} is already the active version; nothing changed.`)
      return
    }
    const was = result.previousVersion === null ? 'none was active' : `was ${result.previousVersion}`
    this.out(`Activated ${result.id} ${result.version} (${was})`)
  }
}
