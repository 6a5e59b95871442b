import {Flags} from '@oclif/core'
import {initCommand} from './actions/init.js'
import {BaseCommand} from './base.js'
import {stringArgument} from './flags.js'

/** `svc-plugin init [DIR]`: the library `initPlugin`. */
export default class Init extends BaseCommand<typeof Init> {
  static override summary = 'Create a new plugin folder that validates: manifest.json, .svcpluginignore, a placeholder entrypoint.'
  static override description = `Writes DIR/manifest.json, DIR/.svcpluginignore and a placeholder entrypoint (DIR is created when missing). The manifest validates at development level: manifestVersion, id, name, version and one entrypoint, plus "$schema", the path from DIR to the manifest schema of the svc-plugin package that ran init, so that an editor completes and checks the manifest (svc-plugin schema prints the same schema).

Defaults come from the folder's name: weather-station gives the id com.example.weather-station, the name "Weather Station", version 0.1.0 and the entrypoint runtimes/<rid>/weather-station for this machine's runtime identifier (.exe for a win-* RID), where init writes a placeholder for the build to replace (none with --entrypoint).

Nothing is ever overwritten: when any of these files exists, init writes nothing (output-exists).

Exit status: 0 written, 2 a file exists or a value would not validate (invalid-argument), 5 the folder cannot be written.`

  static override examples = [
    '<%= config.bin %> init weather-station',
    '<%= config.bin %> init ./plugin --id com.example.weather --name "Weather" --rid win-x64 --entrypoint bin/Weather.exe',
  ]

  static override args = {
    dir: stringArgument({description: 'The plugin folder (created when missing).', default: '.'}),
  }

  static override flags = {
    id: Flags.string({description: 'The plugin id (default: com.example.<folder name>).', helpValue: '<id>'}),
    name: Flags.string({description: 'The display name (default: the folder name in words).', helpValue: '<name>'}),
    version: Flags.string({description: 'The version (default: 0.1.0).', helpValue: '<semver>'}),
    rid: Flags.string({description: "The entrypoint's runtime identifier (default: this machine's, e.g. linux-x64).", helpValue: '<rid>'}),
    entrypoint: Flags.string({description: 'The executable, relative to the folder (default: runtimes/<rid>/<folder name>).', helpValue: '<path>'}),
  }

  async run(): Promise<void> {
    this.setExit(await initCommand(this.input, this.context))
  }
}
