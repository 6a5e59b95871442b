import {initDefaults, initPlugin, shellCommand} from '#cli'
import {ExitCode} from '../exit-codes.js'
import {askInitAnswers, linePrompter, type InitAnswers} from '../prompt.js'
import type {ActionContext} from './action.js'
import type {CommandInput} from '../base.js'
import type Init from '../init.js'

/** The arguments and flags of `svc-plugin init`, as oclif parsed them from the declarations of {@link Init}. */
export type InitInput = CommandInput<typeof Init>

/**
 * `svc-plugin init [DIR]`: writes a new plugin's manifest and a placeholder entrypoint per runtime. On a
 * terminal (stdin and stdout) it asks for what no flag gave, unless `--yes`; elsewhere it never asks.
 */
export async function initCommand({args: {dir}, flags}: InitInput, {output}: ActionContext): Promise<ExitCode> {
  const {id, name, version, publisher, rid, entrypoint, json} = flags
  const given: Partial<InitAnswers> = {
    ...(id === undefined ? {} : {id}),
    ...(name === undefined ? {} : {name}),
    ...(publisher === undefined ? {} : {publisher}),
    ...(rid === undefined ? {} : {runtimes: rid.split(',').map((item) => item.trim())}),
  }
  const asking = !flags.yes && !json && process.stdin.isTTY === true && output.stdoutIsTerminal
  const answers = asking ? {...(await ask(dir, output)), ...given} : given
  const result = await initPlugin(dir, {
    ...answers,
    ...(version === undefined ? {} : {version}),
    ...(entrypoint === undefined ? {} : {entrypoint}),
  })
  if (json) {
    output.outJson(result)
    return ExitCode.success
  }
  if (result.createdFolder !== null) output.note(`Created ${result.createdFolder}.`)
  const check = shellCommand(['svc-plugin', 'validate'], [dir])
  output.out(`Created ${result.id} ${result.version} in ${result.directory}: ${result.files.map((file) => file.slice(result.directory.length + 1)).join(', ')}.${check === null ? '' : ` Check it with: ${check}`}`)
  if (result.schemaAdvice !== null) output.note(result.schemaAdvice)
  return ExitCode.success
}

/** The questions, on the terminal. */
async function ask(dir: string, output: ActionContext['output']): Promise<InitAnswers> {
  const prompter = linePrompter(process.stdin, (question) => output.ask(question))
  try {
    return await askInitAnswers(initDefaults(dir), prompter, (line) => output.note(line))
  } finally {
    prompter.close()
  }
}
