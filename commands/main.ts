import {flush, run} from '@oclif/core'
import {exitOnFailure} from './failure.js'

/**
 * Runs the command line for `process.argv`: the entry of the bundled command line, which the build writes
 * together with one module per command and `oclif.manifest.json`, so that oclif loads the one command that
 * was asked for. A failure no command caught is reported by the command layer (never a stack trace, unless
 * asked for).
 */
export async function main(root: string): Promise<void> {
  preloadCommand(process.argv.slice(2))
  await run(process.argv.slice(2), root).then(
    () => flush(),
    (error: unknown) => exitOnFailure(error),
  )
}

/** The extension of this module's own file, which every command module shares (`.mjs` in the bundle). */
const moduleExtension = /\.[^./]+$/.exec(import.meta.url)?.[0] ?? '.js'

/**
 * Starts loading the module of the command that `argv` names (`install`, `cert revoke`) while oclif starts,
 * so that reading its files overlaps oclif's own start instead of following it; oclif's import of the same
 * module then finds it loaded. The modules are looked for in `commands/` beside this one, as the bundle lays
 * them out. Nothing is parsed here: words that name no command module load nothing (the
 * import fails, and is ignored), and oclif alone decides what runs.
 */
function preloadCommand(argv: readonly string[]): void {
  const words = argv.slice(0, 2)
  if (!commandWord.test(words[0] ?? '')) return
  const candidates = [words[0]!, ...(commandWord.test(words[1] ?? '') ? [`${words[0]}/${words[1]}`] : [])]
  for (const candidate of candidates) import(new URL(`./commands/${candidate}${moduleExtension}`, import.meta.url).href).catch(() => undefined)
}

const commandWord = /^[a-z][a-z-]*$/
