import {Flags} from '@oclif/core'
import {initCommand} from './actions/init.js'
import {BaseCommand} from './base.js'
import {stringArgument} from './flags.js'

/** `svc-plugin init [DIR]`: the library `initPlugin`. */
export default class Init extends BaseCommand<typeof Init> {
  static override summary = 'Create a new plugin folder that validates: manifest.json, .svcpluginignore, a placeholder entrypoint per runtime.'
  static override description = `Writes DIR/manifest.json, DIR/.svcpluginignore and a placeholder entrypoint per runtime (DIR is created when missing). The folder validates at package level: manifestVersion, id, name, version, the publisher when given, and one entrypoint per runtime, each with its placeholder.

"$schema" is the path from DIR to node_modules/svc-plugin/schema/manifest.schema.json of the nearest project above DIR (a folder with package.json) that depends on svc-plugin (dependencies or devDependencies), so that an editor completes and checks the manifest on every machine the project is checked out on. When no project does, the manifest has no "$schema" and init says how to add one: npm install --save-dev svc-plugin, then the line.

On a terminal (stdin and stdout), init asks for the id, the name, the publisher and the runtimes that no flag gave, with the defaults shown (Enter takes one); --yes asks nothing. Without a terminal it never asks. Defaults come from the folder's name: weather-station gives the id com.example.weather-station, the name "Weather Station", version 0.1.0, no publisher, and the entrypoint runtimes/<rid>/weather-station for this machine's runtime identifier (.exe for a win-* RID), where init writes a placeholder for the build to replace (none with --entrypoint, which needs exactly one runtime).

Nothing is ever overwritten: when any of these files exists, init writes nothing (output-exists).

Exit status: 0 written, 2 a file exists or a value would not validate (invalid-argument), 5 the folder cannot be written.`

  static override examples = [
    '<%= config.bin %> init weather-station',
    '<%= config.bin %> init ./plugin --yes --publisher "Example Labs" --rid linux-x64,win-x64,osx-arm64',
    '<%= config.bin %> init ./plugin --id com.example.weather --name "Weather" --rid win-x64 --entrypoint bin/Weather.exe',
  ]

  static override args = {
    dir: stringArgument({description: 'The plugin folder (created when missing).', default: '.'}),
  }

  static override flags = {
    id: Flags.string({description: 'The plugin id (default: com.example.<folder name>).', helpValue: '<id>'}),
    name: Flags.string({description: 'The display name (default: the folder name in words).', helpValue: '<name>'}),
    version: Flags.string({description: 'The version (default: 0.1.0).', helpValue: '<semver>'}),
    publisher: Flags.string({description: "The publisher's name (default: none).", helpValue: '<name>'}),
    rid: Flags.string({description: "The runtime identifiers with an entrypoint, comma-separated (default: this machine's, e.g. linux-x64).", helpValue: '<rid,…>'}),
    entrypoint: Flags.string({description: 'The executable of the one runtime, relative to the folder (default: runtimes/<rid>/<folder name>).', helpValue: '<path>'}),
    yes: Flags.boolean({char: 'y', description: 'Ask nothing on a terminal: take the defaults for what no flag gives.', default: false}),
  }

  async run(): Promise<void> {
    this.setExit(await initCommand(this.input, this.context))
  }
}
