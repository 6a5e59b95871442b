import {flush, run} from '@oclif/core'
import {exitOnFailure} from './failure.js'

/**
 * Runs the command line for `process.argv`: the entry of the bundled CLI (`dist/cli/main.js`), which the
 * build writes together with one module per command, so that a command loads only what it uses. A failure
 * no command caught is reported by the command layer (never a stack trace, unless asked for).
 */
export async function main(root: string): Promise<void> {
  await run(process.argv.slice(2), root).then(
    () => flush(),
    (error: unknown) => exitOnFailure(error),
  )
}
