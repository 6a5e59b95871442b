import {showsAsItself} from './visible-text.js'

// Characters a POSIX shell never treats specially: a word of only these needs no quotes.
const plainWord = /^[A-Za-z0-9_@%+=:,./-]+$/

/** One argument as a POSIX shell word: as it is when plain, otherwise in single quotes (`'` written `'\''`). */
export function shellWord(argument: string): string {
  return plainWord.test(argument) ? argument : `'${argument.replaceAll("'", `'\\''`)}'`
}

/**
 * A command line to suggest to a person, for a POSIX shell: the command's words, then `--` when an operand
 * begins with `-` (so that it is not read as an option), then the operands, each quoted by
 * {@link shellWord}. Null when an argument would not be shown as itself in text output (it holds a control
 * or invisible character): such a command cannot be pasted as printed, so none is suggested.
 */
export function shellCommand(words: readonly string[], operands: readonly string[] = []): string | null {
  const argv = [...words, ...(operands.some((operand) => operand.startsWith('-')) ? ['--'] : []), ...operands]
  if (!argv.every(showsAsItself)) return null
  return argv.map(shellWord).join(' ')
}
