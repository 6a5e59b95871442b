/**
 * How the value of a flag is read from its text, for oclif's parser (commands/flags.ts) and the direct path
 * (commands/direct.ts) alike. Each gives `undefined` for a text it does not accept; the flag's own parser
 * turns that into its message.
 */

/**
 * The word of `choices` that `input` names, compared without regard to case or surrounding spaces
 * (`--format JSON` is `--format json`).
 */
export function matchChoice<const T extends string>(choices: readonly T[], input: string): T | undefined {
  const wanted = input.trim().toLowerCase()
  return choices.find((choice) => choice.toLowerCase() === wanted)
}

/** A range of protocol majors, `MIN-MAX` or one number, with 1 <= MIN <= MAX. */
export function parseProtocolRange(input: string): {minimum: number; maximum: number} | undefined {
  const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(input)
  const minimum = Number(match?.[1])
  const maximum = Number(match?.[2] ?? match?.[1])
  return match === null || !Number.isSafeInteger(maximum) || minimum < 1 || maximum < minimum ? undefined : {minimum, maximum}
}

/** A whole number written in decimal digits (with a leading `-` when `minimum` is negative), at least `minimum`. */
export function parseCount(input: string, minimum: number): number | undefined {
  if (!(minimum < 0 ? /^\s*-?\d+\s*$/ : /^\s*\d+\s*$/).test(input)) return undefined
  const value = Number(input)
  return Number.isSafeInteger(value) && value >= minimum ? value : undefined
}

/** What the build records in the manifest about a flag whose value is read by one of the functions above. */
export type FlagValue = {readonly choices: readonly string[]} | {readonly value: 'protocol-range'} | {readonly value: 'count'; readonly minimum: number}

/** Reads `input` as the manifest says the flag's value is read; `undefined` when it is not such a value. */
export function readFlagValue(kind: FlagValue, input: string): unknown {
  if ('choices' in kind) return matchChoice(kind.choices, input)
  return kind.value === 'protocol-range' ? parseProtocolRange(input) : parseCount(input, kind.minimum)
}
