import type {Hook} from '@oclif/core'
import {ExitCode} from './exit-codes.js'
import {argvWantsJson, reportFailure} from './failure.js'

/**
 * The command a mistyped one most likely meant: the one command (topic commands such as `cert root`
 * included, compared word for word with as many words of what was typed) within a small edit distance,
 * when exactly one is closest. `typed` is what the user wrote, in words.
 */
export function suggestCommand(typed: readonly string[], commands: readonly string[]): string | undefined {
  let best: string[] = []
  let bestDistance = Number.POSITIVE_INFINITY
  for (const command of commands) {
    const words = command.split(' ')
    if (typed.length < words.length) continue
    const attempt = typed.slice(0, words.length).join(' ')
    const distance = editDistance(attempt.toLowerCase(), command)
    if (distance > allowedDistance(command)) continue
    if (distance < bestDistance) [best, bestDistance] = [[command], distance]
    else if (distance === bestDistance) best.push(command)
  }
  return best.length === 1 ? best[0] : undefined
}

/** How far a typo may be from a command of this length and still count as close. */
function allowedDistance(command: string): number {
  return command.length <= 4 ? 1 : 2
}

/** Edit distance counting insertions, deletions, substitutions and swaps of two neighbours as one each. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({length: a.length + 1}, (_, i) => Array.from({length: b.length + 1}, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let value = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = value
    }
  }
  return rows[a.length]![b.length]!
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
