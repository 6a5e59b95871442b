import {Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {dataRootOptions} from './flags.js'
import {listInstalled} from '../src/index.js'

/** `svc-plugin list`: the library `listInstalled`. */
export default class List extends BaseCommand<typeof List> {
  static override summary = 'List the installed plugins.'
  static override description = `One line per plugin: id, active version (- when none), every installed version, and the trust it was admitted with. --json prints {plugins: [...]}.

Exit status: 0, 2 usage error.`

  static override examples = ['<%= config.bin %> list --data-root ~/.svc', '<%= config.bin %> list --data-root ~/.svc --json']

  static override flags = {
    'data-root': Flags.string({...dataRootOptions, description: 'The host data directory.', required: true}),
  }

  async run(): Promise<void> {
    const plugins = await listInstalled(this.flags['data-root'])
    if (this.flags.json) {
      this.outJson({plugins})
      return
    }
    for (const plugin of plugins) {
      const mismatched = plugin.mismatchedVersions.length === 0 ? '' : ` (manifest disagrees with its directory: ${plugin.mismatchedVersions.join(', ')})`
      this.out(`${plugin.id} ${plugin.activeVersion ?? '-'} [${plugin.versions.join(', ')}] ${plugin.verdict ?? 'unknown'}${plugin.pending ? ' (install pending)' : ''}${mismatched}`)
    }
    this.note(`${plugins.length} plugin(s) installed.`)
  }
}
