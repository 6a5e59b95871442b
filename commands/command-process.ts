import {setFlagsFromString} from 'node:v8'
import {removeTemporaryFilesSync} from '#cli'
import {ExitCode} from './exit-codes.js'
import {CommandOutput} from './output.js'

/** The command this process runs: the AbortController its Ctrl-C aborts, and whether its action passes the signal on. */
interface RunningCommand {
  readonly controller: AbortController
  takesSignal: boolean
}

let running: RunningCommand = {controller: new AbortController(), takesSignal: false}

/**
 * Prepares the process a command runs in, whichever way its arguments were parsed: a small heap, and one
 * AbortController that Ctrl-C or a TERM from a build system aborts. When the action passed its signal to the
 * library ({@link commandSignal}), the library call undoes what it began and rejects with its AbortError, which
 * the action reports as any failure (`error cancelled`, exit 4); a second Ctrl-C, or a command that does not
 * pass the signal on, removes what is half-written and exits 4 at once.
 */
export function prepareCommandProcess(): void {
  keepHeapSmall()
  const command: RunningCommand = {controller: new AbortController(), takesSignal: false}
  running = command
  const interrupted = (signal: NodeJS.Signals): void => {
    if (command.takesSignal && !command.controller.signal.aborted) {
      command.controller.abort(new Error(`interrupted by ${signal}`))
      return
    }
    removeTemporaryFilesSync()
    // A blank line first ends a progress bar's line.
    new CommandOutput({quiet: false}).errorLine(['', `cancelled (${signal}).`])
    process.exit(ExitCode.cancelled)
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, interrupted)
}

/**
 * The AbortSignal of the command this process runs, aborted by Ctrl-C (SIGINT) or SIGTERM. An action that
 * asks for it passes it to its one library call, which then cancels as a host's call would: Ctrl-C goes
 * through the same path as a host's `AbortController.abort()`.
 */
export function commandSignal(): AbortSignal {
  running.takesSignal = true
  return running.controller.signal
}

/**
 * A command holds many small objects that live as long as it does (one or more per archive entry or per
 * file, up to 20,000 of each), and V8 answers that by growing its young generation up to 16 MiB a
 * semi-space and letting the old generation grow by up to four times its live size between full
 * collections: tens of MiB of resident memory a short-lived process never uses again. Measured on 20,000
 * entries, keeping the young generation at its initial size and growing the old one by a fifth at a time
 * lowered the peak of verify, validate and install by 20 to 35 MiB; on the 295 MB bench tree pack kept
 * the same CPU time and about 20 MiB less. The old generation now grows by half at a time: a fifth made
 * a full collection every few MiB of objects that live as long as the command (measured: pack of 19,990
 * files of 512 bytes 0.91 of the time and CPU, and 3 to 9 MiB more at the peak on every shape, all still
 * under 150 MiB). Set here, in the command line's own process: the library leaves a host's heap alone.
 */
function keepHeapSmall(): void {
  setHeapFlags()
  if (watchingWorkers) return
  watchingWorkers = true
  // A worker thread, once started, has put V8's flags back as the process began with them, for the whole
  // process: pack's encoding workers undid these two (measured: the young generation then grew to 16 MiB a
  // semi-space, and pack of 1,000 modules of 50 KiB peaked 10 to 30 MiB higher). So they are set again as
  // each worker comes online, and as it exits (one stopped before it came online has reset them too).
  process.on('worker', (worker) => {
    worker.once('online', setHeapFlags)
    worker.once('exit', setHeapFlags)
  })
}

let watchingWorkers = false

function setHeapFlags(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
  setFlagsFromString('--heap-growing-percent=50')
}
