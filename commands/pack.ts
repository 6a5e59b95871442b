import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {ExitCode} from './exit-codes.js'
import {choiceFlag} from './flags.js'
import {formatBytes, progressBar} from './progress.js'
import {PackError, levels, pack, renderReport, type PackProgress, type PackResult} from '../src/index.js'

/** Trees at least this large get a progress bar (when stderr is a terminal). */
const progressThresholdBytes = 64 * 1024 * 1024

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
    source: Args.directory({description: 'Plugin folder holding manifest.json.', default: '.'}),
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
    const {source} = this.args
    const {output, force, json, quiet, level} = this.flags
    const dryRun = this.flags['dry-run']
    const showDigest = this.flags['show-digest']
    const bar = progressBar('pack', !json && !quiet)
    let result: PackResult
    try {
      result = await pack(source, {
        ...(output === undefined ? {} : {output}),
        ...(level === undefined ? {} : {level}),
        allowSecrets: this.flags['allow-secret'] ?? [],
        force,
        dryRun,
        onProgress: (progress: PackProgress) => {
          if (progress.totalBytes < progressThresholdBytes) return
          bar.update(progress.bytes, progress.totalBytes, `${progress.phase} ${progress.files}/${progress.totalFiles} files, ${formatBytes(progress.bytes)}`)
        },
      })
    } catch (error) {
      bar.finish()
      if (error instanceof PackError && error.report) {
        const text = error.code === 'secret-detected' ? '' : renderReport(error.report, 'text')
        this.fail(error.code, error.message, ExitCode.invalid, {details: error.details, extra: {report: error.report}, text})
      }
      throw error
    }
    bar.finish()
    const digest = showDigest ? result.artifactDigest : null
    if (result.problems.length > 0) this.setExit(ExitCode.invalid)
    if (json) {
      this.outJson({
        path: result.path,
        id: result.id,
        version: result.version,
        entries: result.entries,
        uncompressedBytes: result.uncompressedBytes,
        bytes: result.bytes,
        sha256: result.sha256,
        dryRun: result.dryRun,
        ...(result.dryRun ? {files: result.files} : {}),
        leftOut: result.leftOut,
        secrets: result.secrets,
        createdFolder: result.createdFolder,
        ...(digest ? {artifactDigest: `sha256:${digest.sha256}`, artifactDigestText: digest.text} : {}),
        problems: result.problems,
        warnings: result.warnings,
      })
      return
    }
    if (result.createdFolder !== null) this.note(`Created ${result.createdFolder} to hold the artifact.`)
    for (const warning of result.warnings) this.note(`warning ${warning.code}: ${warning.message}`)
    for (const secret of result.secrets) {
      if (!result.dryRun) this.note(`warning secret-allowed: ${secret.path}${secret.line === null ? '' : ` (line ${secret.line})`} holds ${secret.what}; packed because --allow-secret names it.`)
    }
    if (dryRun) {
      for (const file of result.files) this.out(`${String(file.size).padStart(12)}  ${file.path}`)
      for (const file of result.leftOut) this.out(`${'left out'.padStart(12)}  ${file} (operating-system file)`)
      if (digest) this.out(`artifact digest sha256:${digest.sha256}`)
      for (const problem of result.problems) this.errorLine(`error ${problem.code}: ${problem.message}`)
      if (result.problems.length > 0) {
        const secrets = result.problems.some((problem) => problem.code === 'secret-detected') ? ' To pack a file that holds a secret on purpose, pass --allow-secret <path>.' : ''
        this.note(`Would refuse ${result.id} ${result.version}: ${result.problems.length} ${result.problems.length === 1 ? 'problem' : 'problems'} above; nothing was written.${secrets}`)
        return
      }
      this.note(`Would pack ${result.id} ${result.version} -> ${result.path} (${result.entries} entries, ${result.uncompressedBytes} bytes uncompressed).`)
      return
    }
    if (result.leftOut.length > 0) this.note(`Left out ${result.leftOut.length} operating-system ${result.leftOut.length === 1 ? 'file' : 'files'} (${result.leftOut.slice(0, 3).join(', ')}${result.leftOut.length > 3 ? ', …' : ''}).`)
    this.out(`Packed ${result.id} ${result.version} -> ${result.path} (${result.entries} entries, ${result.uncompressedBytes} bytes uncompressed).`)
    if (digest) this.out(`artifact digest sha256:${digest.sha256}`)
  }
}
