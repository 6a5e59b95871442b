import {activate} from '#cli'
import {ExitCode} from '../exit-codes.js'
import {sayWhileWaiting} from '../lock-wait.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Activate from '../activate.js'

/** The arguments and flags of `svc-plugin activate`, as oclif parsed them from the declarations of {@link Activate}. */
export type ActivateInput = CommandInput<typeof Activate>

/** `svc-plugin activate`: makes an installed version the active one. */
export async function activateCommand({args: {id, version}, flags}: ActivateInput, {output}: ActionContext): Promise<ExitCode> {
  const result = await activate(flags['data-root'], id, version, {onLockWait: sayWhileWaiting(output)})
  if (flags.json) output.outJson(result)
  else if (result.previousVersion === result.version) output.out(`${result.id} ${result.version} is already the active version; nothing changed.`)
  else output.out(`Activated ${result.id} ${result.version} (${result.previousVersion === null ? 'none was active' : `was ${result.previousVersion}`})`)
  return ExitCode.success
}
