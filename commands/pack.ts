import {Args, Flags} from '@oclif/core'
import {BaseCommand} from './base.js'
import {ExitCode} from './exit-codes.js'
import {formatBytes, progressBar} from './progress.js'
import {PackError, pack, renderReport, type PackProgress} from '../src/index.js'

/** Trees at least this large get a progress bar (when stderr is a terminal). */
const progressThresholdBytes = 64 * 1024 * 1024

export default class Pack extends BaseCommand<typeof Pack> {
  static override summary = 'Pack a plugin folder into a deterministic .svcPlugin artifact.'
  static override description = `Validates SOURCE/manifest.json (development level), collects every regular file except manifest.json, *.svcPlugin, .git/ and what .svcpluginignore lists, hashes each file into a fresh files[] list, derives languages from Localization/**/*.resx and writes <id>-<version>.svcPlugin: the same bytes for the same tree on any machine.

Exit status: 0 packed (warnings allowed), 1 the manifest or the tree was refused, 2 usage error or the output exists without --force, 3 SOURCE has no manifest.json.`

  static override examples = [
    '<%= config.bin %> pack',
    '<%= config.bin %> pack ./build/plugin --output dist/weather.svcPlugin --force',
    '<%= config.bin %> pack ./build/plugin --dry-run',
    '<%= config.bin %> pack ./build/plugin --json',
  ]

  static override args = {
    source: Args.directory({description: 'Plugin folder holding manifest.json.', default: '.'}),
  }

  static override flags = {
    output: Flags.string({char: 'o', description: 'Artifact path (default: <id>-<version>.svcPlugin in the working directory).'}),
    force: Flags.boolean({char: 'f', description: 'Replace an existing output file.', default: false}),
    'dry-run': Flags.boolean({description: 'List what would be packed (path, size) and the warnings; write nothing.', default: false}),
    'show-digest': Flags.boolean({description: 'Also print the canonical artifact digest (what a signature will cover).', default: false}),
  }

  async run(): Promise<void> {
    const {source} = this.args
    const {output, force, json, quiet} = this.flags
    const dryRun = this.flags['dry-run']
    const showDigest = this.flags['show-digest']
    const bar = progressBar('pack', !json && !quiet)
    try {
      const result = await pack(source, {
        ...(output === undefined ? {} : {output}),
        force,
        dryRun,
        onProgress: (progress: PackProgress) => {
          if (progress.totalBytes < progressThresholdBytes) return
          bar.update(progress.bytes, progress.totalBytes, `${progress.phase} ${progress.files}/${progress.totalFiles} files, ${formatBytes(progress.bytes)}`)
        },
      })
      bar.finish()
      const digest = showDigest ? result.artifactDigest : null
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
          ...(digest ? {artifactDigest: `sha256:${digest.sha256}`, artifactDigestText: digest.text} : {}),
          warnings: result.warnings,
        })
        return
      }
      for (const warning of result.warnings) this.note(`warning ${warning.code}: ${warning.message}`)
      if (dryRun) {
        for (const file of result.files) this.out(`${String(file.size).padStart(12)}  ${file.path}`)
        if (digest) this.out(`artifact digest sha256:${digest.sha256}`)
        this.note(`Would pack ${result.id} ${result.version} -> ${result.path} (${result.entries} entries, ${result.uncompressedBytes} bytes uncompressed).`)
        return
      }
      this.out(`Packed ${result.id} ${result.version} -> ${result.path} (${result.entries} entries, ${result.uncompressedBytes} bytes uncompressed).`)
      if (digest) this.out(`artifact digest sha256:${digest.sha256}`)
    } catch (error) {
      bar.finish()
      if (error instanceof PackError && error.report) {
        this.fail(error.code, error.message, ExitCode.invalid, {details: error.details, extra: {report: error.report}, text: renderReport(error.report, 'text')})
      }
      throw error
    }
  }
}
