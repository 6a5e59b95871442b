import type {Hook} from '@oclif/core'
import {ExitCode} from './exit-codes.js'
import {argvWantsJson, reportFailure} from './failure.js'
import {closest} from './suggest.js'

/**
 * The command a mistyped one most likely meant: the one command (topic commands such as `cert root`
 * included, compared word for word with as many words of what was typed) within a small edit distance,
 * when exactly one is closest. `typed` is what the user wrote, in words.
 */
export function suggestCommand(typed: readonly string[], commands: readonly string[]): string | undefined {
  return closest(
    commands.flatMap((command) => {
      const words = command.split(' ').length
      return typed.length < words ? [] : [{candidate: command, typed: typed.slice(0, words).join(' ')}]
    }),
  )
}

/**
 * Reports `error unknown-command: …` (and the JSON error shape with --json) for the command `id` (words
 * joined by `:` or spaces), followed by the arguments `argv`; the caller exits with the usage status.
 */
export function reportUnknownCommand(id: string, argv: readonly string[], commands: readonly string[]): void {
  const command = id.replaceAll(':', ' ')
  const suggestion = suggestCommand([...command.split(' '), ...argv.filter((word) => !word.startsWith('-'))], commands)
  const hint = suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`
  reportFailure({
    code: 'unknown-command',
    message: `"${command}" is not a svc-plugin command.${hint} See: svc-plugin --help`,
    json: argvWantsJson(argv),
    details: suggestion === undefined ? {command} : {command, suggestion},
  })
}

/** Every command a user can type, in words (`cert root`), including `help`. */
export function commandNames(ids: Iterable<string>): string[] {
  return [...ids].map((id) => id.replaceAll(':', ' '))
}

/** oclif's `command_not_found` hook: an unknown command is a usage error (exit 2) with a suggestion. */
const hook: Hook<'command_not_found'> = async function (options) {
  // oclif joins every word of an unknown command into its id: keep the topics and the first word after them.
  const words = options.id.split(':')
  let length = 1
  while (length < words.length && options.config.findTopic(words.slice(0, length).join(':')) !== undefined) length++
  reportUnknownCommand(words.slice(0, length).join(':'), [...words.slice(length), ...(options.argv ?? [])], commandNames(options.config.commandIDs))
  this.exit(ExitCode.usage)
}

export default hook
