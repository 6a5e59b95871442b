/**
 * The word of `choices` that `input` names, compared without regard to case or surrounding spaces
 * (`--format JSON` is `--format json`); `undefined` when it names none. The one matching of a word-list
 * flag, for oclif's parser (commands/flags.ts) and the direct path (commands/direct.ts) alike.
 */
export function matchChoice<const T extends string>(choices: readonly T[], input: string): T | undefined {
  const wanted = input.trim().toLowerCase()
  return choices.find((choice) => choice.toLowerCase() === wanted)
}
