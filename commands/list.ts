import {Flags} from '@oclif/core'
import {listCommand} from './actions/list.js'
import {BaseCommand} from './base.js'
import {dataRootAdvice, dataRootOptions} from './flags.js'

/** `svc-plugin list`: the library `listInstalled`. */
export default class List extends BaseCommand<typeof List> {
  static override summary = 'List the installed plugins.'
  static override description = `One line per plugin: id, active version (- when none), every installed version, and the trust it was admitted with. --json prints {plugins: [...]}.

Exit status: 0, 2 usage error, 3 the data root does not exist (data-root-not-found).`

  static override advice = dataRootAdvice

  static override examples = ['<%= config.bin %> list --data-root ~/.svc', '<%= config.bin %> list --data-root ~/.svc --json']

  static override flags = {
    'data-root': Flags.string({...dataRootOptions, description: 'The host data directory.', required: true}),
  }

  async run(): Promise<void> {
    this.setExit(await listCommand({flags: this.flags}, this.context))
  }
}
