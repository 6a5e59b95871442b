import {uninstall} from '../../src/index.js'
import {ExitCode} from '../exit-codes.js'
import type {ActionContext} from './action.js'

/** The arguments and flags of `svc-plugin uninstall`, as parsed (by oclif, or by the direct path). */
export interface UninstallInput {
  readonly args: {readonly id: string}
  readonly flags: {readonly 'data-root': string; readonly force: boolean; readonly purge: boolean; readonly json: boolean}
}

/** `svc-plugin uninstall`: removes every version of a plugin (and with --purge its data and trust record). */
export async function uninstallCommand({args: {id}, flags}: UninstallInput, {output}: ActionContext): Promise<ExitCode> {
  const {force, purge, json} = flags
  const result = await uninstall(flags['data-root'], id, {force, purge})
  if (json) {
    output.outJson(result)
    return ExitCode.success
  }
  if (result.dependents.length > 0) output.note(`warning dependency-in-use: ${result.dependents.join(', ')} depend on ${id} and will not start.`)
  const removed = result.removedVersions.length === 0 ? 'no version' : result.removedVersions.join(', ')
  output.out(`Uninstalled ${result.id} (${removed}; ${result.purged ? 'data and trust record purged' : 'data kept'})`)
  return ExitCode.success
}
