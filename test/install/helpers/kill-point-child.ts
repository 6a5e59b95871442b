/**
 * A process that runs one installer operation and kills itself with SIGKILL right before its N-th change
 * to the disk (every change the installer makes goes through src/fs/mutations.ts, which calls a hook
 * before each). The kill-point tests' child. Everything comes from argv (one JSON object), nothing from
 * the environment:
 *   {"operation": KillPointOperation, "killBefore": N}
 * When it is not killed it prints `{"ok": true, "mutations": n}` or `{"ok": false, "code": …, "mutations": n}`.
 */
import {isSvcPluginError} from '../../../src/errors.js'
import {setMutationHook} from '../../../src/fs/mutations.js'
import {runOperation, type KillPointOperation} from './kill-point-operations.js'

/** What the parent asks of the child. */
export interface KillPointRequest {
  operation: KillPointOperation
  /** The 1-based ordinal of the mutation the process dies before. */
  killBefore: number
}

const request = JSON.parse(process.argv[2] ?? '{}') as KillPointRequest
let mutations = 0
setMutationHook((_mutation, ordinal) => {
  mutations = ordinal
  if (ordinal === request.killBefore) process.kill(process.pid, 'SIGKILL')
})

try {
  await runOperation(request.operation)
  process.stdout.write(`${JSON.stringify({ok: true, mutations})}\n`)
} catch (error) {
  const code = isSvcPluginError(error) ? error.code : 'internal'
  process.stdout.write(`${JSON.stringify({ok: false, code, message: error instanceof Error ? error.message : String(error), mutations})}\n`)
  process.exitCode = 1
}
