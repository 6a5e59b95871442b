/**
 * A process that runs one `install` and can kill itself (SIGKILL) at a progress step: the concurrency and
 * leftover tests' child (kills at each change to disk are kill-point-child.ts's). Everything comes from
 * argv (one JSON object), nothing from the environment:
 *   {"artifact": "...", "options": {...InstallOptions, "now"?: ISO string}, "killAt"?: {"step": "promoted", "occurrence"?: 1}}
 * Prints `{"ok": true, "result": …}` or `{"ok": false, "code": …}` on stdout.
 */
import {install} from '../../../src/install/install.js'
import type {InstallOptions, InstallStep} from '../../../src/install/types.js'
import {isSvcPluginError} from '../../../src/errors.js'

/** What the parent asks of the child. */
export interface ChildRequest {
  artifact: string
  options: Omit<InstallOptions, 'now' | 'onProgress'> & {now?: string}
  killAt?: {step: InstallStep; occurrence?: number}
}

const request = JSON.parse(process.argv[2] ?? '{}') as ChildRequest
let seen = 0

try {
  const {now, ...options} = request.options
  const result = await install(request.artifact, {
    ...options,
    ...(now === undefined ? {} : {now: new Date(now)}),
    onProgress: ({step}) => {
      const killAt = request.killAt
      if (killAt === undefined || step !== killAt.step) return
      seen += 1
      if (seen === (killAt.occurrence ?? 1)) process.kill(process.pid, 'SIGKILL')
    },
  })
  process.stdout.write(`${JSON.stringify({ok: true, result})}\n`)
} catch (error) {
  const code = isSvcPluginError(error) ? error.code : 'internal'
  process.stdout.write(`${JSON.stringify({ok: false, code, message: error instanceof Error ? error.message : String(error)})}\n`)
  process.exitCode = 1
}
