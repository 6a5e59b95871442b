import {flush, run} from '@oclif/core'
import {exitOnFailure} from './failure.js'

/**
 * Runs the command line for `process.argv`: the entry of the bundled command line, which the build writes
 * together with one module per command and `oclif.manifest.json`, so that oclif loads the one command that
 * was asked for. A failure no command caught is reported by the command layer (never a stack trace, unless
 * asked for).
 */
export async function main(root: string): Promise<void> {
  await run(process.argv.slice(2), root).then(
    () => flush(),
    (error: unknown) => exitOnFailure(error),
  )
}
