import {Flags} from '@oclif/core'
import {validateCommand} from './actions/validate.js'
import {BaseCommand} from './base.js'
import {codePagesFolder, levels, reportFormats} from '../src/index.js'
import {choiceFlag, countFlag, protocolFlag, stringArgument} from './flags.js'

export default class Validate extends BaseCommand<typeof Validate> {
  static override summary = 'Check plugin manifests, plugin folders or artifacts and report every problem.'
  static override description = `Reads manifest.json strictly (UTF-8 without BOM, no comments, no trailing commas, no duplicate keys) and checks it against the schema and every rule of its level, reporting every independent problem in one run.

The subject is PATH (a manifest file, a plugin folder or a .svcPlugin artifact, told apart by what it is on disk) or one of --manifest, --directory, --artifact; with none, ./manifest.json. Several PATHs and glob patterns ('plugins/*', 'dist/*.svcPlugin', quoted so that svc-plugin expands them) validate every subject in one run and report each; a subject that cannot be read is reported and the others are still judged.

Levels are cumulative: development (every runtime field and shape rule; the implied level of a manifest or folder), package (plus the packaged content: entrypoint executables, icon, multi-RID layout, files[] against real bytes; the implied level of an artifact), publication (missing store metadata becomes an error).

Output (stdout): text lines "<severity> <code>: <message> [<pointer>] (<requiredBy>)" each followed by "  at <file>:<line>:<column>", then "<id> <version>: N errors, M warnings."; the root pointer is shown as [/]. A problem is placed in the file it is in: the manifest, or another file of the package (a secret at plugin/config/app.js:3). --format json prints {valid, id, version, level, path, file, problems} for one subject and {valid, subjects} for several PATHs or a pattern (docs/json/validate.schema.json); sarif prints a SARIF 2.1.0 log for code scanning, its URIs relative to the repository root (the enclosing git work tree, or --root); github prints GitHub Actions annotations, and the default format is github when GITHUB_ACTIONS=true, with a summary table appended to $GITHUB_STEP_SUMMARY when that is set; junit prints JUnit XML (a test suite per subject, named by its path, with a test case per problem); gitlab prints a GitLab Code Quality report. Colour only on a terminal, never with NO_COLOR or --no-color.

--max-warnings <n> fails the run when its subjects have more than n warnings together, as ESLint's flag does: the text ends with "error too-many-warnings: …", --json adds maxWarnings: {limit, warnings, exceeded}, and every other format reports too-many-warnings. 0 allows no warning; -1, the default, any number.

Every code is explained, with an example and a fix, in ${codePagesFolder}/<code>.md (shipped with the package; schema:<keyword> as schema-<keyword>.md).

Exit status: 0 valid (warnings allowed, up to --max-warnings), 1 at least one error or more warnings than --max-warnings allows, 2 usage error (unknown level or format, more than one way of naming the subject), 3 a subject does not exist or cannot be read; with several subjects, the worst of them. sarif, github, junit and gitlab still print their document when a subject cannot be read.`

  static override examples = [
    {description: 'Validate ./manifest.json at development level.', command: '<%= config.bin %> validate'},
    {description: 'Validate a plugin folder with everything it packs.', command: '<%= config.bin %> validate ./plugin --level package'},
    {description: 'Check that a manifest is ready for the store.', command: '<%= config.bin %> validate --manifest plugin/manifest.json --level publication'},
    {description: 'Validate every plugin of a monorepo in one call.', command: "<%= config.bin %> validate 'plugins/*'"},
    {description: 'Fail CI on anything pack would refuse, and on any warning.', command: "<%= config.bin %> validate 'plugins/*' --level package --max-warnings 0"},
    {description: 'Annotate a pull request from a GitHub Actions step.', command: '<%= config.bin %> validate --directory plugin --format github'},
    {description: 'Upload to code scanning.', command: '<%= config.bin %> validate plugin --format sarif > svc-plugin.sarif'},
    {description: 'A GitLab Code Quality report.', command: "<%= config.bin %> validate 'plugins/*' --format gitlab > gl-code-quality-report.json"},
    {description: 'Machine-readable report.', command: '<%= config.bin %> validate plugin/manifest.json --json'},
  ]

  static override strict = false

  static override args = {
    PATH: stringArgument({description: 'Manifest files, plugin folders, .svcPlugin artifacts (detected from what is on disk) or glob patterns; several may be given.', required: false}),
  }

  static override flags = {
    manifest: Flags.string({char: 'm', description: 'Validate this manifest.json file.', helpValue: '<file>'}),
    directory: Flags.string({char: 'd', description: 'Validate the plugin folder holding manifest.json.', helpValue: '<dir>'}),
    artifact: Flags.string({char: 'a', description: 'Validate a .svcPlugin artifact.', helpValue: '<file>'}),
    level: choiceFlag(levels)({char: 'l', description: 'Requirement level (default: development for a manifest or folder, package for an artifact).'}),
    format: choiceFlag(reportFormats)({char: 'f', description: 'Output format (default: text, or github when GITHUB_ACTIONS=true; --json is --format json).'}),
    root: Flags.string({description: 'The repository root that sarif, github and gitlab paths are relative to (default: the enclosing git work tree, else the current folder).', helpValue: '<dir>'}),
    rid: Flags.string({description: "The host runtime identifier whose entrypoint must be on disk (default: this machine's, e.g. linux-x64).", helpValue: '<rid>'}),
    'host-version': Flags.string({description: 'Preview an install on a host of this version: judge compatibility.svc against it.', helpValue: '<version>'}),
    protocol: protocolFlag({description: 'Preview an install on a host serving these protocol majors (MIN-MAX): judge compatibility.protocol against them.'}),
    'max-warnings': countFlag(-1)({description: 'Fail (exit status 1) when the run finds more warnings than this, as ESLint does; 0 allows none, -1 (the default) any number.', default: -1}),
  }

  async run(): Promise<void> {
    this.setExit(await validateCommand({flags: this.flags, argv: this.positionals}, this.context))
  }
}
