import {PackError, formatMiB, pack, plural, subjectsTextLines, type PackProgress, type PackResult} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode} from '../exit-codes.js'
import {reportFailure} from '../failure.js'
import {progressBar} from '../progress.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Pack from '../pack.js'

/** Trees at least this large get a progress bar (when stderr is a terminal). */
const progressThresholdBytes = 64 * 1024 * 1024

/** The arguments and flags of `svc-plugin pack`, as oclif parsed them from the declarations of {@link Pack}. */
export type PackInput = CommandInput<typeof Pack>

/** `svc-plugin pack`: packs the plugin folder (or lists what it would pack), prints what it did and gives the exit status. */
export async function packCommand({args, flags}: PackInput, context: ActionContext): Promise<ExitCode> {
  const {source} = args
  if (flags.reproduce !== undefined) {
    // Loaded only when asked for: comparing with an artifact needs the ZIP reader, which packing does not.
    const {reproduceCommand} = await import('./reproduce.js')
    return reproduceCommand({source, artifact: flags.reproduce, json: flags.json}, context)
  }
  const {output, force, json, quiet, level} = flags
  const dryRun = flags['dry-run']
  const showDigest = flags['show-digest']
  const bar = progressBar('pack', !json && !quiet)
  let result: PackResult
  try {
    result = await pack(source, {
      ...(output === undefined ? {} : {output}),
      ...(level === undefined ? {} : {level}),
      allowSecrets: flags['allow-secret'] ?? [],
      force,
      dryRun,
      signal: commandSignal(),
      onProgress: (progress: PackProgress) => {
        if (progress.totalBytes < progressThresholdBytes) return
        bar.update(progress.bytes, progress.totalBytes, `${progress.phase} ${progress.files}/${progress.totalFiles} files, ${formatMiB(progress.bytes)}`)
      },
    })
  } catch (error) {
    bar.finish()
    if (error instanceof PackError && error.report) {
      // A secret refusal's message lists the secrets, one a line (their paths passed the entry-path
      // policy: no line break of their own), and says all the report would.
      const secrets = error.code === 'secret-detected'
      const text = secrets ? [] : subjectsTextLines([error.report], {})
      reportFailure({code: error.code, message: error.message, ...(secrets ? {messageLines: error.message.split('\n')} : {}), json, details: error.details, extra: {report: error.report}, text})
      return ExitCode.invalid
    }
    throw error
  }
  bar.finish()
  const digest = showDigest ? result.artifactDigest : null
  const status = result.problems.length > 0 ? ExitCode.invalid : ExitCode.success
  if (json) {
    context.output.outJson({
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
    return status
  }
  if (result.createdFolder !== null) context.output.note(`Created ${result.createdFolder} to hold the artifact.`)
  for (const warning of result.warnings) context.output.note(`warning ${warning.code}: ${warning.message}`)
  for (const secret of result.secrets) {
    if (!result.dryRun) context.output.note(`warning secret-allowed: ${secret.path}${secret.line === null ? '' : ` (line ${secret.line})`} holds ${secret.what}; packed because --allow-secret names it.`)
  }
  if (dryRun) {
    for (const file of result.files) context.output.out(`${formatMiB(file.size).padStart(16)}  ${file.path}`)
    for (const file of result.leftOut) context.output.out(`${'left out'.padStart(16)}  ${file} (operating-system file)`)
    if (digest) context.output.out(`artifact digest sha256:${digest.sha256}`)
    for (const problem of result.problems) context.output.errorLine(`error ${problem.code}: ${problem.message}`)
    if (result.problems.length > 0) {
      const secrets = result.problems.some((problem) => problem.code === 'secret-detected') ? ' To pack a file that holds a secret on purpose, pass --allow-secret <path>.' : ''
      context.output.note(`Would refuse ${result.id} ${result.version}: ${plural(result.problems.length, 'problem')} above; nothing was written.${secrets}`)
      return status
    }
    context.output.note(`Would pack ${result.id} ${result.version} -> ${result.path} (${plural(result.entries, 'entry', 'entries')}, ${formatMiB(result.uncompressedBytes)} uncompressed).`)
    return status
  }
  if (result.leftOut.length > 0) context.output.note(`Left out ${plural(result.leftOut.length, 'operating-system file')} (${result.leftOut.slice(0, 3).join(', ')}${result.leftOut.length > 3 ? ', …' : ''}).`)
  context.output.out(`Packed ${result.id} ${result.version} -> ${result.path} (${plural(result.entries, 'entry', 'entries')}, ${formatMiB(result.uncompressedBytes)} uncompressed).`)
  if (digest) context.output.out(`artifact digest sha256:${digest.sha256}`)
  return status
}
