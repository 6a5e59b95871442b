import type {LockHolder} from '#cli'
import type {CommandOutput} from './output.js'

/**
 * What `install`, `activate` and `uninstall` say once another operation on the same plugin has held it for a
 * second: that they wait, and for whom, rather than waiting in silence for as long as the lock is held.
 */
export function sayWhileWaiting(output: CommandOutput): (wait: {id: string; holder: LockHolder | null}) => void {
  return ({id, holder}) => {
    const who = holder === null ? '' : ` (process ${holder.pid} on ${holder.host})`
    output.note(`Waiting for another operation on ${id} to finish${who}; Ctrl-C stops waiting.`)
  }
}
