import {execute} from '@oclif/core'

/**
 * Runs the command line for `process.argv`: the entry of the bundled CLI (`dist/cli/main.js`), which the
 * build writes together with one module per command, so that a command loads only what it uses.
 */
export async function main(root: string): Promise<void> {
  await execute({dir: root})
}
