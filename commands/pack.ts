import {Flags} from '@oclif/core'
import {packCommand} from './actions/pack.js'
import {BaseCommand} from './base.js'
import {choiceFlag, stringArgument} from './flags.js'
import {levels} from '#cli'

export default class Pack extends BaseCommand<typeof Pack> {
  static override summary = 'Pack a plugin folder into a deterministic .svcPlugin artifact.'
  static override description = `Validates SOURCE/manifest.json (development level), collects every regular file except manifest.json, *.svcPlugin, .git/ and what .svcpluginignore lists, hashes each file into a fresh files[] list, derives languages from Localization/**/*.resx and writes <id>-<version>.svcPlugin: the same bytes for the same tree on any machine.

Operating-system files (.DS_Store, Thumbs.db, desktop.ini, __MACOSX/, ._*) are left out; --dry-run lists them. A package that would ship a secret (a private key, a .env file, a credential such as a cloud access key or an npm token) is refused and nothing is written: remove the file, list it in .svcpluginignore, or pass --allow-secret <path> if it is meant to ship. --level package or publication refuses an artifact that would fail that level, as the store would.

--output may name a file (its missing folders are created) or an existing folder (the artifact goes into it as <id>-<version>.svcPlugin).

Exit status: 0 packed (warnings allowed), 1 the manifest, the tree or the package was refused (a dry run that would be refused too), 2 usage error or the output exists without --force, 3 SOURCE has no manifest.json or cannot be read, 5 the output cannot be written.`

  static override examples = [
    '<%= config.bin %> pack',
    '<%= config.bin %> pack ./build/plugin --output dist/weather.svcPlugin --force',
    '<%= config.bin %> pack ./build/plugin --dry-run',
    '<%= config.bin %> pack ./build/plugin --json',
    '<%= config.bin %> pack ./build/plugin --output dist/ --level publication',
    '<%= config.bin %> pack ./build/plugin --allow-secret certs/test-only.key',
  ]

  static override args = {
    source: stringArgument({description: 'Plugin folder holding manifest.json.', default: '.'}),
  }

  static override flags = {
    output: Flags.string({char: 'o', description: 'Artifact path, or an existing folder to write <id>-<version>.svcPlugin into (default: the working directory).'}),
    force: Flags.boolean({char: 'f', description: 'Replace an existing output file.', default: false}),
    'dry-run': Flags.boolean({description: 'List what would be packed (path, size) and the warnings; write nothing.', default: false}),
    'show-digest': Flags.boolean({description: 'Also print the canonical artifact digest (what a signature will cover).', default: false}),
    level: choiceFlag(levels)({
      char: 'l',
      description: 'Refuse the artifact unless it passes this validation level (default: development; package-level findings are warnings).',
    }),
    'allow-secret': Flags.string({
      description: 'Pack this file although a secret was found in it (its path inside the plugin folder; repeat for several).',
      helpValue: '<path>',
      multiple: true,
    }),
  }

  async run(): Promise<void> {
    this.setExit(await packCommand(this.input, this.context))
  }
}
