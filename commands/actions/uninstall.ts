import {uninstall} from '#cli'
import {ExitCode} from '../exit-codes.js'
import {sayWhileWaiting} from '../lock-wait.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Uninstall from '../uninstall.js'

/** The arguments and flags of `svc-plugin uninstall`, as oclif parsed them from the declarations of {@link Uninstall}. */
export type UninstallInput = CommandInput<typeof Uninstall>

/** `svc-plugin uninstall`: removes every version of a plugin (and with --purge its data and trust record). */
export async function uninstallCommand({args: {id}, flags}: UninstallInput, {output}: ActionContext): Promise<ExitCode> {
  const {force, purge, json} = flags
  const result = await uninstall(flags['data-root'], id, {force, purge, onLockWait: sayWhileWaiting(output)})
  if (json) {
    output.outJson(result)
    return ExitCode.success
  }
  if (result.dependents.length > 0) output.note(`warning dependency-in-use: ${result.dependents.join(', ')} depend on ${id} and will not start.`)
  const removed = result.removedVersions.length === 0 ? 'no version' : result.removedVersions.join(', ')
  output.out(`Uninstalled ${result.id} (${removed}; ${result.purged ? 'data and trust record purged' : 'data kept'})`)
  return ExitCode.success
}
