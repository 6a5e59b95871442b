import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {ExitCode} from './exit-codes.js'
import {colorEnabled, levels, renderReport, reportFormats, validatePath} from '../src/index.js'
import {io} from './io.js'
import {choiceFlag, protocolFlag} from './flags.js'

export default class Validate extends BaseCommand<typeof Validate> {
  static override summary = 'Check a plugin manifest, a plugin folder or an artifact and report every problem.'
  static override description = `Reads manifest.json strictly (UTF-8 without BOM, no comments, no trailing commas, no duplicate keys) and checks it against the schema and every rule of its level, reporting every independent problem in one run.

The subject is PATH (a manifest file, a plugin folder or a .svcPlugin artifact, told apart by what it is on disk) or one of --manifest, --directory, --artifact; with none, ./manifest.json. Give at most one.

Levels are cumulative: development (every runtime field and shape rule; the implied level of a manifest or folder), package (plus the packaged content: entrypoint executables, icon, multi-RID layout, files[] against real bytes; the implied level of an artifact), publication (missing store metadata becomes an error).

Output (stdout): text lines "<severity> <code>: <message> [<pointer>] (<requiredBy>)" each followed by "  at <file>:<line>:<column>", then "<id> <version>: N errors, M warnings."; the root pointer is shown as [/]. --format json prints {valid, pluginId, version, level, file, problems}; sarif prints a SARIF 2.1.0 log; github prints GitHub Actions annotations. Colour only on a terminal, never with NO_COLOR or --no-color.

Exit status: 0 valid (warnings allowed), 1 at least one error, 2 usage error (unknown level or format, more than one subject), 3 the subject does not exist or cannot be read.`

  static override examples = [
    {description: 'Validate ./manifest.json at development level.', command: '<%= config.bin %> validate'},
    {description: 'Validate a plugin folder with everything it packs.', command: '<%= config.bin %> validate ./plugin --level package'},
    {description: 'Check that a manifest is ready for the store.', command: '<%= config.bin %> validate --manifest plugin/manifest.json --level publication'},
    {description: 'Annotate a pull request from a GitHub Actions step.', command: '<%= config.bin %> validate --directory plugin --format github'},
    {description: 'Upload to code scanning.', command: '<%= config.bin %> validate plugin --format sarif > svc-plugin.sarif'},
    {description: 'Machine-readable report.', command: '<%= config.bin %> validate plugin/manifest.json --json'},
  ]

  static override args = {
    PATH: Args.string({description: 'A manifest file, a plugin folder or a .svcPlugin artifact (detected from what is on disk).', required: false}),
  }

  static override flags = {
    manifest: Flags.string({char: 'm', description: 'Validate this manifest.json file.', helpValue: '<file>'}),
    directory: Flags.string({char: 'd', description: 'Validate the plugin folder holding manifest.json.', helpValue: '<dir>'}),
    artifact: Flags.string({char: 'a', description: 'Validate a .svcPlugin artifact.', helpValue: '<file>'}),
    level: choiceFlag(levels)({char: 'l', description: 'Requirement level (default: development for a manifest or folder, package for an artifact).'}),
    format: choiceFlag(reportFormats)({char: 'f', description: 'Output format (default: text; --json is --format json).'}),
    rid: Flags.string({description: "The host runtime identifier whose entrypoint must be on disk (default: this machine's, e.g. linux-x64).", helpValue: '<rid>'}),
    'host-version': Flags.string({description: 'Preview an install on a host of this version: judge compatibility.svc against it.', helpValue: '<version>'}),
    protocol: protocolFlag({description: 'Preview an install on a host serving these protocol majors (MIN-MAX): judge compatibility.protocol against them.'}),
  }

  async run(): Promise<void> {
    const {PATH} = this.args
    const {manifest, directory, artifact, level, format: formatFlag, json, quiet, rid, protocol, 'host-version': hostVersion} = this.flags
    if (json && formatFlag !== undefined && formatFlag !== 'json') this.error(`--json conflicts with --format ${formatFlag}.`, {exit: ExitCode.usage})
    const format = json ? 'json' : (formatFlag ?? 'text')
    // An error thrown below (missing file, two subjects) is printed as JSON too when JSON was asked for.
    if (format === 'json') this.flags.json = true
    const host = {...(rid === undefined ? {} : {rid}), ...(hostVersion === undefined ? {} : {hostVersion}), ...(protocol === undefined ? {} : {protocol})}
    const report = await validatePath({manifest, directory, artifact, path: PATH}, {...(level === undefined ? {} : {level}), host})
    const text = renderReport(report, format, {
      color: colorEnabled({isTTY: io.stdout.isTTY, env: process.env, noColor: this.flags['no-color']}),
      errorsOnly: quiet,
      toolVersion: this.config.version,
    })
    io.stdout.write(text)
    this.setExit(report.valid ? ExitCode.success : ExitCode.invalid)
  }
}
