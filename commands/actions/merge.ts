import {MergeError, merge, plural, subjectsTextLines} from '../../src/index.js'
import {commandSignal} from '../command-process.js'
import {ExitCode} from '../exit-codes.js'
import {reportFailure} from '../failure.js'
import type {ActionContext} from './action.js'

/** The arguments and flags of `svc-plugin merge`, as parsed (by oclif, or by the direct path). */
export interface MergeInput {
  /** The input artifacts. */
  readonly argv: readonly string[]
  readonly flags: {readonly output: string; readonly force: boolean; readonly json: boolean}
}

/** `svc-plugin merge`: merges per-RID artifacts of one plugin version into one (unsigned). */
export async function mergeCommand({argv, flags: {output: file, force, json}}: MergeInput, {output}: ActionContext): Promise<ExitCode> {
  try {
    const result = await merge([...argv], {output: file, force, signal: commandSignal()})
    if (json) {
      output.outJson(result)
      return ExitCode.success
    }
    output.note(`note: ${result.path} is unsigned${result.droppedSignatures.length > 0 ? ` (the signatures of ${result.droppedSignatures.join(', ')} were dropped)` : ''}; sign it with svc-plugin sign before publishing.`)
    output.out(`Merged ${result.id} ${result.version} (${result.rids.join(', ')}) -> ${result.path} (${plural(result.entries, 'entry', 'entries')}).`)
    return ExitCode.success
  } catch (error) {
    if (!(error instanceof MergeError && error.report)) throw error
    reportFailure({code: error.code, message: error.message, json, details: error.details, extra: {report: error.report}, text: subjectsTextLines([error.report], {})})
    return ExitCode.invalid
  }
}
