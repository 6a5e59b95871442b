import {developPlugin, findRepositoryRoot, plural, subjectsTextLines, type DevelopRound} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode, exitCodeFor} from '../exit-codes.js'
import {reportFailure} from '../failure.js'
import {errorProblem, warningProblem} from '../json-result.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Dev from '../dev.js'

/** The arguments and flags of `svc-plugin dev`, as oclif parsed them from the declarations of {@link Dev}. */
export type DevInput = CommandInput<typeof Dev>

/**
 * `svc-plugin dev`: the development loop (the library `developPlugin`), one line per round. Ctrl-C (or a
 * TERM) ends it once the round under way is done, with exit status 0: stopping is how the loop is meant to
 * end. With `--once`, the status of its one round: 0 installed, 1 invalid, a refusal's own otherwise.
 */
export async function devCommand({args: {folder}, flags}: DevInput, context: ActionContext): Promise<ExitCode> {
  const {output} = context
  const signal = commandSignal()
  // The install warnings last shown: the same ones are not repeated round after round.
  const shown = {warnings: ''}
  if (!flags.once) output.note(`Watching ${folder}; each valid change is installed into ${flags['data-root']}. Ctrl-C stops.`)
  const summary = await developPlugin(folder, {
    dataRoot: flags['data-root'],
    signal,
    once: flags.once,
    ...(flags.rid === undefined ? {} : {hostRid: flags.rid}),
    onRound: (round) => (flags.json ? output.outJson(roundJson(round)) : printRound(round, context, {quiet: flags.quiet, shown})),
  })
  if (!flags.once || summary.last === null) return ExitCode.success
  const last = summary.last
  return last.outcome === 'installed' ? ExitCode.success : last.outcome === 'invalid' ? ExitCode.invalid : exitCodeFor(last.error)
}

/** One round as text: the problems as validate prints them, the install's warnings when they changed, then the round's line. */
function printRound(round: DevelopRound, {output, version, codePages}: ActionContext, {quiet, shown}: {quiet: boolean; shown: {warnings: string}}): void {
  if (round.report !== null && round.report.problems.length > 0) {
    const options = {errorsOnly: quiet, toolVersion: version, codePages: codePages ?? null, root: findRepositoryRoot(process.cwd()) ?? process.cwd(), single: true, maxWarnings: -1}
    output.outAlways(subjectsTextLines([round.report], options))
  }
  if (round.outcome === 'installed') {
    const warnings = round.warnings.map((warning) => `warning ${warning.code}: ${warning.message}${warning.blocking ? ' (blocks auto-start)' : ''}`)
    if (warnings.join('\n') !== shown.warnings) output.note(warnings)
    shown.warnings = warnings.join('\n')
    output.out(`installed ${round.id} ${round.version} (dev) in ${round.durationMs} ms`)
    return
  }
  const kept = round.kept === null ? 'nothing installed yet' : `kept ${round.kept.version}`
  if (round.outcome === 'invalid') {
    output.outAlways(`${plural(round.errors, 'error')}; ${kept}`)
    return
  }
  reportFailure({code: round.error.code, message: round.error.message, json: false})
  output.outAlways(`refused (${round.error.code}); ${kept}`)
}

/** One round as a JSON document (`--json`: one per round). */
function roundJson(round: DevelopRound): Record<string, unknown> {
  const common = {outcome: round.outcome, changed: round.changed, durationMs: round.durationMs, problems: (round.report?.problems ?? []).map((problem) => (problem.severity === 'error' ? errorProblem(problem) : warningProblem(problem)))}
  switch (round.outcome) {
    case 'installed':
      return {...common, id: round.id, version: round.version, directory: round.install.directory, warnings: round.warnings.map(warningProblem)}
    case 'invalid':
      return {...common, errors: round.errors, kept: round.kept}
    case 'refused':
      return {...common, error: {code: round.error.code, message: round.error.message}, kept: round.kept}
  }
}
