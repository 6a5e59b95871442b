import {appendFile} from 'node:fs/promises'
import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {ExitCode, exitCodeFor, worstExitCode} from './exit-codes.js'
import {
  ValidationError,
  codePagesFolder,
  colorEnabled,
  findRepositoryRoot,
  isGlobPattern,
  isSubjectFailure,
  isSvcPluginError,
  levels,
  renderStepSummary,
  renderSubjects,
  reportFormats,
  validatePath,
  validatePaths,
  type SubjectResult,
} from '../src/index.js'
import {io} from './io.js'
import {choiceFlag, protocolFlag} from './flags.js'

export default class Validate extends BaseCommand<typeof Validate> {
  static override summary = 'Check plugin manifests, plugin folders or artifacts and report every problem.'
  static override description = `Reads manifest.json strictly (UTF-8 without BOM, no comments, no trailing commas, no duplicate keys) and checks it against the schema and every rule of its level, reporting every independent problem in one run.

The subject is PATH (a manifest file, a plugin folder or a .svcPlugin artifact, told apart by what it is on disk) or one of --manifest, --directory, --artifact; with none, ./manifest.json. Several PATHs and glob patterns ('plugins/*', 'dist/*.svcPlugin', quoted so that svc-plugin expands them) validate every subject in one run and report each; a subject that cannot be read is reported and the others are still judged.

Levels are cumulative: development (every runtime field and shape rule; the implied level of a manifest or folder), package (plus the packaged content: entrypoint executables, icon, multi-RID layout, files[] against real bytes; the implied level of an artifact), publication (missing store metadata becomes an error).

Output (stdout): text lines "<severity> <code>: <message> [<pointer>] (<requiredBy>)" each followed by "  at <file>:<line>:<column>", then "<id> <version>: N errors, M warnings."; the root pointer is shown as [/]. --format json prints {valid, pluginId, id, version, level, path, file, problems} for one subject and {valid, subjects} for several PATHs or a pattern (docs/json/validate.schema.json); sarif prints a SARIF 2.1.0 log for code scanning, its URIs relative to the repository root (the enclosing git work tree, or --root); github prints GitHub Actions annotations, and the default format is github when GITHUB_ACTIONS=true, with a summary table appended to $GITHUB_STEP_SUMMARY when that is set; junit prints JUnit XML (one test case per subject); gitlab prints a GitLab Code Quality report. Colour only on a terminal, never with NO_COLOR or --no-color.

Every code is explained, with an example and a fix, in ${codePagesFolder}/<code>.md (shipped with the package; schema:<keyword> as schema-<keyword>.md).

Exit status: 0 valid (warnings allowed), 1 at least one error, 2 usage error (unknown level or format, more than one way of naming the subject), 3 a subject does not exist or cannot be read; with several subjects, the worst of them. sarif, github, junit and gitlab still print their document when a subject cannot be read.`

  static override examples = [
    {description: 'Validate ./manifest.json at development level.', command: '<%= config.bin %> validate'},
    {description: 'Validate a plugin folder with everything it packs.', command: '<%= config.bin %> validate ./plugin --level package'},
    {description: 'Check that a manifest is ready for the store.', command: '<%= config.bin %> validate --manifest plugin/manifest.json --level publication'},
    {description: 'Validate every plugin of a monorepo in one call.', command: "<%= config.bin %> validate 'plugins/*'"},
    {description: 'Annotate a pull request from a GitHub Actions step.', command: '<%= config.bin %> validate --directory plugin --format github'},
    {description: 'Upload to code scanning.', command: '<%= config.bin %> validate plugin --format sarif > svc-plugin.sarif'},
    {description: 'A GitLab Code Quality report.', command: "<%= config.bin %> validate 'plugins/*' --format gitlab > gl-code-quality-report.json"},
    {description: 'Machine-readable report.', command: '<%= config.bin %> validate plugin/manifest.json --json'},
  ]

  static override strict = false

  static override args = {
    PATH: Args.string({description: 'Manifest files, plugin folders, .svcPlugin artifacts (detected from what is on disk) or glob patterns; several may be given.', required: false}),
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
  }

  async run(): Promise<void> {
    const paths = this.positionals
    const {manifest, directory, artifact, level, format: formatFlag, json, quiet, rid, protocol, root, 'host-version': hostVersion} = this.flags
    if (json && formatFlag !== undefined && formatFlag !== 'json') this.error(`--json conflicts with --format ${formatFlag}.`, {exit: ExitCode.usage})
    const format = json ? 'json' : (formatFlag ?? (process.env.GITHUB_ACTIONS === 'true' ? 'github' : 'text'))
    // An error thrown below (missing file, two subjects) is printed as JSON too when JSON was asked for.
    if (format === 'json') this.flags.json = true
    const host = {...(rid === undefined ? {} : {rid}), ...(hostVersion === undefined ? {} : {hostVersion}), ...(protocol === undefined ? {} : {protocol})}
    const options = {...(level === undefined ? {} : {level}), host}
    // One subject named once keeps the one-report document; several PATHs or a pattern report every subject.
    const single = paths.length <= 1 && !paths.some(isGlobPattern)
    let subjects: SubjectResult[]
    if (single) {
      try {
        subjects = [await validatePath({manifest, directory, artifact, path: paths[0]}, options)]
      } catch (error) {
        // The text and JSON forms report an unreadable subject as any command reports its error; the
        // CI formats still print a whole document, which the CI step uploads.
        if (!isSvcPluginError(error) || format === 'text' || format === 'json' || exitCodeFor(error) !== ExitCode.unreadable) throw error
        subjects = [{path: paths[0] ?? manifest ?? directory ?? artifact ?? 'manifest.json', code: error.code, message: error.message, error}]
      }
    } else {
      const flags = (['manifest', 'directory', 'artifact'] as const).filter((key) => this.flags[key] !== undefined)
      if (flags.length > 0) throw new ValidationError('too-many-selectors', `Choose one way to name the subjects; got PATH arguments and ${flags.map((key) => `--${key}`).join(' and ')}.`, {details: {selectors: ['path', ...flags]}})
      subjects = await validatePaths(paths, options)
    }
    const renderOptions = {
      color: colorEnabled({isTTY: io.stdout.isTTY, env: process.env, noColor: this.flags['no-color']}),
      errorsOnly: quiet,
      toolVersion: this.config.version,
      root: root ?? findRepositoryRoot(process.cwd()) ?? process.cwd(),
      single,
    }
    io.stdout.write(renderSubjects(subjects, format, renderOptions))
    const summaryFile = process.env.GITHUB_STEP_SUMMARY
    if (format === 'github' && summaryFile !== undefined && summaryFile !== '') {
      await appendFile(summaryFile, renderStepSummary(subjects, renderOptions)).catch((error: unknown) => {
        this.note(`warning: could not append the summary to ${summaryFile}: ${error instanceof Error ? error.message : String(error)}`)
      })
    }
    this.setExit(worstExitCode(subjects.map((subject) => (isSubjectFailure(subject) ? exitCodeFor(subject.error) : subject.valid ? ExitCode.success : ExitCode.invalid))))
  }
}
