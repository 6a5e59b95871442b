import {reproduce, type ReproduceDifference} from '#cli'
import {commandSignal} from '../command-process.js'
import {ExitCode, exitStatusOfCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** The arguments and flags of `svc-plugin pack SOURCE --reproduce ARTIFACT`, as parsed. */
export interface ReproduceInput {
  readonly source: string
  readonly artifact: string
  readonly json: boolean
}

/**
 * `svc-plugin pack SOURCE --reproduce ARTIFACT`: rebuilds the artifact from the folder without writing
 * anything; 0 and `reproduced` when they are equal, 1 and `error not-reproduced` naming the first
 * difference otherwise. With `--json`: `{reproduced, artifact, source, difference}` on stdout either way.
 */
export async function reproduceCommand({source, artifact, json}: ReproduceInput, context: ActionContext): Promise<ExitCode> {
  const result = await reproduce(source, artifact, {signal: commandSignal()})
  const status = result.difference === null ? ExitCode.success : exitStatusOfCode('not-reproduced')
  if (json) context.output.outJson({reproduced: result.reproduced, artifact: result.artifact, source: result.source, difference: result.difference})
  if (result.difference === null) {
    if (!json) context.output.out(`reproduced: ${result.artifact} is what pack builds from ${result.source}${result.signed ? ' (its signed content; the signing files set aside)' : ''}.`)
    return status
  }
  context.output.errorLine(`error not-reproduced: ${result.artifact} is not what pack builds from ${result.source}: ${describeDifference(result.difference)}.`)
  return status
}

/** One phrase for people: what differs first between the rebuild and the artifact. */
function describeDifference(difference: ReproduceDifference): string {
  const {entry, pointer} = difference
  const values = `(rebuilt ${shown(difference.expected)}, artifact ${shown(difference.actual)})`
  switch (difference.kind) {
    case 'missing-entry':
      return `the rebuild has ${entry}, which the artifact does not hold`
    case 'extra-entry':
      return `the artifact holds ${entry}, which the rebuild does not`
    case 'content':
      return `the content of ${entry} differs ${values}`
    case 'mode':
      return `the mode of ${entry} differs ${values}`
    case 'method':
      return `${entry} is deflated in the artifact; pack stores it`
    case 'manifest':
      if (pointer === '' && difference.expected === undefined) return 'the manifest holds the same members written differently, or is no JSON object'
      return `the manifest's ${pointer} differs ${values}`
  }
}

function shown(value: unknown): string {
  if (value === undefined) return 'absent'
  const text = JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
