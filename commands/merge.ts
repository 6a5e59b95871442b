import {Flags} from '@oclif/core'
import {mergeCommand} from './actions/merge.js'
import {BaseCommand} from './base.js'
import {stringArgument} from './flags.js'

export default class Merge extends BaseCommand<typeof Merge> {
  static override summary = 'Combine per-RID packages of one plugin version into one artifact.'
  static override description = `Reads two or more .svcPlugin artifacts of the same plugin id and version, each built for its own runtime identifiers, and writes one artifact holding every RID: the first input's manifest (inputs taken in RID order) with the union of entrypoints and a recomputed files[], written deterministically, so the same inputs in any order give the same bytes.

Every input is checked before anything is written: every byte against its own files[] (hash-mismatch, also for a file files[] does not declare), the same id and version (identity-mismatch), manifests equal apart from entrypoints, files and signature (manifest-mismatch), each RID from one input only (duplicate-rid), and a path held by two inputs — shared, or inside a RID's directory — identical in both (file-conflict). Signatures and certificate files of the inputs are dropped: sign the merged artifact afterwards.

Exit status: 0 merged, 1 the inputs were refused, 2 usage error (fewer than two artifacts, no --output) or the output exists without --force, 3 an input does not exist or is not a ZIP.`

  static override examples = [
    '<%= config.bin %> merge weather-win-x64.svcPlugin weather-linux-x64.svcPlugin weather-osx-arm64.svcPlugin --output com.example.weather-1.4.2.svcPlugin',
    '<%= config.bin %> merge build/*.svcPlugin --output dist/weather.svcPlugin --force --json',
  ]

  // Variadic: every positional argument is an input artifact (oclif 4 collects them in `argv`).
  static override strict = false

  static override args = {
    artifacts: stringArgument({description: 'Two or more .svcPlugin artifacts of one plugin version, one or more RIDs each.', required: true}),
  }

  static override flags = {
    output: Flags.string({char: 'o', description: 'Path of the merged artifact.', helpValue: '<file>', required: true}),
    force: Flags.boolean({char: 'f', description: 'Replace an existing output file.', default: false}),
  }

  async run(): Promise<void> {
    this.setExit(await mergeCommand(this.input, this.context))
  }
}
